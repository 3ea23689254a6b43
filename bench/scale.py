"""How `tourney run` scales: games per second with 1 and 2 local workers and on a 2-node Ray cluster.

The bots are four program bots that think a fixed 2 ms per move (bench/bots/thinker.py: a
stand-in for a real engine with a time budget, not a random bot that answers at once), each
in its own bubblewrap sandbox per game, playing Tails on Fire, four to a table. Each way runs
the real command in a process of its own on a fresh SQLite file:

* local1: ``tourney run --jobs 1``;
* local2: ``tourney run --jobs 2``;
* ray2: ``tourney run --executor ray --ray-address ...`` on a local Ray cluster of two nodes
  of one CPU each (``ray.cluster_utils.Cluster``, every process on 127.0.0.1, started once,
  before the timing).

The rate is the steady state: games stored from the first stored game to the last, over the
time between them (the database is polled), so the command's start (imports, the bots'
handshakes, joining the cluster) is left out. The last line is the contract:

    scale: local1=1.9 local2=3.6 ray2=3.3 games/s speedup: 1.89

where speedup is local2 / local1 (goal 1.7 on a 2-core machine, and ray2 at least 0.8 x local2).

Usage: python bench/scale.py [--deals N] [--rounds R]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import warnings
from contextlib import closing
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
GAME = "tails-on-fire"
BOTS = ("thinker_a", "thinker_b", "thinker_c", "thinker_d")
LOOPBACK = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}
"""Every Ray process on 127.0.0.1 (Ray would otherwise use the machine's address), no usage reports."""


def bots_folder(root: Path) -> Path:
    folder = root / "bots"
    folder.mkdir()
    shutil.copy(ROOT / "bench" / "bots" / "thinker.py", folder / "thinker.py")
    shutil.copy(ROOT / "bots" / "programs" / "random_player.py", folder / "random_player.py")
    # random_player.py is named so that it is one of each bot's own files (thinker.py imports it)
    command = ["python3", "-S", "thinker.py", "random_player.py"]
    for name in BOTS:
        (folder / f"{name}.bot.json").write_bytes(orjson.dumps({"command": command, "games": [GAME]}))
    return folder


def stored(db: Path) -> int:
    try:
        with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)) as connection:
            return connection.execute("SELECT count(*) FROM games WHERE status = 'finished'").fetchone()[0]
    except sqlite3.OperationalError:  # not created yet
        return 0


def forfeits(db: Path) -> int:
    """Forfeited games stored in ``db`` (their end reason, which reads check against their hashed seat_forfeited)."""
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)) as connection:
        return connection.execute("SELECT count(*) FROM games WHERE end_reason = 'forfeit'").fetchone()[0]


def rate(folder: Path, work: Path, deals: int, *extra: str) -> tuple[float, float]:
    """Games per second of one `tourney run`, from its first stored game to its last; and the CPU
    seconds per game of the command and every process it waited for (its workers and their bots;
    not Ray's workers, which are the cluster's)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    db = work / f"scale-{time.monotonic_ns()}.db"
    games = deals * len(BOTS)
    command = [sys.executable, "-m", "tournaments", "run", str(folder), "--game", GAME, "--games", str(deals),
               "--sandbox", "on", "--json", "--db", str(db), *extra]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=work,
                               env={**os.environ, **LOOPBACK})
    first = last = None
    count = 0
    try:
        while count < games and process.poll() is None:
            time.sleep(0.02)
            now, count = time.perf_counter(), stored(db)
            if first is None and count >= 1:
                first = (now, count)
            last = (now, count)
        error = process.communicate()[1]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    if process.returncode != 0 or first is None or last is None or last[1] != games:
        sys.exit(f"error: `{' '.join(command)}` failed: {error.decode(errors='replace').strip()}")
    forfeited = forfeits(db)
    if forfeited:  # a forfeited game ends at once: the rate would be the failure's, not the games'
        sys.exit(f"error: `{' '.join(command)}`: {forfeited} bots forfeited, so the figure would not count")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return (last[1] - first[1]) / (last[0] - first[0]), cpu / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=12, help="deals per run (4 games each: every seat rotation)")
    parser.add_argument("--rounds", type=int, default=2, help="runs of each way; the best rate of each is kept")
    args = parser.parse_args()
    os.environ.update(LOOPBACK)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from ray.cluster_utils import Cluster

        cluster = Cluster(initialize_head=True, connect=False,
                          head_node_args={"num_cpus": 1, "node_ip_address": "127.0.0.1", "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=1, node_ip_address="127.0.0.1")
        cluster.wait_for_nodes()
        ways = {"local1": ("--jobs", "1"), "local2": ("--jobs", "2"),
                "ray2": ("--executor", "ray", "--ray-address", cluster.address)}
        best = dict.fromkeys(ways, 0.0)
        with tempfile.TemporaryDirectory(prefix="tourney-scale-") as directory:
            work = Path(directory)
            folder = bots_folder(work)
            for _ in range(args.rounds):
                for way, extra in ways.items():
                    measured, cpu = rate(folder, work, args.deals, *extra)
                    print(f"  {way}: {measured:.2f} games/s, {cpu * 1000:.0f} ms CPU per game here, "
                          f"load {os.getloadavg()[0]:.1f}", file=sys.stderr)
                    best[way] = max(best[way], measured)
    finally:
        cluster.shutdown()
    print(f"scale: local1={best['local1']:.2f} local2={best['local2']:.2f} ray2={best['ray2']:.2f} games/s "
          f"speedup: {best['local2'] / best['local1']:.2f}")


if __name__ == "__main__":
    main()
