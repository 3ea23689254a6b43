"""`tourney keys`: Ed25519 key pairs for signed exports, and the ledger's own signing key."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tournaments.cli.options import Db, LedgerKey


def _key_name(name: str | None) -> str | None:
    if name is not None and (not name.strip() or name.endswith(("/", "\\")) or Path(name).name in ("", ".", "..")):
        raise typer.BadParameter(f"{name!r} is not a file name: give a path prefix such as league or keys/league")
    return name


app = typer.Typer(help="Signing keys: for exported logs, and the ledger's own.", no_args_is_help=True)


@app.command("new")
def new(
    name: Annotated[str | None, typer.Argument(help="Path prefix: writes NAME.key (private) and NAME.pub (public).",
                                               callback=_key_name, show_default=False)] = None,
    ledger: Annotated[bool, typer.Option("--ledger", help="Make the ledger's own key instead: it signs every game "
                                                          "stored in --db (beside the database, or at --ledger-key).")]
    = False,
    db: Db = None,
    ledger_key: LedgerKey = None,
) -> None:
    """Make a new Ed25519 key pair: NAME.key signs exports, NAME.pub verifies them.

    With --ledger, make the ledger's signing key (refused if the ledger has one already).

    \b
    Example: tourney keys new league
    Example: tourney keys new --ledger --db league.db
    """
    from ledger import signing_keys
    from replays import signing

    if ledger:
        if name is not None:
            raise typer.BadParameter("give NAME or --ledger, not both (--ledger-key says where the ledger key goes)")
        _new_ledger_key(db, ledger_key)
        return
    if name is None:
        raise typer.BadParameter("give NAME (a path prefix), or --ledger for the ledger's key")
    private, public = Path(f"{name}.key"), Path(f"{name}.pub")
    if not private.parent.is_dir():
        in_the_way = signing_keys.file_in_the_way(private.parent)
        raise signing.SignatureError(f"no folder {private.parent} for the keys: {in_the_way or 'make it first'}")
    try:
        fingerprint = signing.new_keys(private, public)
    except OSError as error:  # named by the path given, not by the file staged beside it
        raise signing.SignatureError(f"{private}: cannot write the key: {error.strerror or error}") from None
    typer.echo(f"wrote {private} (keep it secret) and {public}; fingerprint {fingerprint}")


def _new_ledger_key(db: str | None, ledger_key: Path | None) -> None:
    from ledger import signing_keys
    from ledger.store import Ledger, LedgerError, default_path, resolve_url

    database = default_path(resolve_url(db))
    made = None
    if database is not None and not database.exists():
        # A new database: the key is made first, so that a key that cannot be made leaves no database behind.
        made = signing_keys.key_path(ledger_key, database)
        _refuse_existing(made)
        _made_key(made)
    try:
        store = Ledger(db, ledger_key=ledger_key)
    except BaseException:
        if made is not None:  # nor a key without its database
            for path in (made, signing_keys.public_path(made)):
                path.unlink(missing_ok=True)
        raise
    stored = store.public_key()
    if stored is not None:
        raise LedgerError(f"{store.where} has a ledger key already (fingerprint {signing_keys.fingerprint(stored)}); "
                          "a ledger has one key")
    if made is None and store.key_path is not None:
        _refuse_existing(store.key_path)
        _made_key(store.key_path)
    key = store.signing_key()  # the key just made, adopted: its public half stored
    typer.echo(f"wrote {key.path} (keep it secret, outside every bot's reach) and "
               f"{signing_keys.public_path(key.path)}; ledger key {key.fingerprint}")


def _refuse_existing(path: Path) -> None:
    from ledger.store import LedgerError

    if path.exists():
        raise LedgerError(f"{path} already exists; not overwriting a key (`tourney db upgrade` adopts it)")


def _made_key(path: Path) -> None:
    """A new ledger key at ``path`` (and its .pub beside it); LedgerError naming ``path`` if it cannot be made."""
    from ledger import signing_keys
    from ledger.store import LedgerError

    try:
        signing_keys.open_or_create(path)
    except signing_keys.KeyFileError as error:
        raise LedgerError(f"ledger key: {error}") from None
    except OSError as error:  # named by the path given, not by the file staged beside it
        raise LedgerError(f"ledger key: {path}: cannot write the key: {error.strerror or error}") from None
