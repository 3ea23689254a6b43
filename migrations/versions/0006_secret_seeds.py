"""Secret seeds: a tournament's seed commitment and origin, and ladder sessions with theirs.

A tournament played before this revision had its seed in its spec from the start: it is
recorded as chosen by the organiser. An imported one has no seed.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tournaments", sa.Column("seed_commitment", sa.String(), nullable=True))
    op.add_column("tournaments", sa.Column("seed_origin", sa.String(), nullable=True))
    op.add_column("tournaments", sa.Column("seed_nonce", sa.String(), nullable=True))
    op.execute("UPDATE tournaments SET seed_origin = 'organiser' WHERE seed <> ''")
    op.create_table(
        "ladder_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("seed_commitment", sa.String(), nullable=False),
        sa.Column("seed", sa.String(), nullable=True),
        sa.Column("seed_origin", sa.String(), nullable=False),
        sa.Column("seed_nonce", sa.String(), nullable=True),
        sa.Column("started_at", sa.String(), nullable=False),
        sa.Column("ended_at", sa.String(), nullable=True),
        sa.ForeignKeyConstraint(["ladder_id"], ["ladders.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_ladder_sessions_ladder", "ladder_sessions", ["ladder_id"])


def downgrade() -> None:
    op.drop_index("ix_ladder_sessions_ladder", table_name="ladder_sessions")
    op.drop_table("ladder_sessions")
    op.drop_column("tournaments", "seed_nonce")
    op.drop_column("tournaments", "seed_origin")
    op.drop_column("tournaments", "seed_commitment")
