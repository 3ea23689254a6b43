"""What `run`, `standings` and `match` print of their result, in each format, behind one interface: ``renderer``
chooses by the command's --json and --csv (a table, JSON or CSV of standings; a match's statistics as lines, as
fastchess and cutechess-cli print them, or JSON), and the renderer prints a result whole. The library
(tournaments.library) returns the results and never prints; the progress shown while games are played is
report.py's."""

from __future__ import annotations

import csv
import io
import math
import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING

import orjson
import typer
from rich.table import Table
from rich.text import Text

import tournaments.cli.tables as tables
import tournaments.cli.terminal as terminal
from tournaments.cli.options import plural

if TYPE_CHECKING:
    from tournaments.play import candidate_match, standings

TABLE, JSON, CSV = "table", "json", "csv"


@dataclass(frozen=True, slots=True)
class Renderer:
    """One output format (TABLE, JSON or CSV): ``standings`` and ``match`` print a result whole in it."""

    form: str

    def standings(self, result: standings.Standings, los: bool = False, head_to_head: bool = False,
                  legend: bool = False, game_id: str | None = None, db: str | None = None) -> None:
        """A tournament's standings; a table with ``los``, ``head_to_head`` matrices and the ``legend`` (and how
        to look at ``game_id``) as asked; CSV: ``head_to_head`` or ``los`` gives the pairs instead, with those."""
        if self.form == JSON:
            typer.echo(orjson.dumps(result.to_json(), option=orjson.OPT_INDENT_2).decode())
        elif self.form == CSV:
            typer.echo(to_csv(result, head_to_head, los), nl=False)
        else:
            _table(result, los, head_to_head, legend, game_id, db)

    def match(self, stats: candidate_match.Statistics, plan: candidate_match.MatchPlan) -> None:
        """A match's statistics, and (lines) why it stopped."""
        if self.form == JSON:
            typer.echo(orjson.dumps(stats.to_json(), option=orjson.OPT_INDENT_2).decode())
            return
        for line in [*lines(stats), stopped(stats, plan)]:
            typer.echo(line)


def renderer(as_json: bool = False, as_csv: bool = False) -> Renderer:
    """The renderer a command's --json and --csv choose (given both: BadParameter)."""
    if as_json and as_csv:
        raise typer.BadParameter("give --json or --csv, not both")
    return Renderer(JSON if as_json else CSV if as_csv else TABLE)


CSV_COLUMNS = ("rank", "bot", "games", "first", "mean_place", "score", "elo", "ci_low", "ci_high", "forfeits")


def to_csv(result: standings.Standings, head_to_head: bool = False, los: bool = False) -> str:
    """The standings as CSV with a header row; with ``head_to_head`` or ``los``, the ordered pairs that met instead,
    with their wins, draws and losses, their likelihood of superiority, or both."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    if head_to_head or los:
        writer.writerow(["bot", "opponent", *(["wins", "draws", "losses"] if head_to_head else []),
                         *(["los"] if los else [])])
        for bot, row in result.head_to_head.items():
            for opponent, counts in row.items():
                cells = [bot, opponent, *(counts if head_to_head else [])]
                if los:  # rounded as --json rounds it
                    likely = result.los[bot].get(opponent)
                    cells.append("" if likely is None else f"{likely:.4f}")
                writer.writerow(cells)
        return buffer.getvalue()
    writer.writerow(CSV_COLUMNS)
    for row in result.rows:
        writer.writerow((row.rank, row.bot, row.games, row.first, f"{row.mean_place:.3f}", f"{row.score:.2f}",
                         f"{row.elo:.1f}", f"{row.ci_low:.1f}", f"{row.ci_high:.1f}", row.forfeits))
    return buffer.getvalue()


LEGEND = (
    "Ranked by Elo, not by score: Elo weighs each result by whom it was against.",
    "Elo: fitted to every result, mean 1500; 200 points apart: a 76% expected score.",
    "95% CI: from the fit's curvature (or --interval bootstrap); overlaps may swap.",
    "score: results against each other seat, ties half; first: wins; place: its mean.",
)
"""What orders the standings and what their columns mean, under the table of `tourney run` (docs/tournaments.md,
"Standings"): a bot with the higher score can rank lower, when its points came from weaker opponents."""


def show(result: standings.Standings, as_json: bool, los: bool, head_to_head: bool = False,
         legend: bool = False, game_id: str | None = None, db: str | None = None) -> None:
    """The standings (or their JSON); with ``legend``, what the columns mean and how to look at ``game_id``."""
    renderer(as_json).standings(result, los, head_to_head, legend, game_id, db)


def _table(result: standings.Standings, los: bool, head_to_head: bool, legend: bool, game_id: str | None,
           db: str | None) -> None:
    """The standings as a table, the trust and seed lines under it, and what was asked for besides."""
    console = terminal.console()
    console.print(standings_table(result, console))
    for line in [*result.trust.lines(), seed_line_of(result.seed)]:
        console.print(Text(line))
    if los:
        console.print(_matrix(console, "likelihood of superiority (row better than column)", result, lambda a, b: (
            "n/a" if result.los[a].get(b) is None else f"{result.los[a][b]:.2f}")))
    if head_to_head:
        console.print(_matrix(console, "head to head: wins-draws-losses of the row against the column", result,
                              lambda a, b: ("-".join(str(n) for n in result.head_to_head[a][b])
                                            if b in result.head_to_head[a] else "n/a")))
    if legend:
        for line in LEGEND:
            console.print(Text(line), soft_wrap=True)
        where = "" if db is None else f" --db {shlex.quote(db)}"
        if game_id is not None:
            console.print(Text(f"Look at a game: tourney replay html {game_id[:12]}{where} -o game.html"),
                          soft_wrap=True)
        if any(row.forfeits for row in result.rows):
            named = shlex.quote(result.tournament)
            console.print(Text(f"Why a bot forfeited: tourney games {named} --forfeits{where}"), soft_wrap=True)


STANDINGS = (tables.Column("#"), tables.Column("id"), tables.Column("bot", tables.NAME), tables.Column("games"),
             tables.Column("first"), tables.Column("place"), tables.Column("score"), tables.Column("Elo"),
             tables.Column("95% CI"), tables.Column("forfeits"))


def standings_table(result: standings.Standings, console) -> Table:
    """Rank, short id, bot, games, first places, mean place, score %, Elo, its 95% interval, forfeits."""
    # From the values --json gives (rounded the same), so that a cell never differs from the JSON by a rounding.
    rows = [(str(row.rank), _id(row.bot_id), Text(row.bot), str(row.games), str(row.first),
             f"{round(row.mean_place, 3):.2f}", f"{round(row.score, 2):.1f}%", f"{round(row.elo, 1):.0f}",
             f"{round(row.ci_low, 1):.0f}-{round(row.ci_high, 1):.0f}", str(row.forfeits))
            for row in result.rows]
    return tables.fitted(console, STANDINGS, rows, Text(
        f"{result.tournament} ({result.game}, {plural(result.games, 'game')}, "
        f"{'sandboxed' if result.sandboxed else 'not sandboxed'})"))


def _id(bot_id: int | None) -> str:
    return "" if bot_id is None else str(bot_id)


def _matrix(console, title: str, result: standings.Standings, cell) -> Table:
    """A square of every pair of bots: rows by short id and name, columns by short id (so that it fits)."""
    heads = [_id(row.bot_id) or str(row.rank) for row in result.rows]
    columns = [tables.Column("id"), tables.Column("bot", tables.NAME), *(tables.Column(head) for head in heads)]
    bots = [row.bot for row in result.rows]
    rows = [(head, Text(a), *["-" if a == b else cell(a, b) for b in bots]) for head, a in zip(heads, bots,
                                                                                              strict=True)]
    return tables.fitted(console, columns, rows, title)


def seed_line_of(seed: dict) -> str:
    if seed.get("origin") is None:
        return "no seed (imported games)"
    if seed["seed"] is None:
        return f"seed drawn and secret until the end, commitment {seed['commitment']}"
    return f"seed {seed['seed']} ({'chosen by the organiser' if seed['origin'] == 'organiser' else 'drawn, revealed'})"


def samples(count: int | float, players: int) -> str:
    """Pairs or blocks, in words: "1 pair", "230 blocks of 4"."""
    count = round(count)
    if players == 2:
        return plural(count, "pair")
    return f"{count:,} {'block' if count == 1 else 'blocks'} of {players}"


def lines(stats: candidate_match.Statistics) -> list[str]:
    """The statistics as fastchess and cutechess-cli print them (docs/match.md, "The statistics")."""
    from tournaments.play import candidate_match

    results = stats.wins + stats.draws + stats.losses
    points = stats.wins + stats.draws / 2
    out = [f"Score of {stats.candidate} vs {stats.baseline}: {stats.wins} - {stats.losses} - {stats.draws} "
           f"[{points / results if results else 0.5:.3f}] {results}"]
    sample = stats.sample
    unit = "pair" if stats.players == 2 else f"block of {stats.players}"
    if not stats.deals:
        out.append(f"Elo: n/a, nElo: n/a (no {unit} complete yet)")
    elif sample.bound is not None:
        won = sample.bound_side == "lower"  # from the tally's extreme: a lower bound may be negative
        side, verdict = (">=", "won") if won else ("<=", "lost")
        out.append(f"Elo: {side} {sample.bound[0]:+.2f}, nElo: {side} {sample.bound[1]:+.2f} (every {unit} {verdict}: "
                   "one-sided 95% bounds)")
    else:
        low, mid, high = sample.elo
        nlow, nmid, nhigh = sample.nelo
        if high > low and math.isfinite(nmid):
            out.append(f"Elo: {_signed(mid)} +/- {(high - low) / 2:.2f}, nElo: {_signed(nmid)} +/- "
                       f"{(nhigh - nlow) / 2:.2f}")
        else:  # every sample scored the same: no spread, so no interval (not a "+/- 0.00")
            out.append(f"Elo: {_signed(mid)}, nElo: n/a (every {unit} scored {sample.score:g}: no spread yet, so no "
                       "interval)")
    draws = 100 * stats.draws / results if results else 0.0
    out.append(f"LOS: {100 * sample.los:.2f} %, DrawRatio: {draws:.2f} %, "
               f"{samples(stats.deals, stats.players)}" + ("" if stats.players == 2 else
                                                           f" ({plural(stats.games, 'game')})"))
    if stats.players == 2:
        counts = [stats.blocks.get(p, 0) for p in candidate_match.pair_points()]
        out.append(f"Ptnml(0-2): [{', '.join(map(str, counts))}]")
    else:
        shown = ", ".join(f"{points}: {count}" for points, count in sorted(stats.blocks.items()))
        out.append(f"Blocks(0-{stats.players}): [{shown}]")
    if stats.sprt is not None:
        lower, upper = stats.sprt.bounds
        out.append(f"LLR: {stats.status.llr or 0.0:.2f} ({lower:.2f}, {upper:.2f}) "
                   f"[{stats.sprt.elo0:.2f}, {stats.sprt.elo1:.2f}]")
    return out


def _signed(value: float) -> str:
    """``+1.25``; zero as ``+0.00``, never ``-0.00``."""
    return f"{value + 0.0:+.2f}" if round(value, 2) != 0 else "+0.00"


def stopped(stats: candidate_match.Statistics, plan: candidate_match.MatchPlan) -> str:
    """Why the match stopped, in one line."""
    after = f"after {samples(stats.deals, stats.players)} ({plural(stats.games, 'game')})"
    status, test = stats.status, stats.sprt
    if test is None:
        return (f"Stopped: all {plural(plan.games, 'deal')} played ({plural(stats.games, 'game')}): a fixed match "
                "(--games, no --sprt)")
    lower, upper = test.bounds
    llr = status.llr or 0.0
    if status.decision == "H1":
        return (f"Stopped: H1 accepted {after}: the LLR {llr:.2f} reached the upper bound {upper:.2f}, so "
                f"{stats.candidate} is better by {test.elo1:g} Elo rather than {test.elo0:g} ({test.model})")
    if status.decision == "H0":
        return (f"Stopped: H0 accepted {after}: the LLR {llr:.2f} reached the lower bound {lower:.2f}, so "
                f"{stats.candidate} is better by {test.elo0:g} Elo rather than {test.elo1:g} ({test.model})")
    return (f"Stopped: no decision {after}: --games {plan.games} deals were played and the LLR {llr:.2f} is still "
            f"between {lower:.2f} and {upper:.2f}")
