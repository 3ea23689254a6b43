"""The README's main job on a fresh clone, timed: `pip install . && tourney run bots/ --game tails-on-fire`.

What a new user does, in a temporary folder: clone the repository (its committed HEAD), make a
virtual environment, `pip install .` into it, then run the main job in the clone, sandboxed as
it is by default. Each step's wall time is printed, and the total against the goal of issue 31
(at most 60 s on an idle 2-core machine, the install included), as on 2026-12-01 (docs/benchmarks.md
has the other runs, some on a busy machine):

    main job: clone=0.1 s venv=2.3 s install=7.0 s run=21.0 s total=30.4 s (goal: at most 60 s, met)
    main job: 40 games, sandboxed, 5 bots, 0 forfeits; ratio total/goal: 0.51
    main job: load average 0.1 at the start, 1.2 at the end, on 2 CPUs; CPUs 1% busy before the start

The last line says how busy the machine was: on a shared, loaded one every step stretches, and the
goal is for an idle machine. The load average lags (a run a minute before, this bench's own included,
still counts in it), so "busy" is judged by the share of CPU time in use in the second before the start
(at least a quarter: busy).

An absolute time, not a ratio of two things in one run: it is the user's wait. pip's cache and
the network decide the install's part (a first install on a new machine downloads the wheels);
run it twice and keep the second for the cached figure. Usage:

    python bench/main_job.py [--repo PATH] [--python PYTHON] [--keep] [--games N]

``--games N`` adds ``--games N`` to the run (deals per table; the README's command plays tourney run's default,
2): a shorter job than the user's, for the bench's own test, whose figure is not the goal's.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL_SECONDS = 60.0
COMMAND = ["tourney", "run", "bots/", "--game", "tails-on-fire"]


def timed(command: list[str], cwd: Path) -> tuple[float, str]:
    """Wall seconds of ``command`` run to the end in ``cwd``, and its output; SystemExit if it fails."""
    began = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited with {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return seconds, done.stdout + done.stderr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", default=str(ROOT), help="the repository to clone (default: this one)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter of the new virtual environment")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder and print where it is")
    parser.add_argument("--games", type=int, help="deals per table of the run (default: the README's command as "
                        "written, which plays tourney run's default)")
    args = parser.parse_args()
    load = os.getloadavg()
    before = busy_share()
    folder = Path(tempfile.mkdtemp(prefix="tourney-main-job-"))
    try:
        clone, venv = folder / "tourney", folder / "venv"
        clone_s, _ = timed(["git", "clone", "--quiet", args.repo, str(clone)], folder)
        venv_s, _ = timed([args.python, "-m", "venv", str(venv)], folder)
        install_s, _ = timed([str(venv / "bin" / "pip"), "install", "--quiet", "."], clone)
        games = [] if args.games is None else ["--games", str(args.games)]
        run_s, output = timed([str(venv / "bin" / COMMAND[0]), *COMMAND[1:], *games], clone)
        _, stored = timed([str(venv / "bin" / "tourney"), "standings", "1", "--json"], clone)
        forfeits = sum(row.get("forfeits", 0) for row in json.loads(stored)["standings"])
    finally:
        if args.keep:
            print(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    total = clone_s + venv_s + install_s + run_s
    # A forfeited game is over at once: a bot that cannot play (say, its sandbox hides what it imports) makes the
    # run fast and the figure worthless.
    verdict = (f"NOT met: {forfeits} games forfeited, the games were not played" if forfeits
               else f"not judged: --games {args.games} is not the README's job" if args.games is not None
               else "met" if total <= GOAL_SECONDS else "NOT met")
    print(f"main job: clone={clone_s:.1f} s venv={venv_s:.1f} s install={install_s:.1f} s run={run_s:.1f} s "
          f"total={total:.1f} s (goal: at most {GOAL_SECONDS:.0f} s, {verdict})")
    header = re.search(r": (\d+) bots, \d+ per table, ([\d,]+) games \(0 already stored\), [^,]+, "
                       r"((?:not )?sandboxed[^\n]*)", output)
    shape = f"{header.group(2)} games, {header.group(3)}, {header.group(1)} bots" if header else "(no header found)"
    print(f"main job: {shape}, {forfeits} forfeits; ratio total/goal: {total / GOAL_SECONDS:.2f}")
    cpus = len(os.sched_getaffinity(0))
    # The load average lags by a minute (a run just before, its own install included, still shows in it): whether
    # the machine was busy is the share of its CPU time others used in the second before the start.
    busy = before is not None and before >= BUSY_SHARE
    print(f"main job: load average {load[0]:.1f} at the start, {os.getloadavg()[0]:.1f} at the end, on {cpus} CPUs"
          + ("" if before is None else f"; CPUs {before:.0%} busy before the start")
          + (": a busy machine, where the goal does not apply; measure it idle" if busy else ""))


BUSY_SHARE = 0.25
"""The share of the machine's CPU time, used by other processes just before the start, above which it is busy."""


def busy_share(seconds: float = 1.0) -> float | None:
    """The share of all CPUs' time spent other than idle over the next ``seconds`` (/proc/stat; None without it)."""
    def sample() -> tuple[int, int]:
        fields = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        return sum(fields[:8]), fields[3] + fields[4]  # all time but guests (counted in user), idle + iowait

    try:
        total, idle = sample()
        time.sleep(seconds)
        total_after, idle_after = sample()
    except (OSError, ValueError, IndexError):
        return None
    spent = total_after - total
    return (spent - (idle_after - idle)) / spent if spent > 0 else None


if __name__ == "__main__":
    main()
