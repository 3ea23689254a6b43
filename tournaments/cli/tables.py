"""Tables that fit the terminal: numbers and headers whole, names cut with an ellipsis (issue 31).

Every table the commands print is built here. A column is one of four kinds:

* ``NUMBER``: right-aligned, never cut or broken (a rating, a count, an interval);
* ``WORD``: left-aligned, never cut (a key, a game's name, a status, a date);
* ``NAME``: a bot's, tournament's or ladder's name: cut with an ellipsis when the table would not
  fit, never below ``NAME_MIN`` characters; the commands that take a name also take the short id
  the table shows beside it (docs/cli.md, "Names and short ids");
* ``PROSE``: a sentence (a forfeit's reason): wrapped onto more lines, never below ``PROSE_MIN``.

Prose is narrowed first, then names, each first to ``READABLE`` characters and only then further.

Headers are single words or short phrases that fit their column as they are. On a console
narrower than the table's numbers and words the terminal wraps the lines: nothing is dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

NUMBER, WORD, NAME, PROSE = "number", "word", "name", "prose"
NAME_MIN = 8
PROSE_MIN = 8
READABLE = 16
"""Names and prose are first narrowed to this, in turn, before either goes below it."""


@dataclass(frozen=True, slots=True)
class Column:
    header: str
    kind: str = NUMBER


Cell = str | Text


def fitted(console: Console, columns: Sequence[Column], rows: Sequence[Sequence[Cell]], title: str | Text | None = None
           ) -> Table:
    """A table of ``rows`` under ``columns`` that fits ``console``'s width by cutting names and wrapping prose."""
    table = Table(title=title, box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False, collapse_padding=True,
                  show_edge=False)
    natural = [max([len(column.header), *(_width(row[i]) for row in rows)]) for i, column in enumerate(columns)]
    for column, width in zip(columns, natural, strict=True):
        if column.kind == NUMBER:
            table.add_column(column.header, justify="right", no_wrap=True, min_width=width)
        elif column.kind == WORD:
            table.add_column(column.header, no_wrap=True, min_width=width)
        elif column.kind == NAME:
            table.add_column(column.header, no_wrap=True, overflow="ellipsis", min_width=min(width, NAME_MIN))
        else:
            table.add_column(column.header, overflow="fold", min_width=min(width, PROSE_MIN))
    for row in rows:
        table.add_row(*row)
    excess = Measurement.get(console, console.options.update(max_width=100_000), table).maximum - console.width
    widths = list(natural)
    for kind, floor in ((PROSE, READABLE), (NAME, READABLE), (PROSE, PROSE_MIN), (NAME, NAME_MIN)):
        if excess <= 0:
            break
        excess = _shrink(widths, [i for i, c in enumerate(columns) if c.kind == kind], floor, excess)
    for i, width in enumerate(widths):
        if width < natural[i]:
            table.columns[i].max_width = width
    return table


def _shrink(widths: list[int], indices: list[int], floor: int, excess: int) -> int:
    """Narrow the columns ``indices`` of ``widths`` (the widest first, one character at a time, none below
    ``floor``) by up to ``excess`` characters in all; the excess left."""
    while excess > 0:
        widest = max((i for i in indices if widths[i] > floor), key=lambda i: widths[i], default=None)
        if widest is None:
            break
        widths[widest] -= 1
        excess -= 1
    return excess


def minute(stamp: str) -> str:
    """A stored time to the minute: ``2026-12-01T10:28:38.123+00:00`` to ``2026-12-01 10:28`` (UTC)."""
    return stamp[:16].replace("T", " ")


def _width(cell: Cell) -> int:
    text = cell.plain if isinstance(cell, Text) else cell
    return max((len(line) for line in text.splitlines()), default=0)
