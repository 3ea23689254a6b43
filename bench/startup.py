"""What starting the command line costs: `tourney --version` beside a bare `python -c pass`, one run.

Each round starts both, alternating, as child processes of this one, and reads the CPU time
(user + system) each child used from the kernel (os.wait4), so the load of a shared machine
adds little to either; the best of the rounds of each is kept. `tourney --version` goes
through the console script's entry point (`python -m tournaments`, the same code), so the
difference is what tourney's imports cost (issue 30.5: goal within 0.25 s of CPU):

    startup: python=12 ms tourney=115 ms ratio: 9.6
    startup: tourney - python = 103 ms of CPU (goal: at most 250)

Then a new SQLite ledger, made in one step from migrations/head_sqlite.sql (migrations/schema.py) beside the
same ledger made by running every Alembic revision in turn, and beside opening a ledger already at head; each a
child that imports the ledger and opens one file (the import is in all three):

    startup: new ledger: made=913 ms revisions=1384 ms at-head=803 ms ratio: 1.5

Usage: python bench/startup.py [--rounds R]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
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
    new_ledger(args.rounds)


OPEN = "import sys; from ledger.store import Ledger; Ledger(sys.argv[1]).close()"
BY_REVISIONS = ("import sys; from ledger.store import Ledger; from migrations import HEAD; "
                "ledger = Ledger(sys.argv[1], upgrade=False); ledger.upgrade(HEAD); ledger.close()")
"""Upgrading to HEAD by its name, not "head": the way through Alembic that a new file took before."""


def new_ledger(rounds: int) -> None:
    made_ms, revisions_ms, head_ms = [], [], []
    with tempfile.TemporaryDirectory() as folder:
        for round_ in range(rounds):
            made, by_revisions = Path(folder, f"made{round_}.db"), Path(folder, f"revisions{round_}.db")
            made_ms.append(cpu_ms([sys.executable, "-c", OPEN, str(made)]))
            revisions_ms.append(cpu_ms([sys.executable, "-c", BY_REVISIONS, str(by_revisions)]))
            head_ms.append(cpu_ms([sys.executable, "-c", OPEN, str(made)]))
    made, revisions, head = min(made_ms), min(revisions_ms), min(head_ms)
    print(f"startup: new ledger: made={made:.0f} ms revisions={revisions:.0f} ms at-head={head:.0f} ms "
          f"ratio: {revisions / made:.1f}")


if __name__ == "__main__":
    main()
