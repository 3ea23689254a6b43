"""`tourney users`: the owners who submit bots through the HTTP API of `tourney serve`."""

from __future__ import annotations

from typing import Annotated

import orjson
import typer
from rich.text import Text

import tournaments.cli.tables as tables
import tournaments.cli.terminal as terminal
from tournaments.cli.options import Db, reading, require_database, writing

app = typer.Typer(help="Owners of bots on a served league, and their API tokens.", no_args_is_help=True)

Name = Annotated[str, typer.Argument(help="The owner's name (letters, digits, '.', '_', '-').")]


def _shown(name: str, token: str) -> None:
    typer.echo(f"API token of {name} (shown this once; only its hash is kept):")
    typer.echo(token)


@app.command("add")
def add(name: Name, db: Db = None) -> None:
    """Add an owner and print their API token, once (they send it as `Authorization: Bearer TOKEN`).

    \b
    Example: tourney users add alice --db league.db
    """
    from tournaments.ladder import owner_tokens

    try:
        token = owner_tokens.add(writing(db), name)
    except owner_tokens.BadName as error:
        raise typer.BadParameter(str(error)) from None
    _shown(name, token)


@app.command("token")
def token(name: Name, db: Db = None) -> None:
    """Give an owner a new API token and print it once; their old token stops working at once.

    \b
    Example: tourney users token alice --db league.db
    """
    from tournaments.ladder import owner_tokens

    ledger = writing(db)
    require_database(ledger, f"give owner {name!r} a token (`tourney users add` adds one)")
    _shown(name, owner_tokens.new_token_for(ledger, name))


@app.command("list")
def list_(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False, db: Db = None) -> None:
    """List the owners and the bot names they own (read-only; tokens are never shown again).

    \b
    Example: tourney users list --db league.db
    """
    from ledger.rows import owner_rows

    found = owner_rows.all_owners(reading(db))
    if as_json:
        typer.echo(orjson.dumps([{k: row[k] for k in ("name", "created_at", "bots")} for row in found],
                                option=orjson.OPT_INDENT_2).decode())
        return
    columns = [tables.Column("owner", tables.NAME), tables.Column("bots", tables.PROSE),
               tables.Column("added (UTC)", tables.WORD)]
    console = terminal.console()
    console.print(tables.fitted(console, columns, [(Text(row["name"]), Text(", ".join(row["bots"])),
                                                    tables.minute(row["created_at"])) for row in found]))
