"""A refused submission's diagnosis in the shape of a game's: its kind and summary beside its detail.

``submissions.diagnosis`` (revision 0014) kept a refused bot's traceback or last stderr lines alone; a game's
forfeit keeps three fields (``diagnoses``: kind, summary, detail), and `/api/submissions/ID` now answers a
submission's owner with the same three (``validation_diagnosis``). ``diagnosis_kind`` is ``traceback`` or
``stderr`` and ``diagnosis_summary`` its one line (``KeyError: 'hand' at mybot.py line 12, in act``), as the
validation game's forfeit told them.

New nullable columns only: a submission refused before this revision keeps its detail and has no kind (nothing is
guessed from the text).

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("submissions", sa.Column("diagnosis_kind", sa.String(), nullable=True))
    op.add_column("submissions", sa.Column("diagnosis_summary", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("submissions", "diagnosis_summary")
    op.drop_column("submissions", "diagnosis_kind")
