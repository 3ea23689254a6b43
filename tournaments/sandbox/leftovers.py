"""Names that say which process made a thing, so that a later process can remove it once its maker is gone.

A tourney process names what it makes outside itself ``<pid>-<start time>``: a sandbox's cgroup, and every
folder it makes for itself alone (``temporary_folder``: a run's staged bot files, a ladder worker's copy of an
upload; the bot cache's working folders through ``sweep``). A SIGKILL, or the kernel's OOM killer, leaves no chance
to clean up, and the next tourney process on the machine removes what such a name says was made by a process that
no longer runs. The start time (field 22 of /proc/PID/stat) tells a pid's maker from a later process that got the
same pid.
"""

from __future__ import annotations

import functools
import glob
import os
import shutil
import stat
import tempfile
from pathlib import Path


def tag() -> str:
    """This process's ``<pid>-<start time>`` (a child forked from it has its own)."""
    return _tag(os.getpid())


@functools.cache
def _tag(pid: int) -> str:
    return f"{pid}-{_start_time(pid)}"


def _start_time(pid: int) -> str:
    """A process's start time: with its pid, a name no later process has ("" if it is gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[19]
    except (OSError, IndexError):
        return ""


def parse(name: str, prefix: str) -> tuple[int, str] | None:
    """The (pid, start time) that ``name`` (``<prefix><pid>-<start time>-<anything>``) says made it; None if it
    is not such a name."""
    parts = name[len(prefix):].split("-", 2) if name.startswith(prefix) else []
    if len(parts) != 3 or not parts[0].isdigit() or not parts[1].isdigit():
        return None
    return int(parts[0]), parts[1]


def gone(pid: int, start: str) -> bool:
    """Whether the process that was ``pid`` started at ``start`` runs no more (read now, never cached)."""
    return _start_time(pid) != start


def temporary_folder(prefix: str) -> tempfile.TemporaryDirectory:
    """A new folder in the temporary folder (TMPDIR), ``<prefix><pid>-<start time>-<random>``, removed when it is
    cleaned up (its ``with`` ends, the process exits); first, the folders of that prefix whose process is gone are
    removed (one SIGKILLed, or stopped by the OOM killer, cannot remove its own)."""
    sweep(Path(tempfile.gettempdir()), prefix)
    return tempfile.TemporaryDirectory(prefix=f"{prefix}{tag()}-")


def sweep(folder: Path, prefix: str) -> list[Path]:
    """Remove the folders in ``folder`` named ``<prefix><pid>-<start time>-...`` whose maker runs no more; the ones
    removed. Only real folders of this user are touched: a name alone (another user's folder, a link someone made in
    a shared /tmp) is never followed."""
    removed = []
    for path in folder.glob(f"{glob.escape(prefix)}*"):
        owner = parse(path.name, prefix)
        if owner is None or not gone(*owner):
            continue
        try:
            found = path.lstat()
            if stat.S_ISDIR(found.st_mode) and found.st_uid == os.geteuid():
                shutil.rmtree(path)
                removed.append(path)
        except OSError:
            continue  # another process removing it too, or not ours to remove
    return removed
