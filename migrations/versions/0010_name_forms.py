"""Name forms: what each owner name and each owned bot name reads as (``ledger.rows.owner_rows.name_form``:
NFKC, casefolded, without ``-``, ``_``, ``.``, white space and format characters), unique, so that
no two owners, and no two owned bots, have names that read alike (``Alice-Lemur`` beside
``alice-lemur``).

Columns are only added (ALTER TABLE ADD COLUMN) with a unique index each: no table is copied. Rows
are filled in the order their names were claimed; a name that already read as an earlier one
keeps working under its exact spelling with no form (NULL: unique indexes allow any number), and
the earlier name holds the form. The form is computed by today's ``name_form``: should it ever
change, a later revision recomputes the column.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from ledger.rows.owner_rows import name_form

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

TABLES = (("owners", "id", "id"), ("bot_owners", "name", "claimed_at, name"))
"""(table, its key, the order its names were claimed in)."""


def upgrade() -> None:
    connection = op.get_bind()
    for table, key, order in TABLES:
        op.add_column(table, sa.Column("name_form", sa.String(), nullable=True))
        held: set[str] = set()
        for row_key, name in connection.execute(sa.text(f"SELECT {key}, name FROM {table} ORDER BY {order}")).all():
            form = name_form(name)
            if form not in held:
                held.add(form)
                connection.execute(sa.text(f"UPDATE {table} SET name_form = :form WHERE {key} = :key"),
                                   {"form": form, "key": row_key})
        op.create_index(f"uq_{table}_name_form", table, ["name_form"], unique=True)


def downgrade() -> None:
    for table, _, _ in reversed(TABLES):
        op.drop_index(f"uq_{table}_name_form", table_name=table)
        with op.batch_alter_table(table) as batch:
            batch.drop_column("name_form")
