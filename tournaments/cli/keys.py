"""`tourney keys`: Ed25519 key pairs for signed exports."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from replays import signing

app = typer.Typer(help="Signing keys for exported logs.", no_args_is_help=True)


@app.command("new")
def new(
    name: Annotated[Path, typer.Argument(help="Path prefix: writes NAME.key (private) and NAME.pub (public).")],
) -> None:
    """Make a new Ed25519 key pair: NAME.key signs exports, NAME.pub verifies them.

    Example: tourney keys new league
    """
    private, public = Path(f"{name}.key"), Path(f"{name}.pub")
    fingerprint = signing.new_keys(private, public)
    typer.echo(f"wrote {private} (keep it secret) and {public}; fingerprint {fingerprint}")
