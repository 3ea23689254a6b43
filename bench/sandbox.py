"""What the sandbox costs a tournament: the same games with and without it, one run.

Two copies of bots/random_bot.py play Lemur Tails games (the runner's per-game path, in this
process, one game at a time, nothing stored), three ways:

* off: ``--sandbox off`` in a worker, where Python bots play inside the worker's process;
* process: each bot a process of its own through pyhost, without the sandbox (``--sandbox
  off --jobs 0``): what a bot process costs, bwrap aside;
* on: each bot a process through pyhost in a bubblewrap sandbox of its own, as a run plays by
  default: with a cgroup of its own where the machine offers them (frozen between its turns,
  timed by its CPU time) and the seccomp filter.

Rounds alternate the three ways, the best rate of each is kept. A game's cost with the
sandbox is mostly starting a fresh Python per bot per game (no state may last from one game to
the next); the last line is the ratio of on to off:

    sandbox: process=3.9 games/s
    sandbox: off=61.0 on=3.1 games/s ratio: 0.051

Usage: python bench/sandbox.py [--games N] [--rounds R]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tournaments.bots import sandbox  # noqa: E402 (after the sys.path line)
from tournaments.bots.spec import Confinement, Limits, Resources  # noqa: E402
from tournaments.play import runner  # noqa: E402
from tournaments.play.schedule import schedule  # noqa: E402

GAME = "lemur-tails"


def rate(folder: Path, games: int, confinement: Confinement, in_worker: bool) -> float:
    """Games per second of ``games`` games played one after another in this process."""
    prepared, k = runner.prepare(folder, GAME, None, Limits(), confinement)
    with prepared:
        spec = runner.Spec(GAME, k, games, "bench", 1.0, 5.0, tuple(prepared.bots), sandbox=confinement.sandbox,
                           clock=confinement.clock, ponder=confinement.ponder)
        jobs = [runner.Job(spec, scheduled) for scheduled in schedule(spec.bot_names, k, games, "bench")][:games]
        began = time.perf_counter()
        for job in jobs:
            result = runner.play_job(job, in_worker=in_worker)
            assert result.recorded.reason == "finished", result.recorded.reason
        return len(jobs) / (time.perf_counter() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    problem = sandbox.unavailable()
    if problem is not None:
        sys.exit(f"error: {problem}")
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory) / "bots"
        folder.mkdir()
        for name in ("a", "b"):
            shutil.copy(ROOT / "bots" / "random_bot.py", folder / f"random_{name}.py")
        ways = {"off": (Confinement(False), True), "process": (Confinement(False), False),
                "on": (Confinement(True, Resources(), *sandbox.timing()), False)}
        best = dict.fromkeys(ways, 0.0)
        for _ in range(args.rounds):
            for way, (confinement, in_worker) in ways.items():
                best[way] = max(best[way], rate(folder, args.games, confinement, in_worker))
    print(f"sandbox: {sandbox.describe(ways['on'][0])}")
    print(f"sandbox: process={best['process']:.1f} games/s")
    print(f"sandbox: off={best['off']:.1f} on={best['on']:.1f} games/s ratio: {best['on'] / best['off']:.3f}")


if __name__ == "__main__":
    main()
