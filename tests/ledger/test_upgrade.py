"""Revision 0012 on a ledger the release before it made (tests/ledger/fixtures/previous_release.py): every finished
game sealed, the game still playing left as rows, and what tourney reads back unchanged, on both backends; the
downgrade writes the rows back."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from sqlalchemy import Integer
from sqlmodel import SQLModel

from ledger.store import Ledger
from tests.backends import Backend
from tests.tamper import fetch, invoke

FIXTURES = Path(__file__).parent / "fixtures"
READ = json.loads((FIXTURES / "previous-release.json").read_text())
FINISHED = 5
"""Two Lemur Tails games, two Tails on Fire, one imported (the sixth is still playing)."""


def previous_release(backend: Backend, tmp_path: Path) -> None:
    """The previous release's ledger in ``backend``, at revision 0011: the SQLite file itself, or on PostgreSQL
    its rows copied as they are into a database that revisions 0001-0011 made."""
    for suffix in (".key", ".pub"):
        shutil.copy(FIXTURES / f"previous-release{suffix}", backend.key.with_suffix(suffix))
    source = tmp_path / "previous-release.db"
    source.write_bytes(gzip.decompress((FIXTURES / "previous-release.db.gz").read_bytes()))
    if backend.path is not None:
        shutil.copy(source, backend.path)
        return
    Ledger(backend.url, upgrade=False).upgrade("0011")
    with closing(sqlite3.connect(source)) as old, backend.raw() as new:
        present = {row[0] for row in old.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        for table in SQLModel.metadata.sorted_tables:
            if table.name not in present:
                continue
            cursor = old.execute(f"SELECT * FROM {table.name}")
            columns = [column[0] for column in cursor.description]
            rows = cursor.fetchall()
            if rows:
                new.cursor().executemany(
                    f"INSERT INTO {table.name} ({', '.join(columns)}) VALUES ({', '.join(['%s'] * len(columns))})",
                    rows)
            if "id" in columns and rows and isinstance(table.c.id.type, Integer):  # its sequence goes on past them
                new.execute(f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                            f"(SELECT MAX(id) FROM {table.name}))")
        new.commit()


def read_back(backend: Backend, tmp_path: Path) -> dict:
    """What the fixture's JSON holds, read now: standings (the parts the games decide), exports' SHA-256, verify."""
    out = tmp_path / "exports"
    shutil.rmtree(out, ignore_errors=True)
    for (game_id,) in fetch(backend, "SELECT id FROM games"):
        assert invoke("replay", "export", game_id, "--out", str(out), "--db", backend.url).exit_code == 0
    verified = invoke("replay", "verify", "--db", backend.url, "--quiet")
    return {
        "standings": {name: games_decide(json.loads(invoke("standings", name, "--json", "--db", backend.url).stdout))
                      for name in READ["standings"]},
        "exports": {path.stem: hashlib.sha256(path.read_bytes()).hexdigest() for path in sorted(out.glob("*.json"))},
        "verify": summary(verified.output.strip().splitlines()[-1]),
    }


def games_decide(standings: dict) -> dict:
    """The standings' parts the stored games decide (their rating maths may change apart from the storage)."""
    rows = [{key: row[key] for key in ("bot", "games", "first", "forfeits", "mean_place")}
            for row in standings["standings"]]
    return {"games": standings["games"], "rows": rows, "head_to_head": standings["head_to_head"],
            "integrity": standings["integrity"]}


def summary(line: str) -> str:
    """verify's last line without its timing."""
    counted, _took, verdict = line.partition(" in ")[0], None, line.partition(": ")[2]
    return f"{counted}: {verdict}"


EXPECTED = {"standings": {name: games_decide(found) for name, found in READ["standings"].items()},
            "exports": READ["exports"], "verify": summary(READ["verify"])}


def test_the_previous_release_read_its_ledger_as_the_fixture_says():
    """The fixture is whole: five finished games and one still playing, each exported, every game verified."""
    assert len(READ["exports"]) == FINISHED + 1
    assert EXPECTED["verify"].startswith("verified 6 games") and "all passed; 1 game still playing" in READ["verify"]


@pytest.mark.slow
def test_upgrading_seals_every_finished_game_and_reads_back_the_same(backend, tmp_path):
    """`tourney db upgrade` upgrades the old ledger: its five finished games become sealed blocks and lose their rows,
    the game still playing keeps its rows, the read models count them (revision 0013: the ledger alone cannot, it
    never parses an event); standings, every export (byte for byte) and verify are what the old release read.
    Down to 0011 the rows come back, and read the same again."""
    previous_release(backend, tmp_path)
    rows_before = fetch(backend, "SELECT COUNT(*) FROM events")[0][0]
    upgraded = invoke("db", "upgrade", "--db", backend.url)
    assert upgraded.exit_code == 0 and f"counted {FINISHED} stored games into the read models" in upgraded.stdout
    assert fetch(backend, "SELECT COUNT(*) FROM sealed_games") == [(FINISHED,)]
    assert fetch(backend, "SELECT DISTINCT game_id FROM events") == [("still-playing",)]
    assert read_back(backend, tmp_path) == EXPECTED
    old = Ledger(backend.url, upgrade=False)
    old.downgrade("0011")
    old.close()
    assert fetch(backend, "SELECT COUNT(*) FROM events") == [(rows_before,)]
    assert invoke("db", "upgrade", "--db", backend.url).exit_code == 0
    assert read_back(backend, tmp_path) == EXPECTED
