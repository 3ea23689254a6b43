"""Bots from a folder: in-process Python files and programs in any language.

What counts as a bot (docs/bot-protocol.md has the whole contract):

* ``NAME.py`` (not starting with ``_``) defining ``GAMES`` ("*" or a tuple of game names)
  and ``class Bot`` with ``__init__(self, game, seat, rng)`` and ``act(self, turn) -> str``:
  an in-process Python bot. Python files without them are skipped with a notice.
* ``NAME.bot.json``, a manifest ``{"command": [...], "games": [...]}`` (games optional;
  the command runs in the folder): a program speaking the JSON-lines bot protocol.
* any other executable file: a program speaking the protocol, run as is; but never an SQLite
  database (a ledger kept in the folder, on a file system that marks every file executable),
  nor the files kept beside one: SQLite's -wal, -shm and -journal, a ledger's .key and .pub.

A bot's identity is its name (the file name without suffix) and the SHA-256 of its
content (the file, or the manifest plus every file of the folder its command names).

Discovery never runs a bot: a Python bot's GAMES and Bot are found by parsing its source
(GAMES must be a literal), so a file with side effects at import does nothing here.

A bots folder is written by the bots' authors, so discovery reads it as hostile input: it
reads only regular files inside the folder (a symlink may lead only to another file inside
it; FIFOs, devices, sockets and the files of /proc and /sys are refused), each bot's
files together at most ``MAX_BOT_BYTES`` (a Python source ``MAX_SOURCE_BYTES``: it is parsed)
and for at most ``READ_SECONDS``. A bot it cannot read is left out with the reason; the
others play. A word of a manifest's command that leads outside the folder (``/usr/bin/python3``,
``../x``) is a word, never read: a content hash covers the bot's own files only.
"""

from __future__ import annotations

import ast
import hashlib
import os
import posixpath
import re
import stat
import time
from collections.abc import Collection
from dataclasses import replace
from pathlib import Path

import orjson

from tournaments.bots.spec import MANIFEST_SUFFIX, PROGRAM, PYTHON, BotError, BotSpec

MAX_BOT_BYTES = 64 * 1024 * 1024
"""The most one bot's own files may hold together (a program's binary and data included)."""
MAX_SOURCE_BYTES = 2 * 1024 * 1024
"""The largest Python bot file: its source is parsed (about 150 bytes of memory per byte of a
dense literal), so a bigger one could cost the organiser gigabytes."""
MAX_MANIFEST_BYTES = 1024 * 1024
"""The largest manifest."""
READ_SECONDS = 10.0
"""How long reading one bot's files may take (a file on a slow disk or a network share)."""
PSEUDO_FOLDERS = ("/proc", "/sys")
"""Where regular-looking files are the kernel's, not data: never read as a bot's, wherever a path
leads (a device anywhere, /dev included, is refused as not a regular file)."""
CHUNK = 1024 * 1024
OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC
"""How a bot's file is opened: O_NONBLOCK, as opening a FIFO for reading would otherwise wait for a writer, forever;
O_NOFOLLOW, as its path was resolved first (``_inside``), so a symlink there was put there since."""


def sha256_file(path: Path) -> str:
    return hashlib.sha256(read_bot_file(path, path.parent)).hexdigest()


def discover(folder: str | Path, game: str) -> tuple[list[BotSpec], list[str]]:
    """The bots in ``folder`` that play ``game``, and one notice per file left out."""
    root = Path(folder)
    if not root.is_dir():
        raise BotError(f"{folder}: not a directory of bots")
    specs: list[BotSpec] = []
    notices: list[str] = []
    for path in sorted(root.iterdir()):
        if path.name.startswith((".", "_")):
            continue
        try:
            spec = None if path.is_dir() else describe(path)  # stat reads no content, wherever it leads
        except BotError as error:
            notices.append(f"skipped {path.name}: {error}")
            continue
        if spec is None:
            continue
        left_out = spec.not_playing(game)
        if left_out is not None:
            notices.append(f"skipped {path.name}: {left_out}")
            continue
        specs.append(spec)
    return specs, notices


SCRIPT_SUFFIXES = (".sh", ".bash")
"""Files that can only be meant as program bots, as can one that starts with ``#!``: one without its run bit is left
out with a hint."""
PROGRAM_STARTS = (b"#!", b"\x7fELF")
"""How a file the kernel can run as a bot begins: a script's #! line, an ELF binary's header. An executable file that
begins otherwise is no program (a script without its #! line fails to start, or is run by sh where execvp is; a note,
an image or a private key on vfat, where every file is executable): left out with the reason, never staged or run."""
SQLITE_HEADER = b"SQLite format 3\x00"
"""How every SQLite database file begins."""
IN_USE = ("-wal", "-shm")
"""The files SQLite keeps beside a database while a connection has it open in WAL mode (a ledger's)."""
BESIDE_DATABASE = (*IN_USE, "-journal", ".key", ".pub")
"""The files kept beside a database ``NAME``: SQLite's (ledger.dialect.SQLITE_FILES) and its ledger key's (``NAME.key``
and ``NAME.pub``, ledger.signing_keys), never bots whatever their mode."""


def describe(path: Path) -> BotSpec | None:
    """The BotSpec of one file, None if it is not meant as a bot; BotError if it is broken or
    cannot be read as a bot's file (see the module's docstring).

    A Python file is read, never run: its GAMES must be a literal, found by parsing the file.
    """
    budget = _Budget()
    if path.suffix == ".py":
        source = read_bot_file(path, path.parent, budget, MAX_SOURCE_BYTES)
        try:
            games = _declared_games(source, path)
        except BotError as error:
            if _executable(path):  # meant as a program, perhaps: say how to run it as one
                raise BotError(f"{error}; it is executable: to run it as a program, name it in a manifest "
                               f"{path.stem}{MANIFEST_SUFFIX} (docs/bot-protocol.md)") from None
            raise
        games = ("*",) if games == "*" else tuple(games)
        return BotSpec(path.stem, PYTHON, str(path), hashlib.sha256(source).hexdigest(), games, (),
                       str(path.parent.resolve()), (path.name,))
    if path.name.endswith(MANIFEST_SUFFIX):
        return _manifest(path, budget)
    if _executable(path):
        if any(path.name.endswith(end) and _database(path.parent / path.name[: -len(end)]) for end in BESIDE_DATABASE):
            return None  # the database's notice speaks for it
        if _database(path):
            raise BotError("an SQLite database, not a program (nor are the files kept beside it)")
        content = read_bot_file(path, path.parent, budget)
        if not content.startswith(PROGRAM_STARTS):
            raise BotError("executable, but not a program: a script starts with a #! line, a binary with an ELF "
                           "header (a file system such as vfat makes every file executable)")
        return BotSpec(path.name.split(".")[0], PROGRAM, str(path), hashlib.sha256(content).hexdigest(), None,
                       (f"./{path.name}",), str(path.parent.resolve()), (path.name,))
    if path.suffix in SCRIPT_SUFFIXES or _starts_with(path, b"#!"):
        raise BotError(f"it is not executable: `chmod +x {path.name}` to play it as a program")
    return None


def _database(path: Path) -> bool:
    """Whether ``path`` is an SQLite database: one in use (its -wal or -shm beside it) is never opened, since closing
    a handle on it would drop every lock this process's connections hold on it (ledger.dialect.database_file); any
    other is known by its header, read as a bot's file is (a file read_bot_file would refuse is none)."""
    if path.is_dir() or not os.path.lexists(path):
        return False
    return any(os.path.lexists(f"{path}{end}") for end in IN_USE) or _starts_with(path, SQLITE_HEADER)


def _starts_with(path: Path, start: bytes) -> bool:
    """Whether the regular file ``path`` begins with ``start``, read as a bot's file is (one read_bot_file would
    refuse does not)."""
    try:
        descriptor = os.open(_inside(path, path.parent), OPEN_FLAGS)
    except (BotError, OSError):
        return False
    try:
        return stat.S_ISREG(os.fstat(descriptor).st_mode) and os.read(descriptor, len(start)) == start
    except OSError:
        return False
    finally:
        os.close(descriptor)


def read_bot_file(path: Path, folder: Path, budget: _Budget | None = None, most: int | None = None) -> bytes:
    """The bytes of one of a bot's files, read as hostile input: BotError (one line, naming the file
    as ``folder`` holds it) unless it is a regular file inside ``folder`` (after every symlink), outside
    /proc and /sys, of at most ``most`` bytes and what is left of ``budget``, read in its time."""
    budget = budget or _Budget()
    name = _shown(path, folder)
    real = _inside(path, folder)
    try:
        descriptor = os.open(real, OPEN_FLAGS)
    except OSError as error:
        raise BotError(f"cannot read {name}: {error.strerror or error}") from None
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise BotError(f"{name} is not a regular file ({_kind(mode)})")
        if most is not None and most < budget.left:
            limit, over = most, f"{name} is larger than {_mib(most)}"
        else:
            limit, over = budget.left, f"its files hold more than {_mib(MAX_BOT_BYTES)}"
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(descriptor, min(CHUNK, limit - size + 1)):
            size += len(chunk)
            chunks.append(chunk)
            if size > limit:
                raise BotError(over)
            if time.monotonic() > budget.deadline:
                raise BotError(f"reading {name} took more than {READ_SECONDS:g} s")
    except OSError as error:
        raise BotError(f"cannot read {name}: {error.strerror or error}") from None
    finally:
        os.close(descriptor)
    budget.left -= size
    return b"".join(chunks)


def read_files(spec: BotSpec) -> list[tuple[str, bytes, bool]]:
    """A bot's own files as discovery reads them (bounded, inside its folder): (name, content, executable)."""
    budget = _Budget()
    folder = Path(spec.cwd)
    return [(name, read_bot_file(folder / name, folder, budget), _executable(folder / name)) for name in spec.files]


class _Budget:
    """What one bot's files may still cost: bytes, and a deadline."""

    __slots__ = ("deadline", "left")

    def __init__(self) -> None:
        self.left = MAX_BOT_BYTES
        self.deadline = time.monotonic() + READ_SECONDS


def _inside(path: Path, folder: Path) -> str:
    """The real path of ``path`` (every symlink resolved); BotError if it leads outside ``folder``
    or into /proc or /sys."""
    real = os.path.realpath(path)
    root = os.path.realpath(folder)
    name = _shown(path, folder)
    for pseudo in PSEUDO_FOLDERS:
        if real == pseudo or real.startswith(pseudo + "/"):
            raise BotError(f"{name} leads to {real}: a bot's files are never read from {pseudo}")
    if os.path.commonpath([real, root]) != root:
        raise BotError(f"{name} leads outside the bots folder (to {real})")
    return real


def _executable(path: Path) -> bool:
    """Anything but a folder whose mode says it is executable: a FIFO or a device with mode 0755 is a
    bot to refuse with its reason, not a file to ignore (``stat`` reads no content, wherever it leads)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:  # a dangling symlink: nothing to run
        return False
    return not stat.S_ISDIR(mode) and bool(mode & 0o111)


def _kind(mode: int) -> str:
    for test, kind in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return kind
    return "not data"


def _shown(path: Path, folder: Path) -> str:
    try:
        return str(Path(path).relative_to(folder))
    except ValueError:
        return str(path)


def _mib(size: int) -> str:
    return f"{size // (1024 * 1024)} MiB"


def staged_copy(spec: BotSpec, root: Path) -> BotSpec:
    """The bot with its own files copied into a folder of their own under ``root``, readable by
    any user (a sandboxed bot runs as a uid of its own) and safe from changes during the run.
    The files are read as discovery reads them (a file swapped for a FIFO since is refused)."""
    target = root / f"{re.sub(r'[^A-Za-z0-9._-]', '_', spec.name)}-{spec.content_hash[:12]}"
    target.mkdir(mode=0o755)
    target.chmod(0o755)
    for name, content, executable in read_files(spec):
        copy = target / name
        copy.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        copy.write_bytes(content)
        copy.chmod(0o755 if executable else 0o644)
    staged = describe(target / Path(spec.path).name)
    if staged is None or staged.content_hash != spec.content_hash:
        raise BotError(f"{spec.name}: its files changed while tourney read them")
    return replace(staged, name=spec.name)


def _declared_games(source: bytes, path: Path):
    """GAMES and class Bot found by parsing the file, without running any of it."""
    try:
        tree = ast.parse(source, str(path))
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        raise BotError(f"not valid Python: {error}") from None
    games = None
    has_bot = False
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Bot":
            has_bot = True
        if isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == "Bot" for a in node.names):
            has_bot = True
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) and node.value is not None else []
        if any(isinstance(target, ast.Name) and target.id == "Bot" for target in targets):
            has_bot = True
        if any(isinstance(target, ast.Name) and target.id == "GAMES" for target in targets):
            try:
                games = ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                raise BotError('GAMES must be written as a literal ("*" or a tuple of game names)') from None
    if games is None or not has_bot:
        raise BotError("a Python bot defines GAMES and class Bot (see docs/bot-protocol.md)")
    if games != "*" and not (isinstance(games, list | tuple) and all(isinstance(g, str) for g in games)):
        raise BotError('GAMES is "*" or a tuple of game names')
    return games


def manifest_files(manifest: str, text: bytes, names: Collection[str]) -> tuple[str, ...]:
    """The files of a bot's folder not yet on disk (``names``: each file's path in it, "/" between parts; an uploaded
    zip's) that the manifest at ``manifest``, of content ``text``, makes the bot's own: itself and each file its
    command names, as ``describe`` finds them once the folder is unpacked. Any other file of the folder the bot
    would never see. BotError if ``text`` is no manifest."""
    if len(text) > MAX_MANIFEST_BYTES:
        raise BotError(f"{manifest} is larger than {_mib(MAX_MANIFEST_BYTES)}")
    folder = posixpath.dirname(manifest)
    own = [manifest]
    for part in _parsed(text)[1]:
        written = _written(part)
        name = None if written is None else posixpath.join(folder, written)
        if name in names and name not in own:
            own.append(name)
    return tuple(own)


def _parsed(text: bytes) -> tuple[dict, list[str], list[str] | None]:
    """A manifest's JSON, its command (a string split into words) and its games; BotError if it is no manifest."""
    try:
        manifest = orjson.loads(text)
    except orjson.JSONDecodeError as error:
        raise BotError(f"manifest is not JSON ({error})") from None
    command = manifest.get("command") if isinstance(manifest, dict) else None
    if isinstance(command, str):
        command = command.split()
    if not (isinstance(command, list) and command and all(isinstance(part, str) for part in command)):
        raise BotError('a manifest names its "command" as a list of strings')
    games = manifest.get("games")
    if games is not None and not (isinstance(games, list) and all(isinstance(g, str) for g in games)):
        raise BotError('"games" must be a list of game names')
    return manifest, command, games


def _manifest(path: Path, budget: _Budget) -> BotSpec:
    folder = path.parent
    text = read_bot_file(path, folder, budget, MAX_MANIFEST_BYTES)
    manifest, command, games = _parsed(text)
    digest = hashlib.sha256(text)
    files = [path.name]
    for part in command:
        name = _own_file(folder, part)
        if name is not None:
            digest.update(read_bot_file(folder / name, folder, budget))
            if name not in files:
                files.append(name)
    name = manifest.get("name") or path.name[: -len(MANIFEST_SUFFIX)]
    return BotSpec(str(name), PROGRAM, str(path), digest.hexdigest(), tuple(games) if games else None,
                   tuple(command), str(folder.resolve()), tuple(files))


def _own_file(folder: Path, part: str) -> str | None:
    """The file of the bot's folder that a word of its command names (relative to the folder), or
    None: a word that names nothing there, a folder, or a path leading out of the folder as written
    (``/usr/bin/python3``, ``../lib.py``), which is a word for the sandbox's system, never read here.
    A name inside that is not a regular file inside the folder (a FIFO, a symlink out) is BotError."""
    written = _written(part)
    if written is None:
        return None
    named = folder / written
    if not os.path.lexists(named) or named.is_dir():
        return None
    return written


def _written(part: str) -> str | None:
    """A word of a command as a path inside the bot's folder (normalized), or None if it leads out as written."""
    written = os.path.normpath(part)
    if not part or os.path.isabs(written) or written == ".." or written.startswith("../"):
        return None
    return written


LANGUAGES = {"python": "Python", "pypy": "Python", "node": "JavaScript", "nodejs": "JavaScript", "deno": "JavaScript",
             "bun": "JavaScript", "bash": "shell", "sh": "shell", "dash": "shell", "zsh": "shell", "ruby": "Ruby",
             "perl": "Perl", "php": "PHP", "lua": "Lua", "java": "Java", "Rscript": "R", "julia": "Julia"}
"""Interpreters a program's command (or its #! line) starts, by name without a version ("python3.11": python)."""
SUFFIX_LANGUAGES = {".py": "Python", ".js": "JavaScript", ".mjs": "JavaScript", ".sh": "shell", ".bash": "shell",
                    ".rb": "Ruby", ".pl": "Perl", ".php": "PHP", ".lua": "Lua", ".jar": "Java", ".R": "R",
                    ".jl": "Julia"}


def language(spec: BotSpec) -> str:
    """What a bot is written in, as a leaderboard shows it (the author never has to say): a Python bot's "Python"; a
    program's from the interpreter its command starts (`node bot.js`: JavaScript), else from its file: a #! line
    names the interpreter, an ELF binary is "compiled", a name ending .sh is shell; "program" when nothing tells."""
    if spec.kind != PROGRAM:
        return "Python"  # a Python bot, or tourney's builtin one
    if not spec.command:
        return "program"
    first = spec.command[0]
    named = LANGUAGES.get(re.sub(r"[\d.]+$", "", Path(first).name))
    if named is not None:
        return named
    try:
        with (Path(spec.cwd) / first).open("rb") as file:
            head = file.read(256)
    except OSError:
        head = b""
    if head.startswith(b"\x7fELF"):
        return "compiled"
    if head.startswith(b"#!"):
        words = head[2:].split(b"\n", 1)[0].decode(errors="replace").split()
        words = [word for word in words[1:] if not word.startswith("-")] if words and Path(words[0]).name == "env" \
            else words[:1]
        named = LANGUAGES.get(re.sub(r"[\d.]+$", "", Path(words[0]).name)) if words else None
        if named is not None:
            return named
    return SUFFIX_LANGUAGES.get(Path(first).suffix, "program")
