"""Divisions: a ladder split into ordered divisions, a boss per boundary, promotions and relegations as facts
(issue 41, item 5).

``ladders.divisions`` holds a ladder's divisions, lowest first (a JSON list of names; NULL: none, as every
ladder before this revision). Bosses and membership changes are ladder events (kinds ``boss``, ``promote``,
``relegate``), which gain the division they name (``division``) and where the membership fold applies them
(``after_seq``: the ladder's last game seq when they were appended).

New nullable columns only: nothing is copied, and the append-only triggers of ladder_events stay.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("ladders", sa.Column("divisions", sa.String(), nullable=True))
    op.add_column("ladder_events", sa.Column("division", sa.String(), nullable=True))
    op.add_column("ladder_events", sa.Column("after_seq", sa.Integer(), nullable=True))


def downgrade() -> None:
    op.drop_column("ladder_events", "after_seq")
    op.drop_column("ladder_events", "division")
    op.drop_column("ladders", "divisions")
