"""A bot's seats counted by result and forfeit (``bot_results``, ledger/read_models.py, issue 39 item 3): in every
game, in each tournament's and in each ladder's (voided games too, which the ladder's lists still show), so that a
list of a bot's games (`/ladders/NAME/games?bot=B&result=win`, `/api/bots/B/games`) reads its total from a few rows
instead of counting the bot's seats, which grow with its games.

The new table is filled from the counted rows (``seat_results`` and ``game_results``: a revision reads no game), so
it counts what the other read models count; games not counted yet (a ledger written before revision 0013, behind)
are counted into it with the rest by `tourney db upgrade`'s catch-up.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None

PLACES = (("0, 0", ""), ("g.tournament_id, 0", "g.tournament_id"), ("0, g.ladder_id", "g.ladder_id"))
"""Each place a seat is counted in: (tournament_id, ladder_id; 0 for any), and the column naming it (none: every
game)."""


def upgrade() -> None:
    op.create_table(
        "bot_results",
        sa.Column("bot", sa.String(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("ladder_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("result", sa.String(), nullable=False),
        sa.Column("forfeited", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("seats", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("bot", "tournament_id", "ladder_id", "result", "forfeited"),
    )
    for place, column in PLACES:
        where, by = (f"WHERE {column} IS NOT NULL", f", {column}") if column else ("", "")
        op.execute(
            "INSERT INTO bot_results (bot, tournament_id, ladder_id, result, forfeited, seats) "
            f"SELECT s.bot, {place}, s.result, s.forfeited, COUNT(*) FROM seat_results s "
            f"JOIN game_results g ON g.game_id = s.game_id {where} GROUP BY s.bot{by}, s.result, s.forfeited")


def downgrade() -> None:
    op.drop_table("bot_results")
