"""Browser sessions of owners (`tourney serve`): an owner signs in with their API token and gets a
session cookie; only the SHA-256 of the cookie's secret is stored, with when it expires and the
hash of the API token it was opened with (a new token ends every session of the old one).

A new table only: nothing is copied.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "web_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        # SHA-256 of the cookie's secret: the secret itself lives only in the owner's browser.
        sa.Column("secret_hash", sa.String(), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.Column("expires_at", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(["owner_id"], ["owners.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("secret_hash"),
    )
    op.create_index("ix_web_sessions_expires", "web_sessions", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_web_sessions_expires", table_name="web_sessions")
    op.drop_table("web_sessions")
