"""Verification on every core (issue 30): `replay verify --jobs N` prints what `--jobs 0` prints, line for line.

The games are cut into batches that worker processes verify (replays.verify_many.batches); here every game is a
batch of its own (MIN_PARALLEL lowered to 1), so that several workers really share a dozen games, with
tampered ones among them, on SQLite and on PostgreSQL, from the database and from a folder of logs.
"""

from __future__ import annotations

import json
import os
import re

import pytest

from replays import verify_many as verification
from tests.backends import Backend, copied_ledger
from tests.replays.forgery import real_log
from tests.tamper import fetch, invoke, swap_ranks, tamper
from tests.tournaments.play.test_protocol import make_folder, run
from tournaments.play.executors.choice import Local

TIMING = re.compile(r" in [0-9.]+ s \([0-9,]+ events/s\)")


def build_league(template: Backend) -> None:
    """A finished round robin named league: three random bots, two deals, twelve games."""
    result = run(make_folder(template.key.parent, good=3), template.url, "--name", "league",
                 "--ledger-key", str(template.key), games=2, jobs=0)
    assert result.exit_code == 0, result.output


league_templates, league = copied_ledger("league", build_league)


@pytest.fixture
def one_game_a_batch(monkeypatch):
    monkeypatch.setattr(verification, "MIN_PARALLEL", 1)


def verified(*args: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of `tourney replay verify ARGS`, the summary's timing left out."""
    result = invoke("replay", "verify", *args)
    return result.exit_code, TIMING.sub("", result.stdout), result.stderr


def game_ids(backend: Backend) -> list[str]:
    """The league's games in the order verify reports them (the ledger's own order)."""
    return [row[0] for row in fetch(backend, "SELECT id FROM games ORDER BY created_at, id")]


@pytest.mark.slow
def test_workers_verify_the_games_and_print_what_this_process_prints(league, one_game_a_batch):
    """Two tampered games among twelve, each game a batch: --jobs 1 and --jobs 2 print exactly what --jobs 0
    does (every ok line on stdout, the FAIL lines on stderr, each naming its game, in the ledger's order)."""
    ids = game_ids(league)
    assert len(ids) == 12
    tampered = [ids[3], ids[8]]
    tamper(league, *(swap_ranks(game_id) for game_id in tampered))
    here = verified("--db", league.url, "--jobs", "0")
    assert here[0] == 1
    failures = [line for line in here[2].splitlines() if line.startswith("FAIL")]
    assert [line.split(":")[0] for line in failures] == [f"FAIL game {game_id}" for game_id in tampered], here[2]
    assert all("its row says rank" in line for line in failures), failures
    listed = [line.split(":")[0].removeprefix("ok   game ") for line in here[1].splitlines()
              if line.startswith("ok   game ")]
    assert listed == [game_id for game_id in ids if game_id not in tampered]
    assert "verified 12 games" in here[1] and "2 FAILED" in here[1]
    for jobs in ("1", "2"):
        assert verified("--db", league.url, "--jobs", jobs) == here
    quiet = verified("--db", league.url, "--jobs", "0", "--quiet")
    assert verified("--db", league.url, "--jobs", "2", "--quiet") == quiet


@pytest.mark.slow
def test_a_folder_of_logs_verifies_the_same_on_every_core(league, one_game_a_batch, tmp_path):
    """Exported logs, one made unreadable and one forged: --jobs 2 prints what --jobs 0 does, manifest included."""
    out = tmp_path / "logs"
    exported = invoke("replay", "export", "--tournament", "league", "--out", str(out), "--db", league.url)
    assert exported.exit_code == 0, exported.output
    logs = sorted(out.glob("*.json"))
    logs[2].write_text("not json")
    forged = json.loads(logs[7].read_text())
    forged["result"]["ranking"].reverse()
    logs[7].write_text(json.dumps(forged))
    here = verified(str(out), "--jobs", "0")
    assert here[0] == 1
    failures = [line for line in here[2].splitlines() if line.startswith("FAIL")]
    assert failures[0].startswith(f"FAIL {logs[2]}: ") and failures[1].startswith(f"FAIL {logs[7]}: "), here[2]
    assert any(line.startswith(f"FAIL {out / 'tournament.manifest'}") for line in failures), here[2]
    assert here[1].count("ok   ") == 10
    for jobs in ("1", "2"):
        assert verified(str(out), "--jobs", jobs) == here


def test_verify_takes_no_jobs_with_ray_and_no_negative_jobs(league):
    """--jobs is for the local executor (as for `tourney run`), and never below 0."""
    with_ray = invoke("replay", "verify", "--db", league.url, "--executor", "ray", "--jobs", "2")
    assert with_ray.exit_code == 1 and "--jobs is for --executor local" in with_ray.output, with_ray.output
    negative = invoke("replay", "verify", "--db", league.url, "--jobs", "-1")
    assert negative.exit_code == 2 and "-1 is out of range" in negative.output, negative.output


def numbered(item: int) -> tuple[int, int]:
    return item, os.getpid()


@pytest.mark.slow
def test_the_local_pool_maps_in_worker_processes_in_order():
    """Local(2).imap runs the work in two other processes and gives the results in the items' order."""
    with Local(2) as pool:
        results = list(pool.imap(numbered, list(range(40))))
    assert [item for item, _ in results] == list(range(40))
    pids = {pid for _, pid in results}
    assert os.getpid() not in pids and len(pids) == 2


def test_batches_keep_the_order_and_stay_whole_below_the_threshold():
    """Few games make one batch (verified here); many are cut into up to four batches per worker, in order."""
    assert verification.batches(list(range(10)), 2) == [list(range(10))]
    cut = verification.batches(list(range(1000)), 2)
    assert [item for batch in cut for item in batch] == list(range(1000))
    assert len(cut) == 16 and max(map(len, cut)) == verification.BATCH
    assert len(verification.batches(list(range(200)), 2)) == 8


def test_a_log_whose_game_id_no_manifest_could_list_fails_in_one_line(tmp_path):
    """A log whose game_id is a list (no manifest can name it) fails as its own line, not a traceback."""
    source = real_log("lemur-tails", "unlisted")
    source["game_id"] = ["not", "an", "id"]
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(source))
    code, out, err = verified(str(path))
    listed = json.dumps(source["game_id"], separators=(",", ":"))  # no traceback, no "unhashable type"
    assert code == 1 and err == f"FAIL {path}: field 'game_id' must be a string, found list {listed}\n", err
    assert "verified 1 game in " in out and "none passed, 1 FAILED" in out
