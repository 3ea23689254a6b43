"""Validation attempts: how many times each submission was handed out for validation, so that one
whose validations never finish (its workers die, or fail for their machine's fault) is refused
after ``ledger.rows.submission_rows.MAX_ATTEMPTS`` instead of being handed out forever.

A column is only added (ALTER TABLE ADD COLUMN): no table is copied. A submission being validated
when the database is upgraded counts as claimed once.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("submissions", sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"))
    op.execute("UPDATE submissions SET attempts = 1 WHERE status = 'validating'")


def downgrade() -> None:
    with op.batch_alter_table("submissions") as batch:
        batch.drop_column("attempts")
