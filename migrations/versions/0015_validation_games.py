"""Validation games kept: each game a submission played to be validated, for its owner (issue 40, item 2).

One row per game (table ``validation_games``): the submission, the game's number, its id, the seat the
submitted bot sat in, and its whole JSON log compressed with zstd. Apart from ``games`` so that nothing
that lists, rates or audits ladder and tournament games can count one.

A new table only: nothing is copied.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "validation_games",
        sa.Column("submission_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("number", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("game_id", sa.String(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("log", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(["submission_id"], ["submissions.id"]),
        sa.PrimaryKeyConstraint("submission_id", "number"),
    )


def downgrade() -> None:
    op.drop_table("validation_games")
