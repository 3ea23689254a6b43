"""Ladder events: append-only facts an operator adds to a ladder (a game voided, a bot retired).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

# Like the events of 0001: the database itself refuses to change or remove a ladder event.
LADDER_EVENT_TRIGGERS = (
    """
    CREATE TRIGGER ladder_events_no_update BEFORE UPDATE ON ladder_events
    BEGIN SELECT RAISE(ABORT, 'ladder events are append-only: UPDATE refused'); END
    """,
    """
    CREATE TRIGGER ladder_events_no_delete BEFORE DELETE ON ladder_events
    BEGIN SELECT RAISE(ABORT, 'ladder events are append-only: DELETE refused'); END
    """,
)

POSTGRES_LADDER_EVENT_FUNCTION = """
    CREATE FUNCTION ladder_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION USING ERRCODE = '23000', MESSAGE = 'ladder events are append-only: ' || TG_OP || ' refused';
    END $$
"""
POSTGRES_LADDER_EVENT_TRIGGERS = tuple(
    f"CREATE TRIGGER ladder_events_no_{operation.lower()} BEFORE {operation} ON ladder_events FOR EACH STATEMENT "
    "EXECUTE FUNCTION ladder_events_append_only()"
    for operation in ("UPDATE", "DELETE", "TRUNCATE")
)


def upgrade() -> None:
    op.create_table(
        "ladder_events",
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("game_id", sa.String(), nullable=True),
        sa.Column("entry_id", sa.Integer(), nullable=True),
        sa.Column("reason", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(["ladder_id"], ["ladders.id"]),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["entry_id"], ["ladder_entries.id"]),
        sa.PrimaryKeyConstraint("seq"),
    )
    op.create_index("ix_ladder_events_ladder", "ladder_events", ["ladder_id"])
    backend = op.get_bind().dialect.name
    if backend == "sqlite":
        for statement in LADDER_EVENT_TRIGGERS:
            op.execute(statement)
    elif backend == "postgresql":
        for statement in (POSTGRES_LADDER_EVENT_FUNCTION, *POSTGRES_LADDER_EVENT_TRIGGERS):
            op.execute(statement)


def downgrade() -> None:
    op.drop_index("ix_ladder_events_ladder", table_name="ladder_events")
    op.drop_table("ladder_events")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION ladder_events_append_only()")
