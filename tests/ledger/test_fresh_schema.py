"""A new SQLite ledger is made from migrations/head_sqlite.sql in one step (migrations/schema.py): the file is what
the revisions build, a ledger made from it is the same as one they made, and Alembic drives it on from there."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from ledger.store import Ledger
from migrations import HEAD, REVISIONS
from migrations.schema import HEAD_SQLITE, by_revisions, dump, statements


def dumped(path: Path) -> str:
    connection = sqlite3.connect(path)
    try:
        return dump(connection)
    finally:
        connection.close()


def test_the_schema_file_is_what_the_revisions_build():
    """Fails after a new revision until the file is generated again."""
    assert HEAD_SQLITE.read_text(encoding="utf-8") == by_revisions(), \
        "migrations/head_sqlite.sql is stale: run `python -m migrations.schema` and commit it"


def test_a_new_ledger_is_the_one_the_revisions_make(tmp_path):
    """Tables, indexes, triggers (in SQLite's own words) and seeded rows equal those of every revision run in turn;
    the new file is at head, and its triggers refuse as theirs do."""
    store = Ledger(str(tmp_path / "new.db"))
    assert store.current() == HEAD
    store.close()
    made = dumped(tmp_path / "new.db")
    assert made == by_revisions()
    assert "CREATE TRIGGER events_no_update" in made and f"INSERT INTO \"alembic_version\" VALUES ('{HEAD}');" in made
    connection = sqlite3.connect(tmp_path / "new.db")
    assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_a_new_ledger_is_made_without_alembic(tmp_path):
    """The point of the file: a process that opens a new ledger imports no Alembic and runs no revision."""
    probe = ("import sys; from ledger.store import Ledger; Ledger(sys.argv[1]).close(); "
             "print(sorted(name for name in sys.modules if name.split('.')[0] in ('alembic', 'migrations')))")
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "new.db")], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.strip() == "['migrations', 'migrations.schema']"


def test_alembic_takes_a_ledger_made_so_down_and_up_again(tmp_path):
    """Each revision's downgrade runs on the made schema, and upgrading back gives the same file contents."""
    store = Ledger(str(tmp_path / "new.db"))
    for revision in reversed(REVISIONS[:-1]):
        store.downgrade(revision)
        assert store.current() == revision
    store.upgrade()
    store.close()
    assert dumped(tmp_path / "new.db") == by_revisions()


def test_two_openers_of_one_new_file_make_it_once(tmp_path):
    """The second opener, queued behind the first's write lock, finds the schema made and adds nothing twice."""
    path = tmp_path / "new.db"
    opener = "import sys; from ledger.store import Ledger; Ledger(sys.argv[1]).close()"
    processes = [subprocess.Popen([sys.executable, "-c", opener, str(path)], stderr=subprocess.PIPE, text=True)
                 for _ in range(3)]
    for process in processes:
        _, errors = process.communicate(timeout=120)
        assert process.returncode == 0, errors
    assert dumped(path) == by_revisions()


def test_statements_are_split_at_their_ends_only():
    """A trigger's body keeps its own semicolons; a script cut inside a statement is refused, not half run."""
    script = ("-- a comment\nCREATE TABLE t (a INT);\nCREATE TRIGGER t_no BEFORE DELETE ON t BEGIN\n"
              "  SELECT RAISE(ABORT, 'no; never');\nEND;\n")
    assert statements(script) == ["CREATE TABLE t (a INT);",
                                  "CREATE TRIGGER t_no BEFORE DELETE ON t BEGIN\n  SELECT RAISE(ABORT, 'no; never');"
                                  "\nEND;"]
    with pytest.raises(ValueError, match=r"ends inside a statement: regenerate it \(python -m migrations.schema\)"):
        statements("CREATE TABLE t (a INT")
