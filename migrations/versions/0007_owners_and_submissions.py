"""Owners and submissions: API tokens (hashed), bot names owned, the queue of uploaded bots,
the end of each bot's stderr per game, and what a ladder publishes of its games.

Columns are only added to existing tables (ALTER TABLE ADD COLUMN): no table is copied.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "owners",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        # SHA-256 of the token: the token itself is printed once and never stored.
        sa.Column("token_hash", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_table(
        "bot_owners",
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("claimed_at", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(["owner_id"], ["owners.id"]),
        sa.PrimaryKeyConstraint("name"),
    )
    op.create_index("ix_bot_owners_owner", "bot_owners", ["owner_id"])
    op.create_table(
        "submissions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("filename", sa.String(), nullable=False),
        sa.Column("entry_point", sa.String(), nullable=False),
        sa.Column("upload", sa.LargeBinary(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("reason", sa.String(), nullable=True),
        sa.Column("entry_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("claimed_at", sa.String(), nullable=True),
        sa.Column("decided_at", sa.String(), nullable=True),
        sa.ForeignKeyConstraint(["ladder_id"], ["ladders.id"]),
        sa.ForeignKeyConstraint(["owner_id"], ["owners.id"]),
        sa.ForeignKeyConstraint(["entry_id"], ["ladder_entries.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_submissions_status", "submissions", ["ladder_id", "status"])
    op.create_index("ix_submissions_owner", "submissions", ["owner_id", "created_at"])
    op.create_table(
        "bot_logs",
        sa.Column("game_id", sa.String(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("stderr", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("game_id", "seat"),
    )
    op.add_column("ladders", sa.Column("publish", sa.String(), nullable=False, server_default="spectator"))


def downgrade() -> None:
    with op.batch_alter_table("ladders") as batch:
        batch.drop_column("publish")
    op.drop_table("bot_logs")
    op.drop_index("ix_submissions_owner", table_name="submissions")
    op.drop_index("ix_submissions_status", table_name="submissions")
    op.drop_table("submissions")
    op.drop_index("ix_bot_owners_owner", table_name="bot_owners")
    op.drop_table("bot_owners")
    op.drop_table("owners")
