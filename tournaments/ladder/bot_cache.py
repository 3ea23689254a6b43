"""The bot cache: stored bots unpacked once per user and content, checked against their hash before each use.

A ladder's bots are stored in the ledger (a zip per bot version), so a ladder can run a bot for weeks
after it was submitted, from any machine that has the database; each machine unpacks them into a private
cache ($XDG_CACHE_HOME/tourney/bots, mode 0700).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import socket
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from ledger.rows import ladder_rows
from ledger.store import Ledger
from tournaments.bots.discovery import describe
from tournaments.bots.spec import BotError, BotSpec
from tournaments.ladder.ladder_errors import LadderError
from tournaments.sandbox import leftovers

WORKING = ".working-"
"""The prefix of a process's working folders in the cache (a copy being unpacked, a bad copy being removed):
``.working-<host>-<pid>-<start time>-<random>``, removed by the process when done; one whose process was killed is
removed by the next unpack into the cache on the same machine (tournaments.sandbox.leftovers: a pid means nothing on
another machine, and a home folder, with its cache, may be shared by several)."""


def cache_root() -> Path:
    """The private per-user cache of unpacked bots (mode 0700): $XDG_CACHE_HOME/tourney/bots."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    root = base / "tourney"
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    root.chmod(0o700)
    (root / "bots").mkdir(mode=0o700, exist_ok=True)
    return root / "bots"


def materialize(content_hash: str, entry_point: str, files: bytes) -> Path:
    """The folder of a stored bot, unpacked once per user and content (keyed by content hash and
    entry point) and checked against the content hash before each use: a copy that no longer
    matches (changed on disk, or half unpacked) is unpacked again."""
    root = cache_root()
    target = root / f"{content_hash}-{re.sub(r'[^A-Za-z0-9._-]', '_', entry_point)}"
    if target.is_dir() and _hash_of(target, entry_point) == content_hash:
        return target
    leftovers.sweep(root, _working_prefix())
    staging = _working_folder(root)
    try:
        _unpack(content_hash, files, staging)
        if _hash_of(staging, entry_point) != content_hash:
            raise LadderError(f"stored bot {content_hash[:12]}: its files do not match its content hash")
    except BaseException:  # a bad archive, a full disk, Ctrl-C: the half-made copy goes
        shutil.rmtree(staging, ignore_errors=True)
        raise
    # A good copy is never removed: another process (a second ladder worker) may be playing from it. A copy that
    # does not match is moved aside whole, then removed; the new one comes in by one rename, which fails if
    # another process's good copy came in first (then that one is used).
    if target.exists() and _hash_of(target, entry_point) != content_hash:
        aside = _working_folder(root)
        with contextlib.suppress(OSError):  # another process moved it first
            target.rename(aside / "bot")
        shutil.rmtree(aside, ignore_errors=True)
    try:
        staging.rename(target)
    except OSError:  # another process's copy came in first: the same files, checked by their hash on each use
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _working_folder(root: Path) -> Path:
    return Path(tempfile.mkdtemp(dir=root, prefix=f"{_working_prefix()}{leftovers.tag()}-"))


def _working_prefix() -> str:
    return f"{WORKING}{socket.gethostname()}-"


def _unpack(content_hash: str, files: bytes, staging: Path) -> None:
    with zipfile.ZipFile(io.BytesIO(files)) as archive:
        for info in archive.infolist():
            destination = staging / info.filename
            if not destination.resolve().is_relative_to(staging.resolve()):
                raise LadderError(f"stored bot {content_hash[:12]}: a file outside its folder ({info.filename})")
            destination.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            destination.write_bytes(archive.read(info))
            # Readable by the sandbox's uid; the cache's own 0700 keeps other users out.
            destination.chmod(0o755 if (info.external_attr >> 16) & 0o111 else 0o644)
    staging.chmod(0o755)


def _hash_of(folder: Path, entry_point: str) -> str | None:
    try:
        spec = describe(folder / entry_point)
    except (BotError, OSError):
        return None
    return spec.content_hash if spec is not None else None


def runnable(name: str, content_hash: str, directory: Path, entry_point: str) -> BotSpec:
    """A stored bot as the runner plays it (in its sandbox, a Python file through pyhost)."""
    spec = describe(directory / entry_point)
    if spec is None:
        raise LadderError(f"stored bot {name}: {entry_point} is not a bot")
    return BotSpec(name, spec.kind, spec.path, content_hash, ("*",), spec.command, str(directory), spec.files)


def stored_bot(ledger: Ledger, entry: dict[str, Any]) -> BotSpec:
    """A ladder entry's bot, unpacked from the ledger into the private cache, as the runner plays it."""
    entry_point, files = ladder_rows.archive(ledger, entry["bot_id"])
    directory = materialize(entry["content_hash"], entry_point, files)
    return runnable(entry["name"], entry["content_hash"], directory, entry_point)
