"""Ladder workers that scale out: two real `tourney ladder work` processes feed one ladder on PostgreSQL, one of
them is killed with SIGKILL in the middle of a match, and the other claims that match again once its lease has run
out: every match is stored exactly once, nothing the killed worker started outlives it, SIGTERM stops the other
one cleanly, and the ratings rebuilt from the games equal the incremental ones. And a `ladder play` stopped with
Ctrl-C ends its session: what it had not played is cancelled, and its secret seed is revealed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from ledger.rows import match_rows
from ledger.store import Ledger
from tests import cli
from tests.backends import fresh_postgres_database, server_url

ROOT = Path(__file__).resolve().parents[3]
THOUGHTFUL = Path(__file__).resolve().parents[1] / "bots" / "thoughtful.py"
GAME = "lemur-tails"
LEASE = "3"
NAMES = {1: "thinker", 2: "random"}
"""The ladder's entries, by id, in the order they are submitted."""


def tourney(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    done = cli.tourney(*args, cwd=ROOT, timeout=300, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def worker(url: str, env: dict[str, str], log: Path) -> subprocess.Popen:
    """A `ladder work` process: sessions of 8 games, one game at a time, a 3 s lease, no end but a signal."""
    with log.open("w") as out:  # the child keeps its own copy of the descriptor
        return cli.spawn("ladder", "work", "duo", "--games", "8",
                         "--jobs", "1", "--lease", LEASE, "--idle", "0.5", "--move-time", "2", "--db", url,
                         stdout=out, stderr=subprocess.STDOUT, cwd=ROOT, env=env)


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (its pool, the sandboxes, the bots), read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pids: set[int]) -> set[int]:
    out = set()
    for pid in pids:
        try:
            state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            out.add(pid)
    return out


def held_by(ledger: Ledger, pid: int) -> set[int]:
    """The matches the worker process ``pid`` is playing (a worker's name is host:pid:nonce)."""
    return {m["id"] for m in match_rows.matches(ledger, 1) if m["status"] == "playing" and
            m["worker"].split(":")[1] == str(pid)}


def wait_for(condition, what: str, timeout: float = 120.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.mark.slow
@pytest.mark.postgres
def test_a_worker_killed_mid_match_loses_nothing_and_stores_nothing_twice(tmp_path):
    """Two workers on one PostgreSQL ladder; SIGKILL one while it plays a match: the other re-claims that match
    after its lease (a second attempt, stored by the survivor), every stored match has exactly its games, no game
    is stored twice, the killed worker's processes are gone, and `ladder rebuild` finds the incremental ratings."""
    env = {**os.environ, "TOURNEY_LEDGER_KEY": str(tmp_path / "ledger.key"), "TOURNEY_DB": str(tmp_path / "no.db"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    with fresh_postgres_database() as database:
        url = server_url(database)
        tourney("ladder", "create", "duo", "--game", GAME, "--db", url, env=env)
        for bot, name in ((THOUGHTFUL, "thinker"), (ROOT / "bots" / "random_bot.py", "random")):
            tourney("ladder", "submit", "duo", str(bot), "--as", name, "--move-time", "2", "--db", url, env=env)
        ledger = Ledger(url)
        ladder = 1
        first = worker(url, env, tmp_path / "first.log")
        try:
            wait_for(lambda: held_by(ledger, first.pid), "the first worker to claim a match")
            second = worker(url, env, tmp_path / "second.log")
            try:
                # Mid-match: the first worker's bots are running (its pool and their sandboxes are up).
                wait_for(lambda: len(descendants(first.pid)) >= 3, "the first worker's games to start")
                started = descendants(first.pid)
                first.send_signal(signal.SIGKILL)
                first.wait(timeout=30)
                wait_for(lambda: not alive(started), "the killed worker's processes to end", timeout=30)
                killed = held_by(ledger, first.pid)  # what it held when it died
                assert killed
                wait_for(lambda: all(m["status"] == "stored" for m in match_rows.matches(ledger, ladder)
                                     if m["id"] in killed), "the killed worker's matches to be stored again")
            finally:
                second.send_signal(signal.SIGTERM)
                assert second.wait(timeout=60) == 130, (tmp_path / "second.log").read_text()
        finally:
            if first.poll() is None:
                first.kill()
        second_log = (tmp_path / "second.log").read_text()
        assert "interrupted" in second_log, second_log
        queue = json.loads(tourney("ladder", "queue", "duo", "--all", "--json", "--db", url, env=env).stdout)
        assert queue == [{**m, "table": [f"{NAMES[e]} v1" for e in m.pop("entries")]}
                         for m in match_rows.matches(ledger, ladder)]
        by_id = {m["id"]: m for m in queue}
        for match in killed:  # claimed again by the survivor, stored by it alone
            assert by_id[match]["attempts"] == 2 and by_id[match]["worker"].split(":")[1] == str(second.pid)
        assert not [m for m in queue if m["status"] == "playing"]  # SIGTERM gave the survivor's back
        with ledger.read() as connection:
            keys = [row[0] for row in connection.exec_driver_sql(
                "SELECT g.game_key FROM ladder_games l JOIN games g ON g.id = l.game_id ORDER BY l.seq")]
            unfinished = connection.exec_driver_sql("SELECT COUNT(*) FROM games WHERE status <> 'finished'").scalar()
        assert unfinished == 0
        assert not [key for key, count in Counter(keys).items() if count > 1]
        stored = {(m["session"], m["deal"]) for m in queue if m["status"] == "stored"}
        assert sorted(keys) == sorted(f"s{s}-d{d}-r{r}" for s, d in stored for r in range(2))
        ledger.close()
        rebuilt = tourney("ladder", "rebuild", "duo", "--db", url, env=env)
        assert "equal the incremental ones" in rebuilt.stdout, rebuilt.stdout
        verified = tourney("replay", "verify", "--db", url, "--ladder", "duo", env=env)
        assert "all passed" in verified.stdout, verified.stdout


@pytest.mark.slow
def test_ladder_play_stopped_with_ctrl_c_cancels_what_is_left_and_reveals_its_seed(tmp_path):
    """SIGINT to a real `ladder play` mid-session: exit 130 saying how many games count; its session is over with
    its drawn seed revealed, every match of it is stored or cancelled (none left queued or held, so no later worker
    plays them), the stored games are exactly the stored matches' and verify."""
    env = {**os.environ, "TOURNEY_LEDGER_KEY": str(tmp_path / "ledger.key"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    db = str(tmp_path / "league.db")
    tourney("ladder", "create", "duo", "--game", GAME, "--db", db, env=env)
    for bot, name in ((THOUGHTFUL, "thinker"), (ROOT / "bots" / "random_bot.py", "random")):
        tourney("ladder", "submit", "duo", str(bot), "--as", name, "--move-time", "2", "--db", db, env=env)
    ledger = Ledger(db)
    play = cli.spawn("ladder", "play", "duo", "--games", "40", "--jobs",
                     "1", "--move-time", "2", "--db", db, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     text=True, cwd=ROOT, env=env)
    try:
        wait_for(lambda: any(m["status"] == "stored" for m in match_rows.matches(ledger, 1)), "a stored match")
        play.send_signal(signal.SIGINT)
        out, err = play.communicate(timeout=60)
    finally:
        if play.poll() is None:
            play.kill()
    assert play.returncode == 130, out + err
    stored = [m for m in match_rows.matches(ledger, 1) if m["status"] == "stored"]
    assert f"interrupted: {2 * len(stored)} games stored and rated on duo" in err, err
    assert {m["status"] for m in match_rows.matches(ledger, 1)} == {"stored", "cancelled"}
    with ledger.read() as connection:
        keys = sorted(row[0] for row in connection.exec_driver_sql(
            "SELECT g.game_key FROM ladder_games l JOIN games g ON g.id = l.game_id"))
        (session,) = connection.exec_driver_sql("SELECT seed, ended_at, planned, deals FROM ladder_sessions").all()
    assert keys == sorted(f"s1-d{m['deal']}-r{r}" for m in stored for r in range(2))
    seed, ended, planned, deals = session
    assert ended is not None and f"session 1 is over: seed revealed: {seed[:16]}… (`tourney replay verify" in out
    assert planned == 2 * deals < 40  # it queues no more
    ledger.close()
    verified = tourney("replay", "verify", "--db", db, "--ladder", "duo", env=env)
    assert "all passed" in verified.stdout and "not revealed" not in verified.stdout, verified.stdout
