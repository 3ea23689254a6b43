"""Alembic environment and revisions: the only way the ledger's schema changes."""

from pathlib import Path

SCRIPT_LOCATION = str(Path(__file__).resolve().parent)
