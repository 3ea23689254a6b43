"""The ladder match queue: matches waiting to be played, claimed by workers with a lease.

A session now plans its games (``planned``, in deals of ``batch`` at a time) and counts the
deals it has queued so far (``deals``); a session of an older revision was played whole by one
process and is left with no plan. Columns are only added to ``ladder_sessions`` (no table is
copied); ``ladder_matches`` is a work queue, not a record: its rows change as they are claimed,
so it has no append-only trigger (the games a match stores do).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("ladder_sessions", sa.Column("planned", sa.Integer(), nullable=True))
    op.add_column("ladder_sessions", sa.Column("batch", sa.Integer(), nullable=True))
    op.add_column("ladder_sessions", sa.Column("deals", sa.Integer(), nullable=False, server_default="0"))
    op.create_table(
        "ladder_matches",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("session_id", sa.Integer(), nullable=False),
        sa.Column("deal", sa.Integer(), nullable=False),
        sa.Column("entries", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("worker", sa.String(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("lease_until", sa.Float(), nullable=True),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("claimed_at", sa.String(), nullable=True),
        sa.Column("stored_at", sa.String(), nullable=True),
        sa.ForeignKeyConstraint(["ladder_id"], ["ladders.id"]),
        sa.ForeignKeyConstraint(["session_id"], ["ladder_sessions.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("session_id", "deal", name="uq_ladder_matches_deal"),
    )
    op.create_index("ix_ladder_matches_status", "ladder_matches", ["ladder_id", "status"])


def downgrade() -> None:
    op.drop_index("ix_ladder_matches_status", table_name="ladder_matches")
    op.drop_table("ladder_matches")
    op.drop_column("ladder_sessions", "deals")
    op.drop_column("ladder_sessions", "batch")
    op.drop_column("ladder_sessions", "planned")
