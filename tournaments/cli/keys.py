"""`tourney keys`: Ed25519 key pairs for signed exports."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from replays import signing


def _key_name(name: str) -> str:
    if not name.strip() or name.endswith(("/", "\\")) or Path(name).name in ("", ".", ".."):
        raise typer.BadParameter(f"{name!r} is not a file name: give a path prefix such as league or keys/league")
    return name


app = typer.Typer(help="Signing keys for exported logs.", no_args_is_help=True)


@app.command("new")
def new(
    name: Annotated[str, typer.Argument(help="Path prefix: writes NAME.key (private) and NAME.pub (public).",
                                        callback=_key_name)],
) -> None:
    """Make a new Ed25519 key pair: NAME.key signs exports, NAME.pub verifies them.

    Example: tourney keys new league
    """
    private, public = Path(f"{name}.key"), Path(f"{name}.pub")
    if not private.parent.is_dir():
        raise signing.SignatureError(f"no folder {private.parent} for the keys: make it first")
    fingerprint = signing.new_keys(private, public)
    typer.echo(f"wrote {private} (keep it secret) and {public}; fingerprint {fingerprint}")
