"""Diagnoses: why a bot forfeited, in its own terms, kept beside the game for its owner (issue 40, item 1).

A Python bot's traceback (from its own first frame on) or a program's last stderr lines, per
forfeiting seat of a game (table ``diagnoses``), and per refused submission (the column
``submissions.diagnosis``): private, as ``bot_logs`` are, and bounded when written
(tournaments.bots.diagnosis). A game's forfeit reason stays what its hashed events say; none of
this is hashed or part of any log.

A new table and a nullable column only: nothing is copied.

Revision ID: 0014
Revises: 0011
Create Date: 2026-12-09
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "diagnoses",
        sa.Column("game_id", sa.String(), nullable=False),
        sa.Column("seat", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("summary", sa.String(), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("log", sa.String(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("game_id", "seat"),
    )
    op.add_column("submissions", sa.Column("diagnosis", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.drop_column("diagnosis")
    op.drop_table("diagnoses")
