"""Options shared by several commands."""

from __future__ import annotations

from typing import Annotated

import typer

Db = Annotated[
    str | None,
    typer.Option(
        "--db",
        envvar="TOURNEY_DB",
        help="Database URL or SQLite file path (default: sqlite:///tourney.db in the working directory).",
        show_default=False,
    ),
]
