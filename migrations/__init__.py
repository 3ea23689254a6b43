"""Alembic environment and revisions: the only way the ledger's schema changes."""

from pathlib import Path

SCRIPT_LOCATION = str(Path(__file__).resolve().parent)

HEAD = "0022"
"""The newest revision. Opening a database at HEAD needs no Alembic import (a test checks it is
Alembic's own head): bump it with every new revision, and add it to REVISIONS."""

REVISIONS = ("0001", "0002", "0003", "0004", "0005", "0006", "0007", "0008", "0009", "0010", "0011", "0012", "0013",
             "0014", "0015", "0016", "0017", "0018", "0019", "0020", "0021", "0022")
"""Every revision, oldest first, HEAD last (a test checks it is Alembic's history): a database
stamped with a revision not listed here was written by a newer tourney."""
