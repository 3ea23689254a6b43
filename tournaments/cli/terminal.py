"""The consoles commands print through.

User text (bot names, file names, notices, reasons) is printed as written: never read as
Rich markup (``[bold]``) or emoji codes (``:-1:``), so styling is given with ``style=``.
Off a terminal (pipes, CI logs) Rich would wrap at 80 columns; there tables get 160, or $COLUMNS.
"""

from __future__ import annotations

import os
import sys

from rich.console import Console


def console(stderr: bool = False) -> Console:
    terminal = (sys.stderr if stderr else sys.stdout).isatty()
    columns = os.environ.get("COLUMNS", "")
    width = int(columns) if columns.isdigit() else None if terminal else 160
    return Console(stderr=stderr, markup=False, emoji=False, highlight=False, width=width)
