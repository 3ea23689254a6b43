"""The initial ledger: bots, tournaments, games, events (append-only), seats.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

# Events are append-only and gap-free, enforced by the database itself. A later
# revision that rebuilds the events table (batch mode copies it) must run these again.
EVENT_TRIGGERS = {
    "events_no_update": """
        CREATE TRIGGER events_no_update BEFORE UPDATE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only: UPDATE is not allowed'); END
    """,
    "events_no_delete": """
        CREATE TRIGGER events_no_delete BEFORE DELETE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only: DELETE is not allowed'); END
    """,
    "events_contiguous": """
        CREATE TRIGGER events_contiguous BEFORE INSERT ON events
        WHEN NEW.seq != COALESCE((SELECT MAX(seq) FROM events WHERE game_id = NEW.game_id), -1) + 1
        BEGIN SELECT RAISE(ABORT, 'events must be appended at the next seq of their game'); END
    """,
}


# The same rule on PostgreSQL (ledger/dialect_postgres.py): statement triggers refuse every
# UPDATE, DELETE and TRUNCATE of events, a row trigger the next seq; only the tables' owner
# may drop or disable them (docs/scaling.md: the owner migrates, the application role writes).
# ERRCODE 23000 (integrity_constraint_violation) makes the driver raise IntegrityError, as SQLite's
# RAISE(ABORT) does.
POSTGRES_EVENT_FUNCTIONS = {
    "events_append_only": """
        CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION USING ERRCODE = '23000',
                MESSAGE = 'events are append-only: ' || TG_OP || ' is not allowed';
        END $$
    """,
    "events_contiguous": """
        CREATE FUNCTION events_contiguous() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF NEW.seq <> COALESCE((SELECT MAX(seq) FROM events WHERE game_id = NEW.game_id), -1) + 1 THEN
                RAISE EXCEPTION USING ERRCODE = '23000',
                    MESSAGE = 'events must be appended at the next seq of their game';
            END IF;
            RETURN NEW;
        END $$
    """,
}
POSTGRES_EVENT_TRIGGERS = (
    "CREATE TRIGGER events_no_update BEFORE UPDATE ON events FOR EACH STATEMENT EXECUTE FUNCTION events_append_only()",
    "CREATE TRIGGER events_no_delete BEFORE DELETE ON events FOR EACH STATEMENT EXECUTE FUNCTION events_append_only()",
    "CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events FOR EACH STATEMENT "
    "EXECUTE FUNCTION events_append_only()",
    "CREATE TRIGGER events_contiguous BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION events_contiguous()",
)


def upgrade() -> None:
    op.create_table(
        "bots",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("content_hash", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name", "content_hash", name="uq_bots_name_hash"),
    )
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("game", sa.String(), nullable=False),
        sa.Column("spec", sa.String(), nullable=False),
        sa.Column("seed", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "tournament_bots",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"]),
        sa.PrimaryKeyConstraint("tournament_id", "bot_id"),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("game", sa.String(), nullable=False),
        sa.Column("engine_version", sa.Integer(), nullable=False),
        sa.Column("config", sa.String(), nullable=False),
        sa.Column("seed_commitment", sa.String(), nullable=False),
        sa.Column("seed", sa.String(), nullable=True),
        sa.Column("tournament_id", sa.Integer(), nullable=True),
        sa.Column("game_key", sa.String(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("events", sa.Integer(), nullable=False),
        sa.Column("head", sa.String(), nullable=True),
        sa.Column("end_reason", sa.String(), nullable=True),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("tournament_id", "game_key", name="uq_games_tournament_key"),
    )
    op.create_index("ix_games_tournament", "games", ["tournament_id"])
    op.create_table(
        "events",
        sa.Column("game_id", sa.String(), nullable=False),
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("type", sa.String(), nullable=False),
        sa.Column("audience", sa.String(), nullable=False),
        sa.Column("body", sa.LargeBinary(), nullable=False),
        sa.Column("private", sa.LargeBinary(), nullable=True),
        sa.Column("salt", sa.LargeBinary(), nullable=True),
        sa.Column("hash", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("game_id", "seq"),
    )
    op.create_table(
        "seats",
        sa.Column("game_id", sa.String(), nullable=False),
        sa.Column("seat", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=True),
        sa.Column("score", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"]),
        sa.PrimaryKeyConstraint("game_id", "seat"),
    )
    op.create_index("ix_seats_bot", "seats", ["bot_id"])
    backend = op.get_bind().dialect.name
    if backend == "sqlite":
        for sql in EVENT_TRIGGERS.values():
            op.execute(sql)
    elif backend == "postgresql":
        for sql in (*POSTGRES_EVENT_FUNCTIONS.values(), *POSTGRES_EVENT_TRIGGERS):
            op.execute(sql)


def downgrade() -> None:
    backend = op.get_bind().dialect.name
    if backend == "sqlite":
        for name in EVENT_TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
    op.drop_index("ix_seats_bot", table_name="seats")
    op.drop_table("seats")
    op.drop_table("events")
    op.drop_index("ix_games_tournament", table_name="games")
    op.drop_table("games")
    op.drop_table("tournament_bots")
    op.drop_table("tournaments")
    op.drop_table("bots")
    if backend == "postgresql":  # the triggers went with the table; their functions stay until dropped
        for name in POSTGRES_EVENT_FUNCTIONS:
            op.execute(f"DROP FUNCTION {name}()")
