"""What `tourney ladder history` prints: a bot's rating after each of its ladder games, and why it forfeited any.

A forfeit is read from each game's hashed ``seat_forfeited`` event (tournaments.play.results), as the standings'
forfeits column counts it; the bot's own account of it as `tourney games --forfeits` shows a tournament's
(tournaments.cli.own_words).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson
import typer
from rich.text import Text

import tournaments.cli.tables as tables
import tournaments.cli.terminal as terminal
from tournaments.cli.own_words import SHORT_GAME_ID, forfeit_json, own_words

if TYPE_CHECKING:
    from ledger.store import Ledger
    from tournaments.play.results import GameResult

IDS_AT_ONCE = 500
"""Game ids one statement reads: a ladder bot may have played thousands of games, and a statement's parameters are
bounded (SQLite's 32766)."""


def show(ledger: Ledger, ladder: str, bot: str, forfeits: bool, as_json: bool) -> None:
    """Print ``bot``'s history on ``ladder`` (both names as stored): only the games it forfeited with ``forfeits``;
    each forfeit's reason in a column shown when it forfeited any of them, and with ``forfeits`` the bot's account
    of each under the table."""
    from tournaments.ladder import league

    # "rating" as the leaderboard's (Elo, or OpenSkill's mu - 3 sigma); OpenSkill's mean as "mu" (issue 41).
    rows = [{**row, "rating": league.leaderboard_rating(row), "mu": None if row.get("sigma") is None else row["rating"]}
            for row in league.history(ledger, ladder, bot)]
    forfeited, told = forfeits_of(ledger, bot, [row["game"] for row in rows], stderr=as_json)
    if forfeits:
        rows = [row for row in rows if row["game"] in forfeited]
    if as_json:
        typer.echo(orjson.dumps([{**row, "forfeit": forfeit_json(forfeited[row["game"]], told)
                                  if row["game"] in forfeited else None} for row in rows],
                                option=orjson.OPT_INDENT_2).decode())
        return
    skill = any(row["mu"] is not None for row in rows)
    columns = [tables.Column("ladder game"), tables.Column("version", tables.WORD), tables.Column("rank"),
               tables.Column("mu - 3σ" if skill else "rating"), *([tables.Column("mu")] if skill else []),
               tables.Column("game id", tables.WORD), tables.Column("forfeit", tables.PROSE)]
    shown = [(str(row["seq"]), f"v{row['version']}", str(row["rank"]), f"{row['rating']:.1f}",
              *([f"{row['mu']:.1f}"] if skill else []), row["game"][:SHORT_GAME_ID],
              Text(forfeited[row["game"]].forfeit.reason) if row["game"] in forfeited else "") for row in rows]
    if not any(row["game"] in forfeited for row in rows):  # shown when of use, as `tourney games` its score column
        columns, shown = columns[:-1], [row[:-1] for row in shown]
    console = terminal.console()
    console.print(tables.fitted(console, columns, shown, Text(f"{bot} on {ladder}")))
    if forfeits:
        own_words(console, [(row["game"][:SHORT_GAME_ID], forfeited[row["game"]]) for row in rows], told)


def forfeits_of(ledger: Ledger, bot: str, game_ids: list[str], stderr: bool = False
                ) -> tuple[dict[str, GameResult], dict]:
    """The games of ``game_ids`` that ``bot`` forfeited, by id, and what it left to say of each (its diagnoses: by
    game id and seat, as ledger.rows.game_rows.diagnoses gives them). Which games it forfeited is read from the
    read models (ledger.read_pages.forfeited_by), so only those games' events are read (and their sealed blocks
    opened): the few a bot forfeited, not the thousands it played."""
    from ledger import read_pages
    from ledger.rows import game_rows
    from tournaments.play import results

    with ledger.read() as connection:
        ids = [game_id for part in batches(game_ids) for game_id in read_pages.forfeited_by(connection, bot, part)]
    forfeited = {game.game_id: game for part in batches(ids) for game in results.of_games(ledger, part)
                 if game.forfeited_by == bot}
    told: dict = {}
    for part in batches(list(forfeited)):
        told |= game_rows.diagnoses(ledger, part, stderr)
    return forfeited, told


def batches(game_ids: list[str]) -> list[list[str]]:
    return [game_ids[start:start + IDS_AT_ONCE] for start in range(0, len(game_ids), IDS_AT_ONCE)]
