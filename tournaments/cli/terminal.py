"""The consoles commands print through.

User text (bot names, file names, notices, reasons) is printed as written: never read as
Rich markup (``[bold]``) or emoji codes (``:-1:``), so styling is given with ``style=``; and
with every control character escaped (tournaments.cli.escapes), so that nothing a bot wrote
drives the terminal. Off a terminal (pipes, CI logs) Rich would wrap at 80 columns; there
tables get 160, or $COLUMNS.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from contextlib import suppress
from typing import Any

from rich.console import Console
from rich.segment import Segment

from tournaments.cli.escapes import PrintableStream, printable


class OutputClosed(KeyboardInterrupt):
    """The reader of a console's stream went away (``tourney run ... | head``): the command stops as Ctrl-C stops it
    (what is stored is kept) and says so on stderr, instead of Rich's silent exit 1."""


class SafeConsole(Console):
    """A Rich console that shows control characters escaped wherever its text came from."""

    def on_broken_pipe(self) -> None:
        # Rich's own exits (SystemExit 1) with nothing said. As Rich does, the stream is pointed at /dev/null so that
        # nothing written later (Python's flush at exit) fails again.
        self.quiet = True
        to_devnull(self.file)
        raise OutputClosed

    def render_str(self, text: str, **options: Any):  # before layout: the escapes are measured
        return super().render_str(printable(text), **options)

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        # The last step before the terminal (Rich's own styles and controls are added here, after
        # this); a Text built by a command reaches it unescaped.
        return super()._render_buffer(
            segment if segment.control else Segment(printable(segment.text), segment.style) for segment in buffer
        )


def to_devnull(stream: Any) -> None:
    """Point a closed stream's file descriptor at /dev/null: what is written to it later (Python's flush at exit
    included) is dropped, not a second BrokenPipeError."""
    with suppress(OSError, ValueError, AttributeError):  # not a real file (a test's buffer): nothing to point at
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())


def console(stderr: bool = False) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    terminal = stream.isatty()
    columns = os.environ.get("COLUMNS", "")
    width = int(columns) if columns.isdigit() else None if terminal else 160
    # Past the stream filter: Rich's own escape sequences (colours, the progress bar) must reach the terminal.
    file = stream.unfiltered if isinstance(stream, PrintableStream) else None
    return SafeConsole(stderr=stderr, markup=False, emoji=False, highlight=False, width=width, file=file)
