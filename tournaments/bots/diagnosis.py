"""Why a bot forfeited, in its own terms: a Python bot's traceback, or a program's last stderr lines.

A forfeit's reason (``crashed: KeyError: 'hand'``) is hashed into the game and public; what the
bot was doing when it failed is not. A ``Diagnosis`` keeps it beside the game, private as the
bot's stderr is (its owner reads it; the organiser's `tourney games --forfeits` shows its one
line): for a Python bot, the traceback of its exception from the bot's own first frame on (the
host's frames, which call ``act`` or import the file, are cut, and so are importlib's), with the
innermost line of the bot's file as its summary; for any bot that failed without one (a program,
a timeout, an exit), the last lines it wrote on stderr.

Everything in it was written by the bot, so it is bounded here (``SUMMARY_CHARS``,
``DETAIL_CHARS``) and shown escaped (tournaments.cli.escapes on a terminal, the web's templates
in HTML). This module runs in pyhost, in the bot's own process, too: it imports only the
standard library, and ``traceback`` only when a bot has failed.
"""

from __future__ import annotations

import os
import re
import types
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pathlib is not imported where the bot runs: its start-up is paid from its first move
    import traceback
    from pathlib import Path

TRACEBACK = "traceback"
STDERR = "stderr"
KINDS = (TRACEBACK, STDERR)
SUMMARY_CHARS = 300
"""The longest summary: one line, as `tourney games --forfeits` shows it."""
DETAIL_CHARS = 8192
"""The longest detail kept (its start and its end, where a traceback names the exception)."""
STDERR_LINES = 20
"""The last lines of a bot's stderr a diagnosis keeps (the whole end goes to --bot-logs)."""
STDERR_CHARS = 200
"""The most of a program's last stderr line a failure's reason quotes (its owner reads the last 20 lines in full)."""
HANDSHAKE_LOG = "handshake.log"
"""The --bot-logs file, in a bot's folder, of what a bot left out at its handshake wrote on stderr."""
LOG_NAME = re.compile(r"[^A-Za-z0-9._#+-]")
"""What a bot's name may not hold as a folder of --bot-logs (anything else becomes ``_``)."""


@dataclass(frozen=True, slots=True)
class Diagnosis:
    """What a forfeiting seat's bot left behind: its kind (TRACEBACK or STDERR), a one-line summary,
    the bounded detail, and where --bot-logs wrote the seat's whole stderr (None: nowhere)."""

    seat: int
    kind: str
    summary: str
    detail: str
    log: str | None = None
    where: str = ""
    """For a traceback, the innermost line of the bot's file: ``at mybot.py line 12, in act`` (the summary's end)."""

    def placed(self, reason: str) -> str:
        """A forfeit's reason with where in the bot's file it came from, when the diagnosis knows."""
        return f"{reason} {self.where}" if self.where else reason

    def told(self, reason: str) -> str:
        """A failure's reason with the bot's own account, one line: where in its Python file, or the last line it
        wrote on stderr (``crashed: exited with code 3 before answering; last on its stderr: bad usage``)."""
        if self.kind == STDERR:
            return f"{reason}; {one_line(self.summary, STDERR_CHARS)}"
        return self.placed(reason)


def bounded(kind: str, summary: str, detail: str, seat: int = 0, where: str = "") -> Diagnosis:
    """A Diagnosis of what a bot sent or wrote, cut to size: a summary of one line, a detail of at most
    DETAIL_CHARS (its head and tail kept)."""
    if kind not in KINDS:
        kind = STDERR
    where = one_line(where, 200)
    summary = one_line(summary, SUMMARY_CHARS - len(where) - 1)
    return Diagnosis(seat, kind, f"{summary} {where}" if where else summary, cut(detail, DETAIL_CHARS), where=where)


def one_line(text: str, limit: int = SUMMARY_CHARS) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def cut(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its first quarter and its end with a marker between."""
    text = str(text)
    if len(text) <= limit:
        return text
    head = limit // 4
    marker = f"\n[… {len(text) - limit} characters cut …]\n"
    return text[:head] + marker + text[len(text) - (limit - head - len(marker)):]


def of_exception(error: BaseException, path: str, called: object = None) -> Diagnosis:
    """The traceback of a Python bot's exception, from the first frame in its file ``path`` on; summary:
    the exception's type and first line, how many more lines its message and notes hold, and the innermost
    line of the bot's file (``KeyError: 'hand' at mybot.py line 12, in act``, ``ValueError: bad hand (and 2
    more lines) at ...``). An error with no frame of the bot's (a SyntaxError, an exit while importing) keeps
    its own; a TypeError of tourney's call of ``called`` (the bot's ``Bot.__init__`` or its ``act``), raised before
    any line of it ran, as a signature that takes other arguments, is placed at its ``def`` line."""
    import traceback

    found = traceback.TracebackException.from_exception(error, limit=-200)
    frames = [frame for frame in found.stack if not frame.filename.startswith("<frozen importlib")]
    own = [index for index, frame in enumerate(frames) if _same_file(frame.filename, path)]
    found.stack = traceback.StackSummary.from_list(frames[own[0]:] if own else [])
    defined = _defined(called, path) if not own and isinstance(error, TypeError) else None
    if not own and isinstance(error, SyntaxError) and error.lineno is not None:
        where = f"at {os.path.basename(error.filename or path)} line {error.lineno}"
    elif own:
        frame = frames[own[-1]]
        where = f"at {os.path.basename(path)} line {frame.lineno}, in {frame.name}"
    elif defined is not None:
        where = f"at {os.path.basename(path)} line {defined.co_firstlineno}, in {defined.co_name}"
    else:
        where = ""
    return bounded(TRACEBACK, _told(found, type(error).__name__, where), "".join(found.format()), where=where)


def _defined(called: object, path: str):
    """The code of the function ``called`` stands for (a bound method's), when it is written in the bot's file
    ``path``; None otherwise (a class without its own ``__init__``, a builtin, a function of another file)."""
    code = attribute(attribute(called, "__func__") or called, "__code__")
    return code if isinstance(code, types.CodeType) and _same_file(code.co_filename, path) else None


def attribute(owner: object, name: str) -> object:
    """``owner.name``, or None when it has none or reading it raises: a bot's object may do anything there."""
    try:
        return getattr(owner, name, None)
    except BaseException:
        return None


def _told(found: traceback.TracebackException, name: str, where: str) -> str:
    """An exception's first line (a SyntaxError's, after the indented lines that place it) and how many more
    lines its message and notes hold, cut to leave room for ``where``."""
    lines = [line for line in "".join(found.format_exception_only()).splitlines() if line.strip()]
    first = next((at for at, line in enumerate(lines) if not line[0].isspace()), len(lines))
    if first == len(lines):
        return name
    more = len(lines) - first - 1
    told = f" (and {more} more line{'s' if more > 1 else ''})" if more else ""
    return one_line(lines[first], SUMMARY_CHARS - len(one_line(where, 200)) - len(told) - 1) + told


def of_stderr(tail: bytes | None, seat: int = 0) -> Diagnosis | None:
    """The last STDERR_LINES non-empty lines a bot wrote on stderr (None: it wrote none); summary: the last."""
    lines = [line for line in (tail or b"").decode("utf-8", "replace").splitlines() if line.strip()]
    if not lines:
        return None
    kept = [one_line(line, 500) if len(line) > 500 else line for line in lines[-STDERR_LINES:]]
    return bounded(STDERR, f"last on its stderr: {lines[-1]}", "\n".join(kept), seat)


def log_path(folder: Path, bot: str, name: str, seat: int) -> Path:
    """Where --bot-logs writes a seat's stderr: a folder per bot, then the game's key (or id) and seat:
    ``logs/mybot/t0-d0-r1-seat1.log``."""
    return folder / log_folder(bot) / f"{name}-seat{seat}.log"


def handshake_log_path(folder: Path, bot: str) -> Path:
    """Where --bot-logs writes the stderr of a bot left out at its handshake: ``logs/mybot/handshake.log``."""
    return folder / log_folder(bot) / HANDSHAKE_LOG


def log_folder(bot: str) -> str:
    """A bot's folder under --bot-logs: its name, any character but letters, digits and ``._#+-`` as ``_``."""
    named = LOG_NAME.sub("_", bot)
    return named if named.strip(".") else named.replace(".", "_") or "_"


def _same_file(filename: str, path: str) -> bool:
    if filename == path:
        return True
    try:
        return os.path.realpath(filename) == os.path.realpath(path)
    except (OSError, ValueError):
        return False
