"""What keeps a bot's text from driving the organiser's terminal: control characters shown escaped.

Much of what tourney prints was written by a bot or a submitter: names, versions, decline and
forfeit reasons, exception texts, stderr excerpts, manifest fields. Stored unchanged (and
hashed), such text is shown with every control character escaped (``printable``): C0 but the
line feed and the tab, DEL, C1, the Unicode controls that reorder what a line shows, and the line
and paragraph separators (U+2028, U+2029: a line break to Python's splitlines and to a pager). So an
ESC sequence (clear the screen, set the title, write the clipboard with OSC 52) or a carriage
return that overwrites a line is printed as ``\\u001b``, never obeyed. The escape form is
JSON's, so JSON output stays valid and means the same.

Two doors lead to the terminal, and both pass through ``printable``: everything printed through
Rich (tournaments.cli.terminal's console: a string as it becomes text, and every piece of text
as it is written out, so that a ``Text`` built by a command is covered too), and everything else
a command writes to sys.stdout or sys.stderr (``filter_streams``, which ``tournaments.__main__``
installs before any command runs: typer.echo, print, error lines, a traceback). This module
imports nothing heavy: it is installed before the command line is even imported.
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterable
from typing import Any

CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
"""What ``printable`` escapes: C0 but tab and line feed, DEL, C1, the bidirectional controls and U+2028/U+2029."""


def printable(text: str) -> str:
    """``text`` with each control character shown as its JSON escape (ESC as ``\\u001b``)."""
    return CONTROL.sub(_escape, text)


def _escape(found: re.Match[str]) -> str:
    return f"\\u{ord(found.group()):04x}"


class PrintableStream(io.TextIOBase):
    """A text stream that writes ``printable`` text to the stream it wraps (everything else is the stream's)."""

    def __init__(self, stream: Any) -> None:
        self.unfiltered = stream

    def write(self, text: str) -> int:
        self.unfiltered.write(printable(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.unfiltered.flush()

    def isatty(self) -> bool:
        return self.unfiltered.isatty()

    def fileno(self) -> int:
        return self.unfiltered.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.unfiltered.encoding

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return self.unfiltered.errors

    @property
    def buffer(self) -> PrintableBytes:
        return PrintableBytes(self)

    def writable(self) -> bool:
        return True


class PrintableBytes(io.RawIOBase):
    """The bytes door of a PrintableStream (click writes bytes there): decoded, made printable, written as text."""

    def __init__(self, text: PrintableStream) -> None:
        self.text = text

    def write(self, data: Any) -> int:
        self.text.write(bytes(data).decode("utf-8", errors="replace"))
        return len(data)

    def flush(self) -> None:
        self.text.flush()

    def writable(self) -> bool:
        return True


def filter_streams() -> None:
    """Make sys.stdout and sys.stderr PrintableStreams (once; the consoles write past them)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, PrintableStream):
            setattr(sys, name, PrintableStream(stream))
