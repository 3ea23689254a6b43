"""`tourney db`: the ledger's schema, and signing what was written before ledger keys."""

from __future__ import annotations

from typing import Annotated

import typer

from tournaments.cli.options import Db, LedgerKey, plural, reading

app = typer.Typer(help="The ledger database: upgrade its schema, show its revision, sign old games, audit its "
                       "read models.", no_args_is_help=True)


@app.command()
def upgrade(db: Db = None, ledger_key: LedgerKey = None) -> None:
    """Upgrade the database schema to the newest revision (creating it if new), and make its ledger key.

    The ledger key (Ed25519, mode 0600) signs every game stored from now on; it is made beside
    the database (league.db.key, with league.db.pub) unless --ledger-key says where it is. Games
    stored before the read models existed (revision 0013) are counted into them, from their hashed
    events.

    \b
    Example: tourney db upgrade --db league.db
    """
    from ledger.store import Ledger
    from replays import projections

    ledger = Ledger(db, upgrade=False, ledger_key=ledger_key)
    ledger.upgrade()
    key = ledger.signing_key()
    counted = projections.catch_up(ledger)
    typer.echo(f"{ledger.url}: at revision {ledger.current()} (head); ledger key {key.fingerprint} at {key.path}")
    if counted:
        typer.echo(f"counted {plural(counted, 'stored game')} into the read models")


@app.command()
def audit(
    db: Db = None,
    rebuild: Annotated[bool, typer.Option(
        "--rebuild", help="Count every game into the read models again, from the events, in place of the stored "
        "rows (when the audit found a difference).")] = False,
) -> None:
    """Rebuild every read model from the games' hashed events and compare it, row by row, with the stored one.

    The read models are what standings, ladder standings and the web's pages and lists read
    (docs/tournaments.md, "Read models"): each game's and seat's result, a tournament's sums
    per bot and per pair, a bot's record, a ladder's records and pairs; and each ladder's
    ratings and their history. A tournament's kept Elo fit is held against a refit of its
    pairs (--rebuild forgets every fit: the next reader refits). The first rows that differ
    are named and the exit code is 1;
    nothing is written (the database is opened read-only) unless --rebuild is given, which
    counts every game again from its events and then audits the result.

    \b
    Example: tourney db audit --db league.db
    """
    from ledger.rows import ladder_rows
    from ledger.store import Ledger, LedgerError
    from replays import projections
    from tournaments.ladder import league
    from tournaments.play import standings

    if rebuild:
        ledger = Ledger(db)
        counted = projections.rebuild(ledger)
        typer.echo(f"counted {plural(counted, 'stored game')} into the read models again, from their events")
    else:
        ledger = reading(db)
    found = projections.audit(ledger)
    found.differences += standings.fit_differences(ledger, max(0, 20 - len(found.differences)))
    for line in found.differences:
        typer.echo(f"differs: {line}")
    ratings = 0
    for row in ladder_rows.all_ladders(ledger):
        league.checked_fold(ledger, row)  # a page of games at a time
        ratings += 1
    if found.differences:
        raise LedgerError(f"the read models differ from their rebuild from the events (the first "
                          f"{plural(len(found.differences), 'row')} above): `tourney db audit --rebuild` counts "
                          "every game again")
    typer.echo(f"read models: {plural(found.games, 'game')} counted, every row equal to its rebuild from the events; "
               f"the ratings of {plural(ratings, 'ladder')} equal the fold of their games")


@app.command()
def current(db: Db = None) -> None:
    """Show the schema revision of the database and the newest one this tourney knows (read-only).

    \b
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

    \b
    Example: tourney db sign --db league.db
    """
    from ledger import signing_keys
    from ledger.store import Ledger, LedgerError
    from tournaments.cli.replay import verify_ledger  # one audit, the one `replay verify --db` runs
    from tournaments.play import tournament_audit

    ledger = Ledger(db, ledger_key=ledger_key)
    key = ledger.signing_key()
    failures = verify_ledger(ledger, None, None, None, quiet=True)
    if failures:
        raise LedgerError(f"{plural(failures, 'problem')} found (each named above): nothing was signed; "
                          "fix the database or restore it from a backup first")
    signed = ledger.sign_stored_heads()
    scopes = tournament_audit.checkpoint_all(ledger)
    typer.echo(f"signed {plural(signed, 'game')} written before ledger keys and wrote {plural(scopes, 'checkpoint')} "
               f"(one for each tournament and ladder) with ledger key {key.fingerprint} "
               f"({signing_keys.public_path(key.path)} holds its public half)")
