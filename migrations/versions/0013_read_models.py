"""Read models kept as games land (ledger/read_models.py): each counted game's and seat's result, a
tournament's sums per bot and per pair, a bot's record by seat and by opponent, a ladder entry's
record and its results per pair; and an index on ``ladder_ratings`` by entry (a bot's rating history
without reading every ladder's).

New tables only, empty, with the position at 0: nothing is copied. They hold no foreign keys: they
are derived rows, which the audit holds against the games, and the tables they are derived from
may be rebuilt by a later revision without them in the way. A ledger that already holds
games is counted by ``replays.projections.catch_up`` (`tourney db upgrade` and every command that
writes run it), which reads each game's result from its hashed events: a revision does not read
events, whose storage another revision may change.

Revision ID: 0013
Revises: 0011
Create Date: 2026-12-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "read_model_positions",
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )
    op.execute("INSERT INTO read_model_positions (name, position) VALUES ('games', 0)")
    op.create_table(
        "game_results",
        sa.Column("game_id", sa.String(), nullable=False),
        sa.Column("store_seq", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=True),
        sa.Column("ladder_id", sa.Integer(), nullable=True),
        sa.Column("ladder_number", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("forfeit_seat", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("game_id"),
    )
    op.create_index("ix_game_results_store_seq", "game_results", ["store_seq"], unique=True)
    op.create_index("ix_game_results_tournament", "game_results", ["tournament_id", "store_seq"])
    op.create_index("ix_game_results_ladder", "game_results", ["ladder_id", "store_seq"])
    op.create_table(
        "seat_results",
        sa.Column("game_id", sa.String(), nullable=False),
        sa.Column("seat", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("store_seq", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("bot", sa.String(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("result", sa.String(), nullable=False),
        sa.Column("forfeited", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seat"),
    )
    op.create_index("ix_seat_results_bot", "seat_results", ["bot", "store_seq"])
    op.create_table(
        "tournament_standings",
        sa.Column("tournament_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("bot", sa.String(), nullable=False),
        *(sa.Column(name, sa.Integer(), nullable=False)
          for name in ("games", "firsts", "places", "forfeits", "points2", "points2_sq")),
        sa.PrimaryKeyConstraint("tournament_id", "bot"),
    )
    op.create_table(
        "tournament_pairs",
        sa.Column("tournament_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("bot", sa.String(), nullable=False),
        sa.Column("opponent", sa.String(), nullable=False),
        *(sa.Column(name, sa.Integer(), nullable=False) for name in ("wins", "draws", "losses")),
        sa.PrimaryKeyConstraint("tournament_id", "bot", "opponent"),
    )
    op.create_table(
        "bot_seats",
        sa.Column("bot", sa.String(), nullable=False),
        sa.Column("seat", sa.Integer(), autoincrement=False, nullable=False),
        *(sa.Column(name, sa.Integer(), nullable=False) for name in ("games", "wins", "draws", "losses")),
        sa.PrimaryKeyConstraint("bot", "seat"),
    )
    op.create_table(
        "bot_opponents",
        sa.Column("bot", sa.String(), nullable=False),
        sa.Column("opponent", sa.String(), nullable=False),
        *(sa.Column(name, sa.Integer(), nullable=False) for name in ("games", "wins", "draws", "losses")),
        sa.Column("points", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("bot", "opponent"),
    )
    op.create_table(
        "ladder_records",
        sa.Column("entry_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        *(sa.Column(name, sa.Integer(), nullable=False)
          for name in ("wins", "draws", "losses", "forfeits", "points2", "points2_sq")),
        sa.Column("last_played", sa.String(), nullable=True),
        sa.PrimaryKeyConstraint("entry_id"),
    )
    op.create_index("ix_ladder_records_ladder", "ladder_records", ["ladder_id"])
    op.create_table(
        "ladder_pairs",
        sa.Column("entry_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("opponent_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        *(sa.Column(name, sa.Integer(), nullable=False) for name in ("wins", "draws", "losses")),
        sa.PrimaryKeyConstraint("entry_id", "opponent_id"),
    )
    op.create_index("ix_ladder_pairs_ladder", "ladder_pairs", ["ladder_id"])
    op.create_index("ix_ladder_ratings_entry", "ladder_ratings", ["entry_id", "game_seq"])


def downgrade() -> None:
    op.drop_index("ix_ladder_ratings_entry", table_name="ladder_ratings")
    for table in ("ladder_pairs", "ladder_records", "bot_opponents", "bot_seats", "tournament_pairs",
                  "tournament_standings", "seat_results", "game_results", "read_model_positions"):
        op.drop_table(table)
