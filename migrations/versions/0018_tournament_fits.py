"""A tournament's Elo fit, kept (ledger/read_fits.py, issue 39 item 3): per tournament and bot its fitted rating,
95% interval and score, stamped by the tournament's games the fit counts (how many, and the newest's store_seq).

A fit is a memo of ``tournament_pairs``, not a fold of the games: readers use it while its stamp is the
tournament's and refit (and, with a ledger they may write, store the new fit) when it is not. New table only,
empty: every tournament is fitted by its first writer or reader after the upgrade, as after a new game.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournament_fits",
        sa.Column("tournament_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("bot", sa.String(), nullable=False),
        *(sa.Column(name, sa.Float(), nullable=False) for name in ("elo", "ci_low", "ci_high", "score")),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("store_seq", sa.Integer(), nullable=False),
        sa.Column("fitted_at", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", "bot"),
    )


def downgrade() -> None:
    op.drop_table("tournament_fits")
