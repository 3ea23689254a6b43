"""Ladder rating models: a ladder rates by Elo or OpenSkill; entries and history keep sigma.

* ``ladders.rating``: ``elo`` or ``openskill``, chosen at ``ladder create`` (ladders made before
  this revision rate by Elo, as they always did);
* ``ladder_entries.sigma`` and ``ladder_ratings.sigma``: OpenSkill's uncertainty (NULL for Elo);
* ``ladder_entries.joined_after``: the ladder's last game seq when the version was submitted, so
  that a rebuild starts the version (from its predecessor's rating, for OpenSkill) at the same
  point of the fold as the incremental ratings did.

Columns are only added (ALTER TABLE ADD COLUMN): no table is copied, the event triggers stay.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("ladders", sa.Column("rating", sa.String(), nullable=False, server_default="elo"))
    op.add_column("ladder_entries", sa.Column("sigma", sa.Float(), nullable=True))
    op.add_column("ladder_entries", sa.Column("joined_after", sa.Integer(), nullable=False, server_default="0"))
    op.add_column("ladder_ratings", sa.Column("sigma", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("ladder_ratings") as batch:
        batch.drop_column("sigma")
    with op.batch_alter_table("ladder_entries") as batch:
        batch.drop_column("joined_after")
        batch.drop_column("sigma")
    with op.batch_alter_table("ladders") as batch:
        batch.drop_column("rating")
