"""What a bot is written in and what its author says of it (issue 41: a description and a language per bot).

``ladder_entries.language`` is what the version is written in, as tourney tells it when the version is listed
(tournaments.bots.discovery.language: "Python", "JavaScript", "compiled", ...); ``ladder_entries.description``
and ``submissions.description`` are its author's words (at most 200 characters, plain text), given with
`ladder submit --description` or the upload's ``description`` field. NULL for every version listed before this
revision: nothing is guessed for them.

New nullable columns only: nothing is copied.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("ladder_entries", sa.Column("language", sa.String(), nullable=True))
    op.add_column("ladder_entries", sa.Column("description", sa.Text(), nullable=True))
    op.add_column("submissions", sa.Column("description", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("submissions", "description")
    op.drop_column("ladder_entries", "description")
    op.drop_column("ladder_entries", "language")
