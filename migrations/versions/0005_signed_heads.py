"""Signed heads: the ledger's public key, each game's signature and store order, signed checkpoints.

Games stored before this revision keep no signature ("unsigned (written before ledger
keys)"); `tourney db sign` signs them after an audit. They are numbered (store_seq) in the
order they were created, so checkpoints can cover them too.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

# Like the events of 0001: the database itself refuses to change or remove a checkpoint.
CHECKPOINT_TRIGGERS = {
    "checkpoints_no_update": """
        CREATE TRIGGER checkpoints_no_update BEFORE UPDATE ON checkpoints
        BEGIN SELECT RAISE(ABORT, 'checkpoints are append-only: UPDATE refused'); END
    """,
    "checkpoints_no_delete": """
        CREATE TRIGGER checkpoints_no_delete BEFORE DELETE ON checkpoints
        BEGIN SELECT RAISE(ABORT, 'checkpoints are append-only: DELETE refused'); END
    """,
}

# On PostgreSQL, as for the events of 0001: statement triggers refuse UPDATE, DELETE and TRUNCATE.
POSTGRES_CHECKPOINT_FUNCTION = """
    CREATE FUNCTION checkpoints_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION USING ERRCODE = '23000', MESSAGE = 'checkpoints are append-only: ' || TG_OP || ' refused';
    END $$
"""
POSTGRES_CHECKPOINT_TRIGGERS = tuple(
    f"CREATE TRIGGER checkpoints_no_{operation.lower()} BEFORE {operation} ON checkpoints FOR EACH STATEMENT "
    "EXECUTE FUNCTION checkpoints_append_only()"
    for operation in ("UPDATE", "DELETE", "TRUNCATE")
)


def upgrade() -> None:
    op.create_table(
        "ledger_keys",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("public_key", sa.String(), nullable=False),
        sa.Column("signs_from", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    # Plain ADD COLUMN (no table copy): games has no triggers, but events point at it.
    op.add_column("games", sa.Column("signature", sa.String(), nullable=True))
    op.add_column("games", sa.Column("store_seq", sa.Integer(), nullable=True))
    bind = op.get_bind()
    finished = [row[0] for row in bind.execute(
        sa.text("SELECT id FROM games WHERE status = 'finished' ORDER BY created_at, id"))]
    if finished:
        bind.execute(sa.text("UPDATE games SET store_seq = :number WHERE id = :game"),
                     [{"number": number, "game": game_id} for number, game_id in enumerate(finished, start=1)])
    op.create_index("ix_games_store_seq", "games", ["store_seq"], unique=True)
    op.create_table(
        "checkpoints",
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=True),
        sa.Column("ladder_id", sa.Integer(), nullable=True),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("through", sa.Integer(), nullable=False),
        sa.Column("root", sa.String(), nullable=False),
        sa.Column("state", sa.String(), nullable=False),
        sa.Column("signature", sa.String(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"]),
        sa.ForeignKeyConstraint(["ladder_id"], ["ladders.id"]),
        sa.PrimaryKeyConstraint("seq"),
    )
    op.create_index("ix_checkpoints_tournament", "checkpoints", ["tournament_id"])
    op.create_index("ix_checkpoints_ladder", "checkpoints", ["ladder_id"])
    if bind.dialect.name == "sqlite":
        for statement in CHECKPOINT_TRIGGERS.values():
            op.execute(statement)
    elif bind.dialect.name == "postgresql":
        for statement in (POSTGRES_CHECKPOINT_FUNCTION, *POSTGRES_CHECKPOINT_TRIGGERS):
            op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for name in CHECKPOINT_TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
    op.drop_index("ix_checkpoints_ladder", table_name="checkpoints")
    op.drop_index("ix_checkpoints_tournament", table_name="checkpoints")
    op.drop_table("checkpoints")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION checkpoints_append_only()")
    op.drop_index("ix_games_store_seq", table_name="games")
    op.drop_column("games", "store_seq")
    op.drop_column("games", "signature")
    op.drop_table("ledger_keys")
