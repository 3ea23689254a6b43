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

    Example: tourney keys new league
    Example: tourney keys new --ledger --db league.db
    """
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
        raise signing.SignatureError(f"no folder {private.parent} for the keys: make it first")
    fingerprint = signing.new_keys(private, public)
    typer.echo(f"wrote {private} (keep it secret) and {public}; fingerprint {fingerprint}")


def _new_ledger_key(db: str | None, ledger_key: Path | None) -> None:
    from ledger import signing_keys
    from ledger.store import Ledger, LedgerError

    store = Ledger(db, ledger_key=ledger_key)
    stored = store.public_key()
    if stored is not None:
        raise LedgerError(f"{store.where} has a ledger key already (fingerprint {signing_keys.fingerprint(stored)}); "
                          "a ledger has one key")
    if store.key_path is not None and store.key_path.exists():
        raise LedgerError(f"{store.key_path} already exists; not overwriting a key (`tourney db upgrade` adopts it)")
    key = store.signing_key()
    typer.echo(f"wrote {key.path} (keep it secret, outside every bot's reach) and "
               f"{signing_keys.public_path(key.path)}; ledger key {key.fingerprint}")
