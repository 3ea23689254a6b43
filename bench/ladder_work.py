"""How ladder workers scale out: games per second of one `tourney ladder work` process and of two on one ladder.

The ladder is a Tails on Fire ladder of four seats with the four program bots of bench/scale.py
(each thinks a fixed 2 ms per move; bench/bots/thinker.py), every bot in its own bubblewrap
sandbox per game, as every ladder plays. Each way runs real `tourney ladder work --rounds 1
--jobs 1` processes on the same ladder, started together:

* work1: one worker;
* work2: two workers, which share the session's matches through the queue (docs/ladders.md).

The rate is the steady state: ladder games stored from the first to the last (the database is
polled), so the start of the processes is left out. The ledger is PostgreSQL when the libpq
variables name a server (run it as `.ci/with-services python bench/ladder_work.py`, which starts a
throwaway one), else an SQLite file. The last line is the contract:

    ladder: work1=N work2=N games/s speedup: X

where speedup is work2 / work1 (on a 2-core machine the goal is what two local workers give
`tourney run`, bench/scale.py: 1.7).

Usage: python bench/ladder_work.py [--deals N] [--rounds R]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.scale import BOTS, GAME, bots_folder  # noqa: E402 (after the sys.path line)
from ledger.store import Ledger  # noqa: E402


def tourney(*args: str, env: dict[str, str]) -> None:
    done = subprocess.run([sys.executable, "-m", "tournaments", *args], capture_output=True, text=True, cwd=ROOT,
                          env=env)
    if done.returncode != 0:
        sys.exit(f"error: `tourney {' '.join(args)}` failed: {done.stderr.strip() or done.stdout.strip()}")


def stored(ledger: Ledger) -> int:
    with ledger.read() as connection:
        return connection.exec_driver_sql("SELECT COUNT(*) FROM ladder_games").scalar()


def forfeits(ledger: Ledger) -> int:
    """Forfeited games stored (their end reason, which reads check against their hashed seat_forfeited): a
    forfeited game ends at once, so any voids a rate."""
    with ledger.read() as connection:
        return connection.exec_driver_sql("SELECT COUNT(*) FROM games WHERE end_reason = 'forfeit'").scalar()


def rate(url: str, ladder: str, workers: int, deals: int, env: dict[str, str]) -> float:
    """Ladder games per second stored by ``workers`` `ladder work` processes playing one session of ``deals`` deals."""
    ledger = Ledger(url)
    start = stored(ledger)
    games = deals * len(BOTS)
    command = [sys.executable, "-m", "tournaments", "ladder", "work", ladder, "--rounds", "1", "--jobs", "1",
               "--games", str(games), "--db", url]
    processes = [subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT, env=env)]
    time.sleep(1.0)  # the first opens the session; the others join it
    processes += [subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT, env=env)
                  for _ in range(workers - 1)]
    first = last = None
    try:
        while any(p.poll() is None for p in processes):
            time.sleep(0.05)
            now, count = time.perf_counter(), stored(ledger) - start
            if first is None and count >= 1:
                first = (now, count)
            if count > (last or (0, 0))[1]:
                last = (now, count)
        errors = [p.communicate()[1].decode(errors="replace").strip() for p in processes]
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    forfeited = forfeits(ledger)
    ledger.close()
    if any(p.returncode != 0 for p in processes) or first is None or last is None or last[1] < games:
        sys.exit(f"error: `{' '.join(command)}` failed: {' / '.join(e for e in errors if e) or 'too few games'}")
    if forfeited:
        sys.exit(f"error: `{' '.join(command)}`: {forfeited} bots forfeited, so the figure would not count")
    if last[0] == first[0]:  # one match's games are stored in one transaction: a rate needs two stores
        sys.exit(f"error: all {last[1]} games were stored at once, so there is no rate: give --deals 2 or more")
    return (last[1] - first[1]) / (last[0] - first[0])


def database(work: Path) -> str:
    if not os.environ.get("PGHOST"):
        return f"sqlite:///{work / 'ladder.db'}"
    import psycopg

    name = f"tourney_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dbname="postgres", autocommit=True) as server:
        server.execute(f'CREATE DATABASE "{name}"')
    user, host, port = (os.environ.get(k, d) for k, d in (("PGUSER", "postgres"), ("PGHOST", "127.0.0.1"),
                                                          ("PGPORT", "5432")))
    return f"postgresql+psycopg://{user}@{host}:{port}/{name}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=12, help="deals per session (4 games each: every rotation)")
    parser.add_argument("--rounds", type=int, default=2, help="runs of each way; the best rate of each is kept")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tourney-ladder-work-") as directory:
        work = Path(directory)
        env = {**os.environ, "TOURNEY_LEDGER_KEY": str(work / "ledger.key"), "XDG_CACHE_HOME": str(work / "cache")}
        url = database(work)
        folder = bots_folder(work)
        tourney("ladder", "create", "bench", "--game", GAME, "--players", "4", "--db", url, env=env)
        for name in BOTS:
            tourney("ladder", "submit", "bench", str(folder / f"{name}.bot.json"), "--db", url, env=env)
        best = {1: 0.0, 2: 0.0}
        for _ in range(args.rounds):
            for workers in best:
                measured = rate(url, "bench", workers, args.deals, env)
                print(f"  work{workers}: {measured:.2f} games/s, load {os.getloadavg()[0]:.1f} ({url.split(':')[0]})",
                      file=sys.stderr)
                best[workers] = max(best[workers], measured)
    print(f"ladder: work1={best[1]:.2f} work2={best[2]:.2f} games/s speedup: {best[2] / best[1]:.2f}")


if __name__ == "__main__":
    main()
