"""`tourney list` and `tourney games`: what the database holds (both read-only)."""

from __future__ import annotations

from typing import Annotated

import orjson
import typer
from rich.table import Table
from rich.text import Text

from tournaments.cli import terminal
from tournaments.cli.options import Db, plural, reading, tournament_or_newest

Json = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def list_(as_json: Json = False, db: Db = None) -> None:
    """List the tournaments and ladders: id, name, game, bots, games stored, created (read-only).

    Every command that takes a tournament accepts the id or the name printed here.

    Example: tourney list --db league.db
    """
    from ledger import ladders as ladder_rows
    from ledger import tournaments as tournament_rows

    ledger = reading(db)
    tournaments = [{"kind": tournament_rows.kind(row), **{k: v for k, v in row.items() if k != "spec"}}
                   for row in tournament_rows.all_tournaments(ledger)]
    ladders = [{"kind": "ladder", "id": row["id"], "name": row["name"], "game": row["game"], "bots": row["active"],
                "games": row["games"], "created_at": row["created_at"]} for row in ladder_rows.all_ladders(ledger)]
    if as_json:
        typer.echo(orjson.dumps({"tournaments": tournaments, "ladders": ladders}, option=orjson.OPT_INDENT_2).decode())
        return
    if not tournaments and not ladders:
        typer.echo(f"{ledger.where}: no tournaments or ladders yet")
        return
    table = Table("id", "name", "kind", "game", "bots", "games", "created", title=f"{ledger.where}")
    for row in [*tournaments, *ladders]:
        table.add_row(str(row["id"]), Text(row["name"]), row["kind"], row["game"], str(row["bots"]),
                      str(row["games"]), row["created_at"])
    terminal.console().print(table)


def games(
    tournament: Annotated[str | None, typer.Argument(help="Tournament id or name (default: the newest).")] = None,
    bot: Annotated[str | None, typer.Option("--bot", help="Only the games this bot played.")] = None,
    forfeits: Annotated[bool, typer.Option("--forfeits", help="Only the games that ended in a forfeit.")] = False,
    as_json: Json = False,
    db: Db = None,
) -> None:
    """List a tournament's games: key, id, the bot in each seat with its rank and score, and any forfeit
    with its seat and reason (read-only).

    Example: tourney games cup-7 --bot heuristic_lemur_tails --forfeits
    """
    from ledger import tournaments as tournament_rows
    from tournaments.play import results

    ledger = reading(db)
    row = tournament_rows.get(ledger, tournament_or_newest(ledger, tournament))
    found = results.of_tournament(ledger, row["id"])
    if bot is not None:
        if all(bot not in {seat.bot for seat in game.seats} for game in found):
            raise tournament_rows.UnknownTournament(f"no bot {bot!r} played in tournament {row['name']!r}")
        found = [game for game in found if bot in {seat.bot for seat in game.seats}]
    if forfeits:
        found = [game for game in found if game.forfeit is not None]
    if as_json:
        typer.echo(orjson.dumps([game.to_json() for game in found], option=orjson.OPT_INDENT_2).decode())
        return
    table = Table("key", "game id", "seats: bot (rank, score)", "forfeit",
                  title=f"{row['name']} ({row['game']}): {plural(len(found), 'game')}")
    for game in found:
        seats = "\n".join(f"{seat.seat}: {seat.bot} ({seat.rank}" + ("" if seat.score is None else f", {seat.score}")
                          + ")" for seat in game.seats)
        forfeit = "" if game.forfeit is None else f"seat {game.forfeit.seat}: {game.forfeit.reason}"
        table.add_row(game.key or "", game.game_id, Text(seats), Text(forfeit))
    terminal.console().print(table)
