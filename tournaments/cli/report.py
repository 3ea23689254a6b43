"""How `tourney run` and `tourney match` show a tournament while it plays, as fastchess and cutechess-cli do.

``--progress`` chooses (docs/tournaments.md, "Output"):

* ``bar``: a progress bar, and above it a report (the standings; for a match its statistics)
  refreshed every ``--report-every`` games; the default on a terminal;
* ``lines``: a line per finished game, ``Finished game 12 (A vs B): 1-0 {finished}``, and the
  report every ``--report-every`` games; the default off a terminal (a pipe, a CI log);

and a report due waits until ``--report-seconds`` (and ten times the CPU time the last report
took) have passed since the last one (`tourney run`: its standings are refitted from the read
models, never bootstrapped), so reports cost the organiser the same whether games come in fast
or slow;
* ``none``: nothing until the final table (the default with ``--json``);
* ``auto``: bar on a terminal, lines otherwise, none with ``--json``.

Games are numbered in the order they were stored, from 1, a resumed run going on from the
games stored before it. Everything printed that a bot or a user chose (names, reasons) is
printed through the command's console (tournaments.cli.terminal), its control characters escaped; a game's
line keeps to one line, a line feed in a bot's reason escaped as ``\\u000a``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.console import Console, RenderableType
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.text import Text

from tournaments.cli.escapes import printable

if TYPE_CHECKING:
    from tournaments.play.runner import Result

AUTO, BAR, LINES, NONE = "auto", "bar", "lines", "none"
PROGRESS_MODES = (AUTO, BAR, LINES, NONE)
REPORT_EVERY = 10
"""Games between two reports (fastchess's rating interval, whose default this is too)."""
COST_SHARE = 10
"""A report waits at least this many times the CPU time the last one took, so that reports never cost the
organiser more than about a tenth of its time, however many bots are fitted (docs/tournaments.md, "Output")."""


def mode_for(asked: str, console: Console, as_json: bool) -> str:
    """The mode ``--progress`` comes to here: ``auto`` by the terminal (and ``--json``, which wants a clean stdout)."""
    if asked != AUTO:
        return asked
    if as_json:
        return NONE
    return BAR if console.is_terminal else LINES


def outcome(ranking: tuple[int, ...] | list[int]) -> str:
    """A game's result as chess testers write it: ``1-0``, ``0-1``, ``1/2-1/2``; more seats: ``places 2-1-4-3``."""
    if len(ranking) == 2:
        first, second = ranking
        return "1/2-1/2" if first == second else "1-0" if first < second else "0-1"
    return "places " + "-".join(str(rank) for rank in ranking)


def reason_of(result: Result) -> str:
    """Why the game ended: ``finished``, or which bot forfeited and why (ALL-5)."""
    from ledger.canonical import loads
    from replays.record import SEAT_FORFEITED

    recorded = result.recorded
    for record in reversed(recorded.records):
        if record.type == SEAT_FORFEITED:
            data = loads(record.body)["data"]
            return f"{recorded.seats[data['seat']].name} forfeited: {data['reason']}"
    return recorded.reason


def game_line(number: int, result: Result) -> str:
    """``Finished game 12 (A vs B): 1-0 {finished}`` (cutechess-cli's and fastchess's line)."""
    recorded = result.recorded
    names = " vs ".join(seat.name for seat in recorded.seats)
    return f"Finished game {number} ({names}): {outcome(recorded.ranking)} {{{one_line(reason_of(result))}}}"


def one_line(text: str) -> str:
    """``text`` as ``printable`` shows it, its line breaks escaped too: a bot's reason keeps its game's line whole."""
    return printable(text).replace("\n", "\\u000a")


class _Bar(Progress):
    """A progress bar with the latest report above it."""

    above: RenderableType | None = None

    def get_renderables(self):
        if self.above is not None:
            yield self.above
        yield from super().get_renderables()


class Display:
    """What a run shows as its games are stored: the bar or the lines, and a report every ``every`` games.

    ``report`` makes the report of the moment (a renderable); ``total`` is None while unknown (a
    match's end moves with its SPRT: ``set_total``). Use it as a context manager around play.
    """

    def __init__(self, console: Console, mode: str, every: int, total: int | None, done: int,
                 report: Callable[[], RenderableType], rate: bool = True, seconds: float = 0.0) -> None:
        self.console = console
        self.mode = mode
        self.every = every
        self.seconds = seconds
        self.number = done
        self.total = total
        self.report = report
        self._due = False
        self._last = -math.inf
        self._cost = 0.0
        self._bar: _Bar | None = None
        if mode == BAR:
            columns: list[Any] = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn()]
            if rate:
                columns.append(TextColumn("{task.fields[rate]}"))
            columns.append(TimeRemainingColumn() if total is not None else TimeElapsedColumn())
            self._bar = _Bar(*columns, console=console, transient=True)
            self._task = self._bar.add_task("games", total=total, completed=done, rate="")
            self._began = done

    def __enter__(self) -> Display:
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()

    def set_total(self, total: int | None) -> None:
        self.total = total
        if self._bar is not None:
            self._bar.update(self._task, total=total)

    def game(self, result: Result) -> None:
        """One game stored: its line, or the bar moved; and the report when its turn has come."""
        self.number += 1
        if self.mode == LINES:
            self.console.print(Text(game_line(self.number, result)), soft_wrap=True)
        elif self._bar is not None:
            elapsed = self._bar.tasks[0].elapsed or 0.0
            played = self.number - self._began
            self._bar.update(self._task, completed=self.number,
                             rate=f"{played / elapsed:.1f} games/s" if elapsed > 0 else "")
        # A report falls due every ``every`` games and is made once ``seconds`` (and ten times the last one's
        # cost) have passed since the last: by time, so that reports cost the same however fast games come.
        # ``seconds`` 0 asks for every report, whatever it costs (docs/tournaments.md: exactly every ``every``
        # games, on a fast machine as on a slow one). The last game's report would be the final one, printed next.
        if self.every > 0 and self.number % self.every == 0:
            self._due = True
        wait = max(self.seconds, COST_SHARE * self._cost) if self.seconds > 0 else 0.0
        if self._due and self.number != self.total and self.mode in (LINES, BAR) \
                and time.monotonic() - self._last >= wait:
            self.show_report()

    def show_report(self) -> None:
        began, cpu = time.monotonic(), time.process_time()
        made = self.report()
        self._cost = time.process_time() - cpu
        if self.mode == LINES:
            self.console.print(made)
        elif self._bar is not None:
            self._bar.above = made
            self._bar.refresh()
        self._due = False
        self._last = began
