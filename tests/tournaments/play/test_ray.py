"""The Ray executor (issue 20): `tourney run --executor ray` on a real local Ray cluster of two nodes.

One cluster for the module (two nodes of one CPU each, every process on 127.0.0.1), real
`tourney run` processes that join it with --ray-address, real bwrap sandboxes on the nodes,
real SQLite files. The games a cluster plays are the local executor's games, key by key; a
node removed mid-run loses no game and stores none twice.

These tests need Ray (the test extra installs it) and bwrap: without either they fail, saying so.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

from tests import cli, tiers
from tests.tournaments.play.test_protocol import GRACE, SHIPPED, make_folder, stored_games, wait_gone
from tests.tournaments.play.test_runner import dawdle, descendants
from tournaments.play.preparation import STAGING
from tournaments.sandbox import leftovers, sandbox

pytestmark = [pytest.mark.ray, pytest.mark.sandbox]

GAME = "lemur-tails"
HOSTILE = Path(__file__).resolve().parents[1] / "bots" / "hostile"
BOTS = ("first_legal.sh", "random_program.bot.json", "random_bot.py", "heuristic_lemur_tails.py")
TIMEOUT = 600
RAY_GRACE = 4 * GRACE
"""Seconds to wait for a stopped run's Ray workers (and their bots) to be gone. Not the driver but Ray ends
them: the GCS notices the driver left, marks its job finished and tells each raylet, which kills the job's
workers. Each hop is a few seconds on a loaded 2-core runner; one CI run on a machine running at half speed
(stop 49) had twelve still there after 15 s. An upper bound, never a timing assertion."""
LOOPBACK = {
    # Ray swaps 127.0.0.1 for the machine's address unless told it is not a multi-machine cluster:
    # with this every node, and every driver that joins them, stays on loopback.
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
    "RAY_USAGE_STATS_ENABLED": "0",
}


@contextmanager
def ray_sessions() -> Iterator[str]:
    """A folder for the Ray sessions started within (for RAY_TMPDIR), removed after them: Ray keeps each session's
    folder of sockets and logs, under /tmp/ray by default, for good. Short, as a socket's path must be (107 bytes)."""
    folder = tempfile.mkdtemp(prefix="tourney-ray-")
    try:
        yield folder
    finally:
        for _ in range(10):  # a Ray process that is ending may still write its last log line
            shutil.rmtree(folder, ignore_errors=True)
            if not os.path.exists(folder):
                break
            time.sleep(0.2)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Iterator[object]:
    """A local Ray cluster: a head and one more node, one CPU each, on 127.0.0.1, no dashboard; its processes and
    the module's commands given a temporary folder (TMPDIR) of their own, where the Ray workers stage the bots, and
    Ray its session's folder (ray_sessions)."""
    tiers.require("ray", "a Ray cluster")
    problem = sandbox.unavailable()
    if problem is not None:
        pytest.fail(f"the Ray executor's tests sandbox bots on every node and need a working bwrap: {problem}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Ray's own deprecations are not this suite's to fix
            from ray.cluster_utils import Cluster
    except ImportError:
        pytest.fail("the Ray executor's tests need Ray: pip install -e '.[test]' (it installs tourney[ray])")
    with pytest.MonkeyPatch.context() as patch, ray_sessions() as sessions:
        for name, value in LOOPBACK.items():
            patch.setenv(name, value)
        patch.setenv("RAY_TMPDIR", sessions)
        patch.setenv("TMPDIR", str(tmp_path_factory.mktemp("tmpdir")))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            started = Cluster(initialize_head=True, connect=False,
                              head_node_args={"num_cpus": 1, "node_ip_address": "127.0.0.1",
                                              "include_dashboard": False})
        try:
            started.add_node(num_cpus=1, node_ip_address="127.0.0.1")
            started.wait_for_nodes()
            yield started
        finally:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                started.shutdown()


def bots_folder(tmp_path: Path, *, dawdling: bool = False) -> Path:
    """The shipped Lemur Tails bots: a shell program, a manifest with its script in a subfolder, two Python bots.
    ``dawdling``: random_bot.py is the dawdler (a quarter second before each game's first move), so the half of
    the games it plays keep a run going for seconds after its first games are stored."""
    folder = tmp_path / "bots"
    folder.mkdir()
    for name in BOTS:
        shutil.copy(SHIPPED / name, folder / name)
    shutil.copytree(SHIPPED / "programs", folder / "programs")
    if dawdling:
        dawdle(folder / "random_bot.py")
    return folder


def run_args(folder: Path, db: Path, games: int, *extra: str, sandboxed: str = "on") -> list[str]:
    return [*cli.COMMAND, "run", str(folder), "--game", GAME, "--games", str(games),
            "--seed", "20", "--sandbox", sandboxed, "--move-time", "5", "--json", "--db", str(db), *extra]


def environment() -> dict[str, str]:
    return {**os.environ, **LOOPBACK}


def games_of(db: Path) -> dict[str, tuple]:
    """Per game key: the bots by seat, their ranks, how it ended, and its game_ended data but the opening
    (the hash of game_started, whose seed commitment is salted afresh each time a game is recorded)."""
    return {key: (game.bots, game.ranking, game.reason, {k: v for k, v in game.ended.items() if k != "opening"})
            for key, game in stored_games(db).items()}


def verified(db: Path, cwd: Path) -> subprocess.CompletedProcess:
    return cli.tourney("replay", "verify", "--db", str(db), "-q", timeout=TIMEOUT, cwd=cwd)


@pytest.mark.slow
def test_a_two_node_cluster_plays_the_local_executors_games_and_standings(cluster, tmp_path):
    """For one seed, the Ray executor on two nodes stores the very games (key by key: seats, ranks,
    ending) and standings the local executor does, every bot in its sandbox on whichever node."""
    folder = bots_folder(tmp_path)
    local, ray = tmp_path / "local.db", tmp_path / "ray.db"
    here = subprocess.run(run_args(folder, local, 1, "--jobs", "2"), capture_output=True, text=True,
                          timeout=TIMEOUT, cwd=tmp_path, env=environment())
    assert here.returncode == 0, here.stderr
    there = subprocess.run(run_args(folder, ray, 1, "--executor", "ray", "--ray-address", cluster.address),
                           capture_output=True, text=True, timeout=TIMEOUT, cwd=tmp_path, env=environment())
    assert there.returncode == 0, there.stderr
    games = games_of(ray)
    assert len(games) == 12  # 4 bots, 6 pairs, 1 deal from both seats
    assert games == games_of(local)
    assert all(reason != "forfeit" for _, _, reason, _ in games.values()), games
    ours, theirs = json.loads(there.stdout), json.loads(here.stdout)
    assert ours["sandboxed"] and ours["standings"] == theirs["standings"]
    check = verified(ray, tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr


@pytest.mark.slow
def test_the_staged_bots_a_ray_worker_leaves_are_removed_by_the_next_run_once_it_is_gone(cluster, tmp_path):
    """Each Ray worker unpacks the bots into a staging folder named for its process; Ray ends a job's workers with
    SIGKILL once the driver leaves, so the folders outlive them, and the next tourney run on the node that stages
    bots removes them (tournaments.play.preparation.sweep_staging), nothing else of theirs left in TMPDIR."""
    staging = Path(os.environ["TMPDIR"])
    before = set(staging.iterdir())
    folder = bots_folder(tmp_path)
    there = subprocess.run(run_args(folder, tmp_path / "ray.db", 1, "--executor", "ray", "--ray-address",
                                    cluster.address), capture_output=True, text=True, timeout=TIMEOUT, cwd=tmp_path,
                           env=environment())
    assert there.returncode == 0, there.stderr
    made = set(staging.iterdir()) - before
    owners = {leftovers.parse(path.name, STAGING) for path in made}
    assert made and None not in owners, made  # the driver's own staging went with it: these are the workers'
    deadline = time.monotonic() + RAY_GRACE
    while not all(leftovers.gone(*owner) for owner in owners):
        assert time.monotonic() < deadline, f"Ray's workers outlived the run that used them: {sorted(owners)}"
        time.sleep(0.1)
    assert set(staging.iterdir()) >= made
    here = subprocess.run(run_args(folder, tmp_path / "local.db", 1, "--jobs", "1"), capture_output=True, text=True,
                          timeout=TIMEOUT, cwd=tmp_path, env=environment())
    assert here.returncode == 0, here.stderr
    assert made.isdisjoint(staging.iterdir())


@pytest.mark.slow
def test_a_node_removed_mid_run_loses_no_game_and_stores_none_twice(cluster, tmp_path):
    """A node that joined the cluster removed (its raylet and workers killed) while it plays: Ray
    plays its games again on the nodes left, and every game of the schedule is stored exactly once, and verifies
    (without the sandbox: the Python bots play inside Ray's worker processes, the programs beside them)."""
    folder = bots_folder(tmp_path, dawdling=True)
    db = tmp_path / "ray.db"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        doomed = cluster.add_node(num_cpus=1, node_ip_address="127.0.0.1")  # a third node, to lose
        cluster.wait_for_nodes()
    process = subprocess.Popen(run_args(folder, db, 4, "--executor", "ray", "--ray-address", cluster.address,
                                        sandboxed="off"),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                               env=environment())
    try:
        deadline = time.monotonic() + TIMEOUT
        while not (db.exists() and stored_count(db) >= 1):
            assert process.poll() is None, process.communicate()[1]
            assert time.monotonic() < deadline, "no game was stored"
            time.sleep(0.2)
        cluster.remove_node(doomed, allow_graceful=False)
        removed_at = stored_count(db)
        out, err = process.communicate(timeout=TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
        if doomed in cluster.worker_nodes:
            cluster.remove_node(doomed)
    assert process.returncode == 0, err
    assert removed_at < 48, "the run was over before the node went: nothing was tested"
    keys = [key for key, _ in stored_keys(db)]
    assert len(keys) == len(set(keys)) == 48  # 6 pairs, 4 deals from both seats: each once
    assert json.loads(out)["standings"]
    check = verified(db, tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr


@pytest.mark.slow
def test_ctrl_c_under_ray_exits_130_keeps_whole_games_and_leaves_no_task_or_bot_running(cluster, tmp_path):
    """Ctrl-C (SIGINT to the run's process group, as a terminal sends it) while games play on the cluster:
    exit 130 with the one "interrupted" line, every stored game complete and verifying, and the Ray workers
    that were playing and their sandboxed bots all gone."""
    folder = bots_folder(tmp_path, dawdling=True)
    db = tmp_path / "ray.db"
    process = subprocess.Popen(run_args(folder, db, 4, "--executor", "ray", "--ray-address", cluster.address),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                               env=environment(), start_new_session=True)
    try:
        deadline = time.monotonic() + TIMEOUT
        while True:  # some games stored, and games in flight with their bots running
            assert process.poll() is None, process.communicate()[1]
            assert time.monotonic() < deadline, "no game was stored while others played"
            players = playing_workers()
            bots = [pid for worker in players for pid in descendants(worker)]
            if stored_count(db) >= 2 and bots:
                break
            time.sleep(0.05)
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130, err
    stored = stored_count(db)
    assert 0 < stored < 48, "the run was over before Ctrl-C: nothing was tested"
    assert err.splitlines()[-1] == (f"interrupted: {stored} of 48 games stored; continue with the same command "
                                    "plus --resume"), err
    assert "Traceback" not in err, err
    left: list[str] = []
    assert wait_gone(players + bots, RAY_GRACE, left) == [], ("a Ray worker or a bot outlived the interrupted run:\n"
                                                              + "\n".join(left))
    # a worker may have taken the next game between the last look and the signal: Ray stops it when the driver
    # goes, a moment later; a worker still playing after the grace is a leak
    assert still_playing(RAY_GRACE) == [], "a Ray worker kept playing a game of the interrupted run"
    assert {game.reason for game in stored_games(db).values()} <= {"finished", "forfeit"}
    check = verified(db, tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr


@pytest.mark.slow
def test_an_unsandboxed_bot_that_kills_its_ray_worker_is_replayed_then_stops_the_run_naming_the_game(cluster,
                                                                                                    tmp_path):
    """With --sandbox off a Python bot plays inside the Ray worker: one that SIGKILLs its own process takes the
    worker with it, so Ray plays the game again from its seed; after four losses the run stops with one line
    naming the game and --resume (docs/scaling.md), and no half game is stored."""
    folder = tmp_path / "bots"
    folder.mkdir()
    shutil.copy(HOSTILE / "kill_own_process.py", folder / "kill_own_process.py")
    shutil.copy(SHIPPED / "random_bot.py", folder / "random_bot.py")
    db = tmp_path / "ray.db"
    ran = subprocess.run(run_args(folder, db, 1, "--executor", "ray", "--ray-address", cluster.address,
                                  sandboxed="off"),
                         capture_output=True, text=True, timeout=TIMEOUT, cwd=tmp_path, env=environment())
    assert ran.returncode == 1, ran.stdout + ran.stderr
    last = ran.stderr.strip().splitlines()[-1]
    assert re.fullmatch(r"error: game t0-d0-r[01] was lost on the Ray cluster 4 times \(\w+\); continue with "
                        r"the same command plus --resume", last), ran.stderr
    assert "Traceback" not in ran.stderr
    with closing(sqlite3.connect(db)) as connection:  # both games seat the killer: neither is stored, nor half
        assert connection.execute("SELECT COUNT(*) FROM games").fetchone() == (0,)


def playing_workers() -> list[int]:
    """The Ray worker processes playing a game now (Ray titles a worker by the task it runs)."""
    out = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if cmdline.read_bytes().startswith(b"ray::play_remote"):
                out.append(int(cmdline.parent.name))
        except OSError:
            continue
    return out


def still_playing(timeout: float = GRACE) -> list[int]:
    """The Ray workers still playing a game after up to ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while (players := playing_workers()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return players


def stored_count(db: Path) -> int:
    return len(stored_keys(db))


def stored_keys(db: Path) -> list[tuple[str, int]]:
    """Every stored game's key (with its tournament id), duplicates kept; none while there is no schema."""
    try:
        with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)) as connection:
            return list(connection.execute("SELECT game_key, tournament_id FROM games"))
    except sqlite3.OperationalError:  # no file yet, or its schema is still being created
        return []


@pytest.mark.parametrize("command", ["run", "match"])
def test_the_ray_executor_without_ray_is_one_line_error(tmp_path, command):
    """`tourney run` or `match` with `--executor ray` where Ray cannot be imported: `error: ...` naming
    tourney[ray], exit 1, no game played."""
    folder = bots_folder(tmp_path)
    db = tmp_path / "t.db"
    hide_ray = ("import sys; sys.modules['ray'] = None; sys.argv[0] = 'tourney'; "
                "from tournaments.cli import main; main()")
    what = [str(folder)] if command == "run" else ["random_bot", "first_legal", "--bots", str(folder)]
    done = subprocess.run([sys.executable, "-c", hide_ray, command, *what, "--game", GAME, "--executor", "ray",
                           "--db", str(db)], capture_output=True, text=True, timeout=TIMEOUT, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: "), done.stderr
    assert "tourney[ray]" in done.stderr
    assert stored_count(db) == 0


@pytest.mark.parametrize(("options", "code", "words"), [
    (["--executor", "cluster"], 2, "'cluster' is not one of local, ray"),
    (["--executor", "ray", "--jobs", "2"], 2, "--jobs is for --executor local"),
    (["--ray-address", "127.0.0.1:6379"], 2, "--ray-address is for --executor ray only"),
])
def test_executor_options_that_do_not_fit_are_refused_in_one_line(tmp_path, options, code, words):
    """An unknown executor, --jobs with Ray, or --ray-address without it: usage errors (2), each in one line, before
    any game is played."""
    folder = bots_folder(tmp_path)
    db = tmp_path / "t.db"
    done = cli.tourney("run", str(folder), "--game", GAME, *options,
                       "--db", str(db), timeout=TIMEOUT, cwd=tmp_path)
    assert done.returncode == code, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: ") and words in done.stderr, done.stderr
    assert stored_count(db) == 0


@pytest.mark.slow
def test_verify_on_the_cluster_prints_what_the_local_pool_prints(cluster, tmp_path):
    """`replay verify --executor ray` on two nodes, of a database (two games tampered) and of a folder of its
    logs (one forged): line for line what `--jobs 1` prints, failures named by game in the ledger's order.
    108 games, so that they go out in several batches (replays.verify_many.batches)."""
    folder = make_folder(tmp_path, good=4)
    db = tmp_path / "league.db"
    played = subprocess.run(run_args(folder, db, 9, "--jobs", "2", "--name", "league", sandboxed="off"),
                            capture_output=True, text=True, timeout=TIMEOUT, cwd=tmp_path, env=environment())
    assert played.returncode == 0, played.stderr
    with closing(sqlite3.connect(db)) as connection:
        ids = [row[0] for row in connection.execute("SELECT id FROM games ORDER BY created_at, id")]
        assert len(ids) == 108
        tampered = [ids[20], ids[90]]
        connection.executemany("UPDATE seats SET rank = 3 - rank WHERE game_id = ?", [(i,) for i in tampered])
        connection.commit()
    logs = tmp_path / "logs"
    exported = cli.tourney("replay", "export", "--tournament",
                           "league", "--out", str(logs), "--db", str(db), timeout=TIMEOUT, cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    forged_path = sorted(logs.glob("*.json"))[50]
    forged = json.loads(forged_path.read_text())
    forged["result"]["ranking"].reverse()
    forged_path.write_text(json.dumps(forged))
    timing = re.compile(r" in [0-9.]+ s \([0-9,]+ events/s\)")
    for source in (["--db", str(db)], [str(logs)]):
        outputs = []
        for where in (["--jobs", "1"], ["--executor", "ray", "--ray-address", cluster.address]):
            done = cli.tourney("replay", "verify", *source, *where, timeout=TIMEOUT, cwd=tmp_path, env=environment())
            assert done.returncode == 1, done.stderr
            outputs.append((timing.sub("", done.stdout), done.stderr))
        assert outputs[0] == outputs[1]
        failing = [line.split(": ")[0] for line in outputs[0][1].splitlines()]
        expected = ([f"FAIL game {game_id}" for game_id in tampered] if source[0] == "--db"
                    else [f"FAIL {forged_path}"])
        assert failing[:len(expected)] == expected, outputs[0][1]
        assert outputs[0][0].count("\nok   ") >= 105
