"""A bots folder that holds a database, on a file system that marks every file executable (vfat; emulated with chmod
+x): discovery takes no SQLite database for a program bot, nor a file kept beside one (its -wal and -shm, its ledger
key's .key and .pub), and says so in one notice per database. Played by real `tourney run` processes."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

from tests import cli

ROOT = Path(__file__).resolve().parents[2]
GAME = "lemur-tails"
NOTICE = "skipped {}: an SQLite database, not a program (nor are the files kept beside it)"


def played(folder: Path, seed: str) -> tuple[list[str], list[str]]:
    """`tourney run .` in ``folder`` (its ledger there: tourney.db, by default): the bots of its standings, and the
    lines of its stderr that say a file was skipped."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith("TOURNEY_")}
    result = cli.tourney("run", ".", "--game", GAME, "--games", "1", "--jobs", "0", "--sandbox", "off", "--seed", seed,
                         "--json", cwd=folder, env=environment, timeout=180)
    assert result.returncode == 0, result.stderr
    skipped = [line for line in result.stderr.splitlines() if line.startswith("skipped ")]
    return sorted(row["bot"] for row in json.loads(result.stdout)["standings"]), skipped


def test_a_run_in_its_ledgers_folder_takes_no_database_file_for_a_bot(tmp_path):
    """Every file executable: the ledger (open, its -wal and -shm beside it), its key files and another SQLite
    database were taken as program bots (`two bots are named 'tourney'`); now only the two bots play."""
    folder = tmp_path / "duo"
    folder.mkdir()
    for name in ("random_bot.py", "heuristic_lemur_tails.py"):
        shutil.copy(ROOT / "bots" / name, folder / name)
    assert played(folder, "1") == (["heuristic_lemur_tails", "random_bot"], [])
    with closing(sqlite3.connect(folder / "scores.sqlite")) as scores:  # closed, no file beside it: known by header
        scores.execute("CREATE TABLE scores (bot TEXT)")
        scores.commit()
    for path in folder.iterdir():
        path.chmod(path.stat().st_mode | 0o111)
    assert {"tourney.db", "tourney.db.key", "tourney.db.pub", "scores.sqlite"} <= {path.name for path in
                                                                                  folder.iterdir()}
    assert played(folder, "2") == (["heuristic_lemur_tails", "random_bot"],
                                   [NOTICE.format("scores.sqlite"), NOTICE.format("tourney.db")])


def test_a_database_held_open_elsewhere_is_skipped_with_its_wal_and_shm(tmp_path):
    """A WAL database another process has open (its -wal and -shm there while it does), every file executable: none of
    the three is a bot, and the database is skipped in one notice."""
    folder = tmp_path / "duo"
    folder.mkdir()
    for name in ("random_bot.py", "heuristic_lemur_tails.py"):
        shutil.copy(ROOT / "bots" / name, folder / name)
    with closing(sqlite3.connect(folder / "notes.db")) as notes:
        notes.execute("PRAGMA journal_mode=WAL")
        notes.execute("CREATE TABLE notes (line TEXT)")
        notes.commit()
        assert {"notes.db-wal", "notes.db-shm"} <= {path.name for path in folder.iterdir()}
        for path in folder.iterdir():
            path.chmod(path.stat().st_mode | 0o111)
        bots, skipped = played(folder, "1")
        assert notes.execute("SELECT COUNT(*) FROM notes").fetchone() == (0,)
    assert (bots, skipped) == (["heuristic_lemur_tails", "random_bot"], [NOTICE.format("notes.db")])
