"""The real `tourney` process on a PostgreSQL ledger: a small tournament, its standings and the verification of
every stored game, with the same standings as the same tournament on an SQLite file; logs exported from
PostgreSQL and imported into it again; a ladder from creation to rebuild."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests import cli
from tests.backends import fresh_postgres_database, server_url

pytestmark = pytest.mark.postgres

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT.parent / "bots"
GAME = "lemur-tails"


def tourney(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return cli.tourney(*args, cwd=cwd, timeout=300, env={**os.environ, "TOURNEY_DB": str(cwd / "unused.db"),
                                                         "TOURNEY_LEDGER_KEY": str(cwd / "ledger.key")})


def bots_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "bots"
    folder.mkdir()
    for name in ("random_bot.py", "heuristic_lemur_tails.py"):
        shutil.copy(BOTS / name, folder / name)
    return folder


def run_and_verify(db: str, folder: Path, cwd: Path) -> dict:
    """`run`, `standings --json` and `replay verify --db` on ``db``; the standings as printed."""
    ran = tourney("run", str(folder), "--game", GAME, "--games", "2", "--seed", "11", "--jobs", "2",
                  "--sandbox", "off", "--name", "cup", "--db", db, cwd=cwd)
    assert ran.returncode == 0, ran.stderr
    standings = tourney("standings", "cup", "--json", "--db", db, cwd=cwd)
    assert standings.returncode == 0, standings.stderr
    verified = tourney("replay", "verify", "--db", db, "--tournament", "cup", cwd=cwd)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert ": all passed" in verified.stdout.splitlines()[-1], verified.stdout
    return json.loads(standings.stdout)


@pytest.mark.slow
def test_a_tournament_on_postgres_stores_verifies_and_ranks_as_on_sqlite(tmp_path):
    """`tourney run`, `standings` and `replay verify --db` work on PostgreSQL, with SQLite's standings."""
    folder = bots_folder(tmp_path)
    on_sqlite = run_and_verify(str(tmp_path / "cup.db"), folder, tmp_path)
    with fresh_postgres_database() as database:
        on_postgres = run_and_verify(server_url(database), folder, tmp_path)
    # The checkpoint's root covers the games' heads, which hash their (random) game ids: it differs run to run.
    integrity = on_postgres.pop("integrity"), on_sqlite.pop("integrity")
    assert [i["checkpoint"]["games"] for i in integrity] == [4, 4]
    assert on_postgres == on_sqlite
    assert not (tmp_path / "unused.db").exists()


@pytest.mark.slow
def test_logs_move_between_postgres_and_sqlite(tmp_path):
    """Games exported from a PostgreSQL ledger import into SQLite, and SQLite's exports import into PostgreSQL."""
    folder = bots_folder(tmp_path)
    assert tourney("run", str(folder), "--game", GAME, "--games", "1", "--seed", "3", "--jobs", "0",
                   "--sandbox", "off", "--name", "cup", "--db", str(tmp_path / "a.db"), cwd=tmp_path).returncode == 0
    assert tourney("replay", "export", "--tournament", "cup", "--out", "from-sqlite", "--db", str(tmp_path / "a.db"),
                   cwd=tmp_path).returncode == 0
    with fresh_postgres_database() as database:
        url = server_url(database)
        imported = tourney("replay", "import", "from-sqlite", "--db", url, cwd=tmp_path)
        assert imported.returncode == 0, imported.stderr
        again = tourney("replay", "import", "from-sqlite", "--db", url, cwd=tmp_path)
        assert again.returncode == 0, again.stderr
        exported = tourney("replay", "export", "--tournament", "imported-lemur-tails", "--out", "from-postgres",
                           "--db", url, cwd=tmp_path)
        assert exported.returncode == 0, exported.stderr
    assert sorted(p.read_bytes() for p in (tmp_path / "from-postgres").glob("*.json")) == sorted(
        p.read_bytes() for p in (tmp_path / "from-sqlite").glob("*.json"))
    assert len(list((tmp_path / "from-postgres").glob("*.json"))) == 2


@pytest.mark.slow
def test_a_ladder_on_postgres_plays_and_rebuilds(tmp_path):
    """`ladder create`, `submit`, `play`, `standings` and `rebuild` work on PostgreSQL; rebuild equals incremental."""
    with fresh_postgres_database() as database:
        url = server_url(database)
        steps = [("ladder", "create", "spring", "--game", GAME),
                 ("ladder", "submit", "spring", str(BOTS / "random_bot.py")),
                 ("ladder", "submit", "spring", str(BOTS / "heuristic_lemur_tails.py")),
                 ("ladder", "play", "spring", "--games", "2", "--jobs", "1"),
                 ("ladder", "standings", "spring", "--json"),
                 ("ladder", "rebuild", "spring")]
        outputs = []
        for step in steps:
            done = tourney(*step, "--db", url, cwd=tmp_path)
            assert done.returncode == 0, f"{step}: {done.stderr}"
            outputs.append(done.stdout)
    assert "played 2 games on spring" in outputs[3]
    assert sorted(entry["bot"] for entry in json.loads(outputs[4])) == ["heuristic_lemur_tails",
                                                                                    "random_bot"]
    assert "equal the incremental ones" in outputs[5]
