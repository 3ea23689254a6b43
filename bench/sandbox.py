"""What the sandbox costs a tournament: the same games with and without it, one run.

Two copies of bots/random_bot.py play Lemur Tails games (the runner's per-game path, in this
process, one game at a time, nothing stored), three ways:

* off: ``--sandbox off`` in a worker, where Python bots play inside the worker's process;
* process: each bot a process of its own through pyhost, without the sandbox (``--sandbox
  off --jobs 0``): what a bot process costs, bwrap aside;
* on: each bot a process through pyhost in a bubblewrap sandbox of its own, as a run plays by
  default: with a cgroup of its own where the machine offers them (frozen between its turns,
  timed by its CPU time) and the seccomp filter.

Then two copies of bots/programs/random_player.py run as a program (a manifest naming
``python3 programs/random_player.py``), two ways: off (``--sandbox off``: a plain process per bot
per game) and on (sandboxed, as a run plays by default).

Rounds alternate the ways, the best rate of each is kept. The lines (docs/benchmarks.md has runs):

    sandbox: sandboxed, cgroup v1, seccomp, cpu clock, no pondering
    sandbox: process=3.9 games/s
    sandbox: off=61.0 on=3.1 games/s ratio: 0.051
    sandbox: program off=20.0 on=15.0 games/s ratio: 0.750

Usage: python bench/sandbox.py [--games N] [--rounds R]
"""

from __future__ import annotations

import argparse
import json
import os
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
        programs = Path(directory) / "programs"
        programs.mkdir()
        shutil.copytree(ROOT / "bots" / "programs", programs / "programs")
        # The system's python3 where there is one: a version manager's shim on PATH would time its own start.
        python = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
        for name in ("a", "b"):
            manifest = {"name": f"program_{name}", "command": [python, "programs/random_player.py"]}
            (programs / f"program_{name}.bot.json").write_text(json.dumps(manifest))
        on = Confinement(True, Resources(), *sandbox.timing())
        ways = {"off": (folder, Confinement(False), True), "process": (folder, Confinement(False), False),
                "on": (folder, on, False), "program off": (programs, Confinement(False), True),
                "program on": (programs, on, False)}
        best = dict.fromkeys(ways, 0.0)
        for _ in range(args.rounds):
            for way, (bots, confinement, in_worker) in ways.items():
                best[way] = max(best[way], rate(bots, args.games, confinement, in_worker))
    print(f"sandbox: {sandbox.describe(on)}")
    print(f"sandbox: process={best['process']:.1f} games/s")
    print(f"sandbox: off={best['off']:.1f} on={best['on']:.1f} games/s ratio: {best['on'] / best['off']:.3f}")
    print(f"sandbox: program off={best['program off']:.1f} on={best['program on']:.1f} games/s ratio: "
          f"{best['program on'] / best['program off']:.3f}")


if __name__ == "__main__":
    main()
