"""How many games each place holds, with a forfeit and without (``place_games``, ledger/read_models.py, issue 39 item
3): every game, each tournament's and each ladder's (voided games too, which the ladder's lists still show). A list's
total (of every game, a tournament's, a ladder's, filtered by forfeit), the list of tournaments and a tournament's
kept fit's stamp read these few rows, where they counted the games (a count reads every one of them: at a million
games, a tenth of a second a page).

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

PLACES = (("0, 0", ""), ("tournament_id, 0", "tournament_id"), ("0, ladder_id", "ladder_id"))
"""Each place a game is counted in: (tournament_id, ladder_id; 0 for any), and the column naming it (none: every
game)."""
FORFEITED = "CASE WHEN forfeit_seat IS NULL THEN 0 ELSE 1 END"


def upgrade() -> None:
    op.create_table(
        "place_games",
        sa.Column("tournament_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("ladder_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("forfeited", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", "ladder_id", "forfeited"),
    )
    for place, column in PLACES:
        where, by = (f"WHERE {column} IS NOT NULL", f"{column}, ") if column else ("", "")
        op.execute(f"INSERT INTO place_games (tournament_id, ladder_id, forfeited, games) SELECT {place}, {FORFEITED}, "
                   f"COUNT(*) FROM game_results {where} GROUP BY {by}{FORFEITED}")


def downgrade() -> None:
    op.drop_table("place_games")
