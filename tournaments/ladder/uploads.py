"""Bots uploaded through the HTTP API: checked when they arrive, unpacked when a worker validates them.

An upload is one bot file (a Python file, a ``.bot.json`` manifest is useless alone, a
program with a ``#!`` line, or a compiled program: an ELF executable) or a zip of a bot's
files with its entry point named (or found: the only ``.bot.json`` at the top, else the only
``.py`` at the top). A bot started from a Python file or a program is that one file, and one started from a
manifest is the manifest and the files its command names (docs/bot-protocol.md), so a zip that holds more is
refused rather than its other files dropped. Nothing here runs or imports anything of it. An upload is hostile input:
``check`` reads every member of a zip in full, as unpacking will, and refuses the upload
(UploadError, with the reason) for anything it cannot read or trust: a damaged or lying
directory (a size or CRC that is not the member's), an encrypted member, a compression it
cannot undo, a name that would lead out of the folder or clash with another, more than
``MAX_FILES`` files, or more than ``MAX_UNPACKED`` bytes actually unpacked (a zip bomb,
whatever its directory says). ``unpack`` then writes exactly what ``check`` read, so an upload
that passed its check cannot fail to unpack.
"""

from __future__ import annotations

import io
import lzma
import re
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from tournaments.bots.discovery import manifest_files
from tournaments.bots.spec import MANIFEST_SUFFIX, BotError

MAX_FILES = 64
MAX_UNPACKED = 16 * 1024 * 1024
ZIP_MAGIC = b"PK\x03\x04"
EMPTY_ZIP_MAGIC = b"PK\x05\x06"
"""How a zip of no member begins (its end of central directory record alone)."""
PROGRAM_MAGIC = (b"#!", b"\x7fELF")
"""How a single uploaded file that is a program begins: a script's #! line, or an ELF executable's magic (a compiled
bot, which `ladder submit` takes as any executable)."""
SAFE_PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


class UploadError(ValueError):
    """An upload that cannot be a bot; the message is one line, said to the uploader."""


@dataclass(frozen=True, slots=True)
class Checked:
    filename: str
    entry_point: str
    files: tuple[tuple[str, bytes, bool], ...]
    """What unpacking writes: (path inside the folder, content, executable), as ``check`` read it."""


UNREADABLE = (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, OSError, ValueError, NotImplementedError,
              RuntimeError)
"""What reading a hostile zip may raise (a bad CRC, a truncated stream, a compression zipfile lacks, ...)."""


def check(filename: str, data: bytes, entry: str | None = None) -> Checked:
    """The upload's safe file name, entry point and files; UploadError if it cannot be a bot."""
    name = PurePosixPath(filename.replace("\\", "/")).name
    if not data:
        raise UploadError("the upload is empty")
    if data.startswith((ZIP_MAGIC, EMPTY_ZIP_MAGIC)):
        files = _members(data)
        return Checked(_safe(name or "bot.zip", "file name"), _alone(_entry_of([path for path, _, _ in files], entry),
                                                                      files), files)
    name = _safe(name, "file name")
    if entry not in (None, name):
        raise UploadError(f"entry {entry!r} names a file inside a zip, and {name} is a single file")
    if name.endswith(MANIFEST_SUFFIX):
        raise UploadError(f"a {MANIFEST_SUFFIX} manifest names other files: upload it in a zip with them")
    if not name.endswith(".py") and not data.startswith(PROGRAM_MAGIC):
        raise UploadError(f"{name}: a single file is a Python bot (.py), a program starting with #!, or a compiled "
                          "program (an ELF executable) (anything else: a zip with a .bot.json manifest)")
    return Checked(name, name, ((name, data, not name.endswith(".py")),))


def unpack(checked: Checked, folder: Path) -> Path:
    """Write the files ``check`` read into ``folder`` (which must be empty); the path of its entry point."""
    for path, content, executable in checked.files:
        target = folder.joinpath(*PurePosixPath(path).parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        target.chmod(0o755 if executable else 0o644)
    return folder.joinpath(*PurePosixPath(checked.entry_point).parts)


def _members(data: bytes) -> tuple[tuple[str, bytes, bool], ...]:
    """Every file of the zip, read in full within the limits: (path, content, executable)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = [info for info in archive.infolist() if not info.is_dir()]
            _check_directory(infos)
            files = []
            left = MAX_UNPACKED
            for info in infos:
                # Read to the end (the CRC is checked there), trusting no size the zip states.
                with archive.open(info) as source:
                    content = source.read(left + 1)
                    if len(content) > left or source.read(1):
                        raise UploadError(f"the zip unpacks to more than {MAX_UNPACKED // (1024 * 1024)} MiB")
                if len(content) != info.file_size:
                    raise UploadError(f"{info.filename}: its size differs from the zip's directory")
                left -= len(content)
                files.append((info.filename, content, bool((info.external_attr >> 16) & 0o111)))
            return tuple(files)
    except UploadError:
        raise
    except UNREADABLE as error:
        raise UploadError(f"not a readable zip ({type(error).__name__}: {error})") from None


def _check_directory(infos: list[zipfile.ZipInfo]) -> None:
    """What the zip's directory says, before anything is read: counts, sizes, names, encryption."""
    if not infos:
        raise UploadError("the zip is empty: it holds no bot (a .py file, a program, or a .bot.json manifest and "
                          "its files)")
    if len(infos) > MAX_FILES:
        raise UploadError(f"the zip holds {len(infos)} files, more than {MAX_FILES}")
    if sum(info.file_size for info in infos) > MAX_UNPACKED:
        raise UploadError(f"the zip unpacks to more than {MAX_UNPACKED // (1024 * 1024)} MiB")
    seen: set[str] = set()
    folders: set[str] = set()
    for info in infos:
        parts = PurePosixPath(info.filename).parts
        if not parts or any(not SAFE_PART.fullmatch(part) for part in parts) or info.filename.startswith("/"):
            raise UploadError(f"the zip names a file {info.filename!r}: only letters, digits, '.', '_' and '-' "
                              "in names, no absolute paths and no '..'")
        if info.flag_bits & 0x1:
            raise UploadError(f"{info.filename}: encrypted zips are refused")
        if info.filename.lower() in seen:
            raise UploadError(f"the zip holds {info.filename!r} twice")
        seen.add(info.filename.lower())
        folders.update("/".join(parts[:i]).lower() for i in range(1, len(parts)))
    clash = sorted(seen & folders)
    if clash:
        raise UploadError(f"the zip holds {clash[0]!r} both as a file and as a folder")


def _entry_of(names: list[str], entry: str | None) -> str:
    if entry is not None:
        if entry not in names:
            raise UploadError(f"the zip holds no file {entry!r} to start the bot with")
        return entry
    top = [name for name in names if "/" not in name]
    for suffix in (MANIFEST_SUFFIX, ".py"):
        found = [name for name in top if name.endswith(suffix)]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise UploadError(f"the zip holds several {suffix} files at its top ({', '.join(sorted(found))}): "
                              "name the one to start with (entry)")
    raise UploadError(f"the zip holds no {MANIFEST_SUFFIX} manifest or .py file at its top: name the entry point")


def _alone(entry: str, files: tuple[tuple[str, bytes, bool], ...]) -> str:
    """``entry``, if the bot started from it keeps every file of the zip: a Python file or a program only when it is
    the zip's one file (the bot is that file alone), a manifest when its command names every other file (the bot is
    the manifest and those: discovery.manifest_files). Anything else would be dropped, and the bot fail for its lack
    only when the worker plays it."""
    names = [path for path, _, _ in files]
    kept: tuple[str, ...] = (entry,)
    if entry.endswith(MANIFEST_SUFFIX):
        try:
            kept = manifest_files(entry, next(content for path, content, _ in files if path == entry), names)
        except BotError as error:
            raise UploadError(f"{entry}: {error}") from None
    others = sorted(name for name in names if name not in kept)
    if not others:
        return entry
    listed = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
    if entry.endswith(MANIFEST_SUFFIX):
        raise UploadError(f"the zip holds {listed} beside its manifest {entry}, whose command does not name "
                          f"{'it' if len(others) == 1 else 'them'}: a bot has only the files its command names, so "
                          "name each file it needs in the command, or leave it out of the zip (docs/bot-protocol.md)")
    raise UploadError(f"the zip holds {listed} beside its entry {entry}, but a bot started from {entry} is that one "
                      f"file alone: upload {entry} by itself, or add a {MANIFEST_SUFFIX} manifest whose command names "
                      "every file it needs (docs/bot-protocol.md)")


def _safe(name: str, what: str) -> str:
    if not SAFE_PART.fullmatch(name):
        raise UploadError(f"{what} {name!r}: only letters, digits, '.', '_' and '-' (starting with a letter or digit)")
    return name
