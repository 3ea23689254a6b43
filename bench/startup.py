"""What starting the command line costs: `tourney --version` beside a bare `python -c pass`, one run.

Each round starts both, alternating, as child processes of this one, and reads the CPU time
(user + system) each child used from the kernel (os.wait4), so the load of a shared machine
adds little to either; the best of the rounds of each is kept. `tourney --version` goes
through the console script's entry point (`python -m tournaments`, the same code), so the
difference is what tourney's imports cost (issue 30.5: goal within 0.25 s of CPU):

    startup: python=12 ms tourney=115 ms ratio: 9.6
    startup: tourney - python = 103 ms of CPU (goal: at most 250)

Usage: python bench/startup.py [--rounds R]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL_MS = 250


def cpu_ms(command: list[str]) -> float:
    """CPU milliseconds (user + system) a child running ``command`` used, output discarded."""
    child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited with {child.returncode}")
    return (usage.ru_utime + usage.ru_stime) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    bare = [sys.executable, "-c", "pass"]
    tourney = [sys.executable, "-m", "tournaments", "--version"]
    python_ms, tourney_ms = [], []
    for _ in range(args.rounds):
        python_ms.append(cpu_ms(bare))
        tourney_ms.append(cpu_ms(tourney))
    best_python, best_tourney = min(python_ms), min(tourney_ms)
    print(f"startup: python={best_python:.0f} ms tourney={best_tourney:.0f} ms ratio: {best_tourney / best_python:.1f}")
    extra = best_tourney - best_python
    print(f"startup: tourney - python = {extra:.0f} ms of CPU (goal: at most {GOAL_MS}"
          f"{', met' if extra <= GOAL_MS else ', NOT met'})")


if __name__ == "__main__":
    main()
