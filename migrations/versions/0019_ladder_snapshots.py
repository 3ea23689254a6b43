"""A ladder's sums kept as of some of its games (ledger/ladder_snapshots.py, issue 39): a ladder read as of an
earlier game (`?at=`) reads the latest snapshot at or before it and sums only the games since, instead of every
game; and an index on ``game_results`` by ladder and number (a ladder game found by its number, and a range of
numbers summed, in one index step or range).

New tables only, empty: each ladder's snapshots are taken by the catch-up of `tourney db upgrade`
(``replays.projections.catch_up``, which also runs when a command finds games the read models do not count), and
as games are stored (one due snapshot a stored match), from the counted rows ``game_results`` and
``seat_results`` (a revision reads no game). Until then a reader sums from the ladder's first game, as before.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ladder_snapshots",
        sa.Column("ladder_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("number", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("row_count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("ladder_id", "number"),
    )
    op.create_table(
        "ladder_snapshot_rows",
        *(sa.Column(name, sa.Integer(), autoincrement=False, nullable=False)
          for name in ("ladder_id", "number", "entry_id", "opponent_id")),
        *(sa.Column(name, sa.Integer(), nullable=False) for name in ("wins", "draws", "losses", "forfeits")),
        sa.Column("last_played", sa.String(), nullable=True),
        sa.PrimaryKeyConstraint("ladder_id", "number", "entry_id", "opponent_id"),
    )
    op.create_index("ix_game_results_ladder_number", "game_results", ["ladder_id", "ladder_number"])


def downgrade() -> None:
    op.drop_index("ix_game_results_ladder_number", table_name="game_results")
    op.drop_table("ladder_snapshot_rows")
    op.drop_table("ladder_snapshots")
