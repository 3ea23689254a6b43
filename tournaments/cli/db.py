"""`tourney db`: the ledger's schema, and signing what was written before ledger keys."""

from __future__ import annotations

import typer

from tournaments.cli.options import Db, LedgerKey, plural

app = typer.Typer(help="The ledger database: upgrade its schema, show its revision, sign old games.",
                  no_args_is_help=True)


@app.command()
def upgrade(db: Db = None, ledger_key: LedgerKey = None) -> None:
    """Upgrade the database schema to the newest revision (creating it if new), and make its ledger key.

    The ledger key (Ed25519, mode 0600) signs every game stored from now on; it is made beside
    the database (league.db.key, with league.db.pub) unless --ledger-key says where it is.

    Example: tourney db upgrade --db league.db
    """
    from ledger.store import Ledger

    ledger = Ledger(db, upgrade=False, ledger_key=ledger_key)
    ledger.upgrade()
    key = ledger.signing_key()
    typer.echo(f"{ledger.url}: at revision {ledger.current()} (head); ledger key {key.fingerprint} at {key.path}")


@app.command()
def current(db: Db = None) -> None:
    """Show the schema revision of the database and the newest one this tourney knows (read-only).

    Example: tourney db current --db league.db
    """
    from ledger.store import Ledger

    ledger = Ledger(db, read_only=True)
    revision = ledger.current()
    head = ledger.head()
    state = "up to date" if revision == head else "needs `tourney db upgrade`"
    typer.echo(f"{ledger.url}: revision {revision or 'none (empty)'}, head {head} ({state})")


@app.command()
def sign(db: Db = None, ledger_key: LedgerKey = None) -> None:
    """Sign the games written before ledger keys, after verifying the whole database.

    Every game is refolded and every derived row checked first (as `tourney replay verify --db`
    does); if anything fails, nothing is signed. Then each finished game without a signature
    gets the ledger key's, and every tournament and ladder a checkpoint over its games. The
    signatures vouch for the games as they are now: they cannot prove what happened to them
    before (docs/security.md).

    Example: tourney db sign --db league.db
    """
    from ledger import keys
    from ledger.store import Ledger, LedgerError
    from tournaments.cli.replay import verify_ledger  # one audit, the one `replay verify --db` runs
    from tournaments.play import audit as tournament_audit

    ledger = Ledger(db, ledger_key=ledger_key)
    key = ledger.signing_key()
    failures = verify_ledger(ledger, None, None, None, quiet=True)
    if failures:
        raise LedgerError(f"{plural(failures, 'problem')} found (each named above): nothing was signed; "
                          "fix the database or restore it from a backup first")
    signed = ledger.sign_stored_heads()
    scopes = tournament_audit.checkpoint_all(ledger)
    typer.echo(f"signed {plural(signed, 'game')} written before ledger keys and checkpointed "
               f"{plural(scopes, 'tournament or ladder', )} with ledger key {key.fingerprint} "
               f"({keys.public_path(key.path)} holds its public half)")
