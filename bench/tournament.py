"""Tournament throughput: the same random-bot games in memory and through `tourney run`, one run.

A bots folder of copies of bots/random_bot.py plays a Tails on Fire round robin (one table
of four), the same scheduled games three ways:

* in memory: the runner's per-game path in this process (in-process bots with their time
  limits, the driver, every event sealed into its log), nothing stored;
* ``tourney run --jobs 1`` (a worker plays, the parent stores each game in SQLite);
* ``tourney run --jobs 2``.

Both runs are unsandboxed (``--sandbox off``: Python bots in the workers): this measures the
runner and the ledger; what the sandbox adds is bench/sandbox.py's.

A command has a fixed cost (start-up, imports, opening or creating the database, the final
standings with their bootstrap), so each command runs twice, with SMALL and with N deals,
and its rate is the marginal one: (games(N) - games(SMALL)) / (time(N) - time(SMALL)). The
fixed cost is printed too. Rounds alternate the three ways; the best of each is kept. The
speed-up of --jobs 2 over --jobs 1 comes next, and the last line is the ratio of
`tourney run --jobs 1` to in memory:

    in memory: 312 games/s
    tourney run --jobs 1: 290 games/s (fixed cost 2.1 s)
    tourney run --jobs 2: 330 games/s (fixed cost 2.5 s)
    speed-up --jobs 2 over --jobs 1: 1.14
    ratio: 0.93

Usage: python bench/tournament.py [--games N] [--small S] [--rounds R]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tournaments.bots.discovery import discover  # noqa: E402 (after the sys.path line)
from tournaments.bots.spec import Limits  # noqa: E402 (after the sys.path line)
from tournaments.play.runner import Job, Spec, play_job  # noqa: E402
from tournaments.play.schedule import schedule  # noqa: E402

GAME = "tails-on-fire"
SEATS = 4


def bots_folder(directory: Path) -> Path:
    folder = directory / "bots"
    folder.mkdir()
    for i in range(SEATS):
        shutil.copy(ROOT / "bots" / "random_bot.py", folder / f"random{i}.py")
    return folder


def in_memory(folder: Path, deals: int) -> tuple[float, int]:
    bots, _ = discover(folder, GAME)
    limits = Limits()
    spec = Spec(GAME, SEATS, deals, "bench", limits.move_time, limits.time_bank, tuple(bots))
    jobs = [Job(spec, scheduled) for scheduled in schedule([b.name for b in bots], SEATS, deals, "bench")]
    began = time.perf_counter()
    for job in jobs:
        play_job(job, in_worker=True)  # the bots in this process, as a worker plays them unsandboxed
    return time.perf_counter() - began, len(jobs)


def through_cli(folder: Path, deals: int, jobs: int, db: Path) -> float:
    command = [sys.executable, "-m", "tournaments", "run", str(folder), "--game", GAME, "--games", str(deals),
               "--seed", "bench", "--jobs", str(jobs), "--db", str(db), "--json", "--sandbox", "off"]
    began = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="deals of the long run (each played 4 times)")
    parser.add_argument("--small", type=int, default=10, help="deals of the short run")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    games_long, games_small = args.games * SEATS, args.small * SEATS
    best_memory = float("inf")
    best = {1: (float("inf"), 0.0), 2: (float("inf"), 0.0)}  # per jobs: (seconds per game, fixed cost)
    with tempfile.TemporaryDirectory() as directory:
        folder = bots_folder(Path(directory))
        for round_ in range(args.rounds):
            took, count = in_memory(folder, args.games)
            best_memory = min(best_memory, took / count)
            for jobs in (1, 2):
                long = through_cli(folder, args.games, jobs, Path(directory) / f"long-{round_}-{jobs}.db")
                short = through_cli(folder, args.small, jobs, Path(directory) / f"short-{round_}-{jobs}.db")
                per_game = (long - short) / (games_long - games_small)
                if per_game < best[jobs][0]:
                    best[jobs] = (per_game, short - per_game * games_small)
    memory = 1 / best_memory
    jobs1, jobs2 = 1 / best[1][0], 1 / best[2][0]
    print(f"in memory: {memory:.0f} games/s")
    print(f"tourney run --jobs 1: {jobs1:.0f} games/s (fixed cost {best[1][1]:.1f} s)")
    print(f"tourney run --jobs 2: {jobs2:.0f} games/s (fixed cost {best[2][1]:.1f} s)")
    print(f"speed-up --jobs 2 over --jobs 1: {jobs2 / jobs1:.2f}")
    print(f"ratio: {jobs1 / memory:.2f}")


if __name__ == "__main__":
    main()
