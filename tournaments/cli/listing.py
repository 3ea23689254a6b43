"""`tourney list` and `tourney games`: what the database holds (both read-only)."""

from __future__ import annotations

import re
from typing import Annotated

import orjson
import typer
from rich.text import Text

import tournaments.cli.tables as tables
import tournaments.cli.terminal as terminal
from tournaments.cli.options import Db, ladder_id, plural, reading, tournament_or_newest
from tournaments.cli.own_words import SHORT_GAME_ID, forfeit_json, own_words

Json = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def list_(as_json: Json = False, db: Db = None) -> None:
    """List the tournaments and ladders: id, name, game, bots, games stored, created (read-only).

    Every command that takes a tournament (or a ladder) accepts the id printed here or the name: a
    tournament's is a number (1), a ladder's an L and a number (L1), so that no two read alike.

    \b
    Example: tourney list --db league.db
    """
    from ledger.rows import ladder_rows, tournament_rows

    ledger = reading(db)
    tournaments = [{"kind": tournament_rows.kind(row), **{k: v for k, v in row.items() if k != "spec"},
                    "ref": str(row["id"])} for row in tournament_rows.all_tournaments(ledger, counted=True)]
    ladders = [{"kind": "ladder", "id": row["id"], "name": row["name"], "game": row["game"], "bots": row["active"],
                "games": row["games"], "created_at": row["created_at"], "ref": ladder_id(row["id"])}
               for row in ladder_rows.all_ladders(ledger, counted=True)]
    if as_json:
        typer.echo(orjson.dumps({"tournaments": tournaments, "ladders": ladders}, option=orjson.OPT_INDENT_2).decode())
        return
    if not tournaments and not ladders:
        typer.echo(f"{ledger.where}: no tournaments or ladders yet")
        return
    console = terminal.console()
    rows = [(row["ref"], Text(row["name"]), row["kind"], row["game"], str(row["bots"]), str(row["games"]),
             tables.minute(row["created_at"])) for row in [*tournaments, *ladders]]
    console.print(tables.fitted(console, LIST, rows, Text(ledger.where)))


LIST = (tables.Column("id"), tables.Column("name", tables.NAME), tables.Column("kind", tables.WORD),
        tables.Column("game", tables.WORD), tables.Column("bots"), tables.Column("games"),
        tables.Column("created (UTC)", tables.WORD))
GAMES = (tables.Column("key", tables.WORD), tables.Column("game id", tables.WORD), tables.Column("seat"),
         tables.Column("bot", tables.NAME), tables.Column("rank"), tables.Column("score"),
         tables.Column("forfeit", tables.PROSE))
SCORE = 5
"""The score column: shown only when a listed game keeps scores (no game of the three does yet)."""


def games(
    tournament: Annotated[str | None, typer.Argument(help="Tournament id or name (default: the newest).")] = None,
    bot: Annotated[str | None, typer.Option("--bot", help="Only the games this bot played.")] = None,
    forfeits: Annotated[bool, typer.Option("--forfeits", help="Only the games that ended in a forfeit (with --bot: "
                                                              "the bot's own forfeits).")] = False,
    as_json: Json = False,
    db: Db = None,
) -> None:
    """List a tournament's games: key, id, the bot in each seat with its rank (and score, in a game that keeps
    scores), and any forfeit with its seat and reason (read-only). A ladder's are in `tourney ladder history`.

    With --forfeits, under each forfeit the bot's own account of it: where in its file a Python bot's
    exception was raised (or a program's last line on stderr), and the path of its whole log when the
    run kept logs (--bot-logs); --json has the whole traceback. --bot takes the bot's name or the short
    id `tourney standings` shows; with --forfeits, only the games that bot forfeited.

    \b
    Example: tourney games cup-7 --bot heuristic_lemur_tails --forfeits
    """
    from ledger.rows import game_rows, tournament_rows
    from tournaments.play import results

    ledger = reading(db)
    row = tournament_rows.get(ledger, tournament_or_newest(
        ledger, tournament, "its games are in `tourney ladder history {ref} BOT` (--forfeits for why a bot forfeited)"))
    found = sorted(results.of_tournament(ledger, row["id"]), key=lambda game: play_order(game.key))
    if bot is not None:
        bot = bot_name(tournament_rows.entrants(ledger, row["id"]), bot)
        if all(bot not in {seat.bot for seat in game.seats} for game in found):
            raise tournament_rows.UnknownTournament(f"no bot {bot!r} played in tournament {row['name']!r}")
        found = [game for game in found if bot in {seat.bot for seat in game.seats}]
    if forfeits:  # with --bot, why that bot lost: its forfeits, not the games it won by an opponent's
        found = [game for game in found if game.forfeit is not None and bot in (None, game.forfeited_by)]
    told = game_rows.diagnoses(ledger, [game.game_id for game in found if game.forfeit is not None], stderr=as_json)
    if as_json:
        typer.echo(orjson.dumps([{**game.to_json(), "forfeit": forfeit_json(game, told)} for game in found],
                                option=orjson.OPT_INDENT_2).decode())
        return
    scored = any(seat.score is not None for game in found for seat in game.seats)
    rows = []
    for game in found:
        for seat in game.seats:
            first = seat is game.seats[0]
            forfeit = game.forfeit is not None and game.forfeit.seat == seat.seat
            rows.append(((game.key or "") if first else "", game.game_id[:SHORT_GAME_ID] if first else "",
                         str(seat.seat), Text(seat.bot), "" if seat.rank is None else str(seat.rank),
                         "" if seat.score is None else str(seat.score), Text(game.forfeit.reason) if forfeit else ""))
    columns = GAMES if scored else GAMES[:SCORE] + GAMES[SCORE + 1:]
    if not scored:
        rows = [row[:SCORE] + row[SCORE + 1:] for row in rows]
    console = terminal.console()
    console.print(tables.fitted(console, columns, rows, Text(f"{row['name']} ({row['game']}): "
                                                             f"{plural(len(found), 'game')}")))
    if forfeits:
        own_words(console, [(game.key or game.game_id[:SHORT_GAME_ID], game) for game in found], told)


def play_order(key: str | None) -> tuple:
    """A game's key as `tourney games` orders them: its numbers compared as numbers (t2-d9-r0, t2-d10-r0,
    t10-d0-r0; a Swiss round s2 before s10), where the ledger keeps the text's order (t10 before t2), which its
    other readers keep (the standings' bootstrap draws games in it, the same whatever tourney's version)."""
    parts = re.split(r"(\d+)", key or "")  # text, digits, text, ...: the digits' runs at the odd places
    # A run compared by its length without leading zeros, then its digits: a number's order, for a run of any
    # length (an imported game's key is anyone's: int() refuses over 4300 digits) and any script's digits.
    return tuple((len(part.lstrip("0")), part.lstrip("0")) if at % 2 else part for at, part in enumerate(parts))


def bot_name(entrants: dict[str, int], ref: str) -> str:
    """A bot named by its name or by the short id (its ledger id) the standings show."""
    if ref in entrants or not ref.isdigit():
        return ref
    by_id = {bot_id: name for name, bot_id in entrants.items()}
    return by_id.get(int(ref), ref)
