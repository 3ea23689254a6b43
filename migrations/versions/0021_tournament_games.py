"""How many games each tournament has (``tournament_games``, ledger/read_models.py, issue 39 item 3): its pages, the
list of tournaments, its kept Elo fit's stamp and `tourney run`'s running standings read one row, where they counted
its games (a count reads every one of them: at a million games, a tenth of a second a page).

The new table is filled from the counted rows (``game_results``: a revision reads no game), so it counts what the
other read models count; games not counted yet (a ledger written before revision 0013, behind) are counted into it
with the rest by `tourney db upgrade`'s catch-up.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournament_games",
        sa.Column("tournament_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("tournament_id"),
    )
    op.execute("INSERT INTO tournament_games (tournament_id, games) SELECT tournament_id, COUNT(*) FROM game_results "
               "WHERE tournament_id IS NOT NULL GROUP BY tournament_id")


def downgrade() -> None:
    op.drop_table("tournament_games")
