"""Opening a database (docs/cli.md, "Before any command opens a database"): a read-only command leaves no -wal or
-shm behind, and never takes one a live writer uses; a bad --db is one line naming the path and why, with nothing
made or changed."""

from __future__ import annotations

import ctypes
import hashlib
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from ledger.store import Ledger
from tests import cli

READ_ONLY = [("list",), ("db", "current"), ("standings",)]

WRITER = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("SELECT count(*) FROM sqlite_master").fetchall()  # opens the WAL: an empty -wal, and the -shm
print("open", flush=True)
sys.stdin.readline()
db.execute("PRAGMA user_version = 7")
print("written", flush=True)
sys.stdin.readline()
"""
"""A second process holding the ledger open, as a league server does: it writes when told to."""

PR_CAPBSET_DROP, CAP_DAC_OVERRIDE = 24, 1


def sidecars(db: Path) -> list[str]:
    return sorted(name for name in ("-wal", "-shm") if Path(f"{db}{name}").exists())


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def ledger_at(path: Path) -> Path:
    assert cli.invoke("db", "upgrade", "--db", path).exit_code == 0
    assert sidecars(path) == []  # the writer, closing last, removed them
    return path


def without_root_powers() -> None:
    """In the child before it runs tourney: root keeps its uid but loses CAP_DAC_OVERRIDE, so folder modes bind it."""
    if os.geteuid() == 0 and ctypes.CDLL(None, use_errno=True).prctl(PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, 0, 0, 0):
        raise OSError(ctypes.get_errno(), "cannot drop CAP_DAC_OVERRIDE")


def tourney_bound_by_modes(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess:
    process = cli.spawn(*args, cwd=cwd, preexec_fn=without_root_powers, stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, text=True)
    out, err = process.communicate(timeout=cli.TIMEOUT)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


@pytest.mark.parametrize("command", READ_ONLY, ids=" ".join)
def test_a_read_only_command_leaves_no_wal_or_shm_beside_the_ledger(tmp_path, command):
    """SQLite makes a WAL database's -wal and -shm even for a mode=ro reader, which cannot remove them: tourney has
    SQLite remove them when the reader closes, and the database's bytes are as they were."""
    db = ledger_at(tmp_path / "x.db")
    before = digest(db)
    result = cli.invoke(*command, "--db", db)
    assert result.exit_code in (0, 1), result.output  # standings: no tournament yet, after reading the ledger
    assert sidecars(db) == []
    assert digest(db) == before


def test_a_read_only_command_leaves_a_live_writers_wal_in_place(tmp_path):
    """A writer in another process has the ledger open with an empty -wal: a reader closing does not remove it (SQLite's
    lock says the database is in use), so what the writer commits next is there for every new connection."""
    db = ledger_at(tmp_path / "x.db")
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert writer.stdout.readline() == "open\n"
        assert sidecars(db) == ["-shm", "-wal"] and Path(f"{db}-wal").stat().st_size == 0
        assert cli.invoke("list", "--db", db).exit_code == 0
        assert sidecars(db) == ["-shm", "-wal"]
        writer.stdin.write("write\n")
        writer.stdin.flush()
        assert writer.stdout.readline() == "written\n"
        with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as reader:
            assert reader.execute("PRAGMA user_version").fetchone() == (7,)
    finally:
        writer.communicate("\n", timeout=cli.TIMEOUT)
    assert writer.returncode == 0


SECOND_LEDGER = """
import os, sqlite3, subprocess, sys
from ledger.store import Ledger
first = Ledger(sys.argv[1])
with first.read() as connection:  # a pooled connection stays open, its locks held
    connection.exec_driver_sql("SELECT count(*) FROM events").fetchall()
Ledger(sys.argv[1])  # a second one in the same process reads what the file is first
other = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('SELECT 1 FROM events').fetchall(); c.close()"
subprocess.run([sys.executable, "-c", other, sys.argv[1]], check=True)  # would close last, it if saw no lock
print(sorted(name for name in ("-wal", "-shm") if os.path.exists(sys.argv[1] + name)))
"""


def test_a_second_ledger_opened_in_a_process_keeps_the_first_ones_locks(tmp_path):
    """Reading a file's header with a handle of its own, then closing it, dropped every POSIX lock the process's
    SQLite connections held on the file (https://www.sqlite.org/howtocorrupt.html, 2.2): another process closing
    its connection then took itself for the last and removed the -wal and -shm the first ledger was using. Only
    SQLite opens the file now, so they stay."""
    db = ledger_at(tmp_path / "x.db")
    done = subprocess.run([sys.executable, "-c", SECOND_LEDGER, str(db)], capture_output=True, text=True,
                          timeout=cli.TIMEOUT, cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0, done.stderr
    assert done.stdout == "['-shm', '-wal']\n"


def test_a_fifo_given_as_the_database_is_refused_without_waiting_on_it(tmp_path):
    """A FIFO at --db was opened to read its header, which waits for a writer that never comes: refused at once."""
    fifo = tmp_path / "x.db"
    os.mkfifo(fifo)
    result = cli.invoke("list", "--db", fifo)
    assert (result.exit_code, result.output) == (
        1, f"error: {fifo} is not a regular file: tourney leaves it untouched; give --db a tourney database or a new "
           "file\n")


@pytest.mark.parametrize(("command", "message"), [
    (("db", "upgrade"), "error: no folder {under} for the database x.db: {file} is a file, not a folder\n"),
    (("list",), "error: no database at {under}/x.db: {file} is a file, not a folder\n"),
], ids=["writing", "read-only"])
@pytest.mark.parametrize("depth", ["in", "below"])
def test_a_database_under_a_file_is_refused_naming_the_file(tmp_path, command, message, depth):
    """--db afile/x.db (or afile/sub/x.db), afile a regular file: the error says afile is a file, not a folder."""
    file = tmp_path / "afile"
    file.write_text("notes\n")
    under = file if depth == "in" else file / "sub"
    result = cli.invoke(*command, "--db", under / "x.db")
    assert (result.exit_code, result.output) == (1, message.format(under=under, file=file))
    assert sorted(tmp_path.iterdir()) == [file] and file.read_text() == "notes\n"


@pytest.mark.slow  # a real process each (a second or so), as only a process can lose root's powers
def test_a_new_database_in_a_folder_nothing_can_be_written_in_is_refused_naming_it(tmp_path):
    """A writing command with --db in a folder of mode 555 (root's power over modes taken away): one line naming the
    database and the folder, and nothing made, where SQLite said only "unable to open database file"."""
    folder = tmp_path / "rodir"
    folder.mkdir(mode=0o555)
    result = tourney_bound_by_modes("db", "upgrade", "--db", "rodir/x.db", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (
        1, "error: cannot make the database rodir/x.db: nothing can be written in the folder rodir\n")
    assert list(folder.iterdir()) == []


@pytest.mark.slow
@pytest.mark.parametrize("command", [("list",), ("db", "upgrade")], ids=" ".join)
def test_a_ledger_in_a_folder_nothing_can_be_written_in_is_refused_saying_why(tmp_path, command):
    """SQLite must make the -wal and -shm beside a WAL ledger even to read it: in a folder nothing can be written in,
    the error says so, where it called the ledger "not a readable SQLite database"."""
    folder = tmp_path / "rodir"
    folder.mkdir()
    db = ledger_at(folder / "x.db")
    before = digest(db)
    folder.chmod(0o555)
    result = tourney_bound_by_modes(*command, "--db", "rodir/x.db", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (
        1, "error: cannot read database rodir/x.db: nothing can be written in the folder rodir, and SQLite must make "
           "x.db-wal and x.db-shm there to read a WAL database\n")
    assert digest(db) == before and sidecars(db) == []


@pytest.mark.parametrize("command", [("db", "upgrade"), ("list",), ("keys", "new", "--ledger")], ids=" ".join)
def test_an_sqlite_url_with_query_parameters_is_refused_naming_them(tmp_path, command):
    """sqlite:///x.db?mode=rwc: one line naming the query, and nothing made (no x.db, no x.db?mode=rwc.key)."""
    url = f"sqlite:///{tmp_path}/x.db?mode=rwc"
    result = cli.invoke(*command, "--db", url)
    assert (result.exit_code, result.output) == (
        1, f"error: cannot use database URL '{url}': tourney takes no query parameters (?mode=rwc) on an SQLite URL, "
           "as it opens the file itself; give sqlite:///PATH or the path\n")
    assert list(tmp_path.iterdir()) == []


def test_a_path_with_a_percent_sign_names_that_file_not_the_one_its_decoding_names(tmp_path):
    """--db 'a%20b.db' is the file a%20b.db: another application's database at 'a b.db' is never opened, let alone
    upgraded (the check before opening and the opening named one file, never two)."""
    other = tmp_path / "a b.db"
    with closing(sqlite3.connect(other)) as connection:
        connection.execute("CREATE TABLE notes (text TEXT)")
        connection.commit()
    before = digest(other)
    assert cli.invoke("db", "upgrade", "--db", tmp_path / "a%20b.db").exit_code == 0
    assert cli.invoke("list", "--db", tmp_path / "what?.db").exit_code == 1  # no such file: refused, not "what"
    assert cli.invoke("db", "upgrade", "--db", tmp_path / "what?.db").exit_code == 0
    assert digest(other) == before
    names = {path.name for path in tmp_path.iterdir()}
    assert names == {"a b.db", "a%20b.db", "a%20b.db.key", "a%20b.db.pub", "what?.db", "what?.db.key", "what?.db.pub"}
    assert cli.invoke("list", "--db", tmp_path / "what?.db").exit_code == 0


@pytest.mark.parametrize("emptied", ["DELETE FROM alembic_version", "UPDATE alembic_version SET version_num = ''"],
                         ids=["no-row", "empty-revision"])
@pytest.mark.parametrize("command", [("db", "upgrade"), ("db", "current"), ("list",)], ids=" ".join)
def test_a_ledger_whose_revision_is_missing_is_refused_as_such(tmp_path, emptied, command):
    """Tourney's tables with no revision recorded: one line saying so (never "another application's", never
    "revision ,"), and the file untouched."""
    db = ledger_at(tmp_path / "x.db")
    with closing(sqlite3.connect(db)) as connection:
        connection.execute(emptied)
        connection.commit()
    before = digest(db)
    result = cli.invoke(*command, "--db", db)
    assert (result.exit_code, result.output) == (
        1, f"error: database {db} holds tourney's tables but records no schema revision (alembic_version holds "
           "none): tourney cannot tell which schema they have and leaves it untouched; restore it from a backup, or "
           "write its revision into alembic_version if you know it\n")
    assert digest(db) == before


def test_a_ledger_taken_down_to_base_is_empty_and_upgraded_again(tmp_path):
    """Down to base leaves Alembic's table alone, empty: an empty ledger (`db current`: none), which `db upgrade`
    brings to head, not "another application's database"."""
    db = tmp_path / "x.db"
    ledger = Ledger(str(db))
    ledger.downgrade("base")
    ledger.close()
    current = cli.invoke("db", "current", "--db", db)
    assert current.exit_code == 0 and "revision none (empty)" in current.output
    assert cli.invoke("db", "upgrade", "--db", db).exit_code == 0
    with closing(sqlite3.connect(db)) as connection:
        assert connection.execute("SELECT version_num FROM alembic_version").fetchone() == (Ledger.head(),)
