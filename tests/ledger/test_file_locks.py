"""Only SQLite opens a ledger's files while a command has the ledger open: a handle of tourney's own on the database,
closed, drops every POSIX lock the process's SQLite connections hold on it (the locks are the process's,
https://www.sqlite.org/howtocorrupt.html, 2.2), and another process then takes its connection for the last and removes
the -wal and -shm in use. A file a command is given that is the database, or a file SQLite keeps beside it, is refused
unread, and never written over."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from tests import cli

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "lemur-tails.json"

HELD = """
import json, os, subprocess, sys
from typer.testing import CliRunner
from ledger.store import Ledger
from tournaments.cli import app
db, args = sys.argv[1], sys.argv[2:]
held = Ledger(db)
with held.read() as connection:  # a pooled connection stays open, its locks held, as a league server's
    connection.exec_driver_sql("SELECT count(*) FROM events").fetchall()
result = CliRunner().invoke(app, args)  # the command, in the process that holds the ledger open
other = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('SELECT 1 FROM events').fetchall(); c.close()"
subprocess.run([sys.executable, "-c", other, db], check=True)  # would close last, if it saw no lock
print(json.dumps(sorted(name for name in ("-wal", "-shm") if os.path.exists(db + name))))
print(result.exit_code)
print(result.output, end="")
"""
"""A process holding the ledger open runs a tourney command in itself; another process then opens the ledger and
closes: it removes the -wal and -shm only if it sees no lock of the first (what is printed first)."""


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def ledger_at(path: Path) -> Path:
    assert cli.invoke("db", "upgrade", "--db", path).exit_code == 0
    return path


def run_held(db: Path, *args: str | Path) -> tuple[list[str], int, list[str]]:
    """``tourney ARGS`` in a process that holds ``db`` open: the -wal and -shm left once another process has opened
    and closed it, the exit code, and the command's lines."""
    done = subprocess.run([sys.executable, "-c", HELD, str(db), *map(str, args)], capture_output=True, text=True,
                          timeout=cli.TIMEOUT, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    left, code, *lines = done.stdout.splitlines()
    return json.loads(left), int(code), lines


def test_the_database_and_its_wal_and_shm_given_to_import_are_refused_unread(tmp_path):
    """`replay import *` in the ledger's folder names the database, its -wal and its -shm beside the logs: each is a
    FAIL line, never read as a log (reading one dropped the process's locks on it, and the -wal and -shm in use went
    with the next process to close), and the logs are stored."""
    db = ledger_at(tmp_path / "x.db")
    log = tmp_path / "a.json"
    log.write_bytes(GOLDEN.read_bytes())
    left, code, lines = run_held(db, "replay", "import", db, f"{db}-shm", f"{db}-wal", log, "--db", db)
    assert left == ["-shm", "-wal"]
    assert (code, lines) == (1, [
        f"FAIL {db}: the database {db}, not a log: only SQLite opens it",
        f"FAIL {db}-shm: the -shm of the database {db}, not a log: only SQLite opens it",
        f"FAIL {db}-wal: the -wal of the database {db}, not a log: only SQLite opens it",
        f"{log}: game lemur-tails stored in imported-lemur-tails",
        "4 logs read, 1 new game stored",
        "error: 3 of 4 logs failed (each named above) and stored nothing",
    ])


def test_a_deal_book_that_is_the_database_is_refused_unread(tmp_path):
    """`run --deals x.db --db x.db`: the book is read with the ledger open, so the database given as the book is
    refused before a byte of it is read, and the -wal and -shm in use stay."""
    db = ledger_at(tmp_path / "x.db")
    left, code, lines = run_held(db, "run", tmp_path, "--game", "lemur-tails", "--deals", db, "--db", db)
    assert left == ["-shm", "-wal"]
    assert (code, lines) == (1, [f"error: {db}: the database {db}, not a deal book: only SQLite opens it"])


def test_a_page_is_never_written_over_the_database_it_is_read_from(tmp_path):
    """`replay html GAME --db x.db -o x.db` wrote the page over the ledger it had open (every game lost): refused in
    one line, the ledger as it was."""
    db = tmp_path / "x.db"
    assert cli.invoke("replay", "import", GOLDEN, "--db", db).exit_code == 0
    before = digest(db)
    result = cli.tourney("replay", "html", "lemur-tails", "--db", db, "-o", db)
    assert (result.returncode, result.stdout, result.stderr) == (
        1, "", f"error: --out {db} is the database {db}, which the game is read from: no page is written over it\n")
    assert digest(db) == before
    assert cli.invoke("list", "--db", db).exit_code == 0
