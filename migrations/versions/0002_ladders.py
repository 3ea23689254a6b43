"""Ladders: entries (bot versions with ratings), bot archives, ladder games, rating history.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ladders",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("game", sa.String(), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "ladder_entries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("submitted_at", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(["ladder_id"], ["ladders.id"]),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("ladder_id", "bot_id", name="uq_ladder_entries_bot"),
    )
    op.create_index("ix_ladder_entries_ladder", "ladder_entries", ["ladder_id"])
    op.create_table(
        "bot_archives",
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("entry_point", sa.String(), nullable=False),
        sa.Column("archive", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"]),
        sa.PrimaryKeyConstraint("bot_id"),
    )
    op.create_table(
        "ladder_games",
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(["ladder_id"], ["ladders.id"]),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("seq"),
        sa.UniqueConstraint("game_id"),
    )
    op.create_index("ix_ladder_games_ladder", "ladder_games", ["ladder_id"])
    op.create_table(
        "ladder_ratings",
        sa.Column("game_seq", sa.Integer(), nullable=False),
        sa.Column("entry_id", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["game_seq"], ["ladder_games.seq"]),
        sa.ForeignKeyConstraint(["entry_id"], ["ladder_entries.id"]),
        sa.PrimaryKeyConstraint("game_seq", "entry_id"),
    )


def downgrade() -> None:
    op.drop_table("ladder_ratings")
    op.drop_index("ix_ladder_games_ladder", table_name="ladder_games")
    op.drop_table("ladder_games")
    op.drop_table("bot_archives")
    op.drop_index("ix_ladder_entries_ladder", table_name="ladder_entries")
    op.drop_table("ladder_entries")
    op.drop_table("ladders")
