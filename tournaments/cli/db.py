"""`tourney db`: the ledger's schema."""

from __future__ import annotations

import typer

from ledger.store import Ledger
from tournaments.cli.options import Db

app = typer.Typer(help="The ledger database: upgrade its schema, show its revision.", no_args_is_help=True)


@app.command()
def upgrade(db: Db = None) -> None:
    """Upgrade the database schema to the newest revision (creating it if new).

    Example: tourney db upgrade --db league.db
    """
    ledger = Ledger(db, upgrade=False)
    ledger.upgrade()
    typer.echo(f"{ledger.url}: at revision {ledger.current()} (head)")


@app.command()
def current(db: Db = None) -> None:
    """Show the schema revision of the database and the newest one this tourney knows (read-only).

    Example: tourney db current --db league.db
    """
    ledger = Ledger(db, read_only=True)
    revision = ledger.current()
    head = ledger.head()
    state = "up to date" if revision == head else "needs `tourney db upgrade`"
    typer.echo(f"{ledger.url}: revision {revision or 'none (empty)'}, head {head} ({state})")
