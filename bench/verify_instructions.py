"""Instructions spent verifying logs, counted by valgrind's callgrind: the A/B measure for the verifier.

Timing on a shared VM drifts by ±30% within minutes, so a change worth 1% cannot be seen in
bench/verify.py's rates; the number of instructions executed does not drift. This script plays
N random-bot games in memory (fixed seeds: the same games every run), writes their full logs
as JSON text, and verifies each from its text as ``tourney replay verify`` does (parse, then
``verify_log`` with the cycle collector paused). With ``--count`` it runs itself under
callgrind twice, verifying N logs and none, and prints the difference:

    python bench/verify_instructions.py --game nine-tails --logs 6 --count
    nine-tails: verifying 6 logs (15893 events) took 1488 M instructions (94 k per event)

Needs valgrind (``apt install valgrind``). Instructions are not time (an instruction that
misses the cache costs more; valgrind's CPU lacks SHA extensions, so hashing weighs more than
on the real machine), so confirm a kept change with bench/verify.py's ratio too.

``--cache`` runs cachegrind's cache simulation instead (slower) and adds the first-level
cache misses per event, for instructions and for data. A change can cut instructions and
still lose time to misses: hashing each step's events inside the refold, instead of in a
pass of their own, ran 0.35% fewer instructions, 44% more data misses, and slower:

    python bench/verify_instructions.py --game nine-tails --logs 4 --cache
    nine-tails: verifying 4 logs (7970 events) took 752 M instructions (94 k per event); L1 misses per event:
    instructions 1951, data 638

Usage: python bench/verify_instructions.py [--game NAME] [--logs N] [--count | --cache]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.verify import SEATS, recorded_in_memory
from replays import log as logfmt
from replays.verify import collector_paused, verify_log


def texts(game: str, count: int) -> list[bytes]:
    """The full logs of ``count`` seeded random-bot games, as JSON text."""
    return [logfmt.dumps(logfmt.from_recorded(recorded_in_memory(game, f"instructions-{index}")))
            for index in range(count)]


def verify_all(game: str, count: int, verify: bool) -> int:
    """Make the logs (one more, verified first to warm imports and caches); verify them if asked."""
    warm, *logs = texts(game, count + 1)
    verify_log(logfmt.parse(warm))
    if verify:
        for text in logs:
            with collector_paused():
                verify_log(logfmt.parse(text))
    return sum(len(logfmt.parse(text)["events"]) for text in logs)


COUNTS = {
    "instructions": r"Collected : (\d+)",  # callgrind
    "refs": r"I\s+refs:\s+([\d,]+)",  # cachegrind: instructions
    "I1": r"I1\s+misses:\s+([\d,]+)",
    "D1": r"D1\s+misses:\s+([\d,]+)",
}


def counted(game: str, count: int, verify: bool, cache: bool) -> dict[str, int]:
    """Run this script under valgrind (callgrind, or cachegrind simulating the caches); its totals."""
    tool = ["--tool=cachegrind", "--cache-sim=yes", "--cachegrind-out-file=/dev/null"] if cache else [
        "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    command = ["valgrind", *tool, sys.executable, __file__, "--game", game, "--logs", str(count)]
    command += [] if verify else ["--no-verify"]
    # A fixed string-hash seed: with Python's random one, the count moves by ~0.2% run to run.
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    totals = totals_of(done.stderr)
    if totals is None:
        sys.exit(f"no instruction count in valgrind's output: {done.stderr.strip()[-200:]}")
    return totals


def totals_of(report: str) -> dict[str, int] | None:
    """The counts in valgrind's summary (``instructions``, and ``I1``/``D1`` misses from cachegrind)."""
    totals = {}
    for name, pattern in COUNTS.items():
        found = re.search(pattern, report)
        if found is not None:
            totals[name] = int(found.group(1).replace(",", ""))
    if "instructions" not in totals and "refs" not in totals:
        return None
    totals["instructions"] = totals.pop("refs", None) or totals["instructions"]
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(SEATS), default="nine-tails")
    parser.add_argument("--logs", type=int, default=6)
    parser.add_argument("--count", action="store_true", help="run under callgrind and print the instructions")
    parser.add_argument("--cache", action="store_true", help="run under cachegrind: instructions and L1 misses")
    parser.add_argument("--no-verify", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not (args.count or args.cache):
        events = verify_all(args.game, args.logs, not args.no_verify)
        print(f"{args.game}: {args.logs} logs, {events} events")
        return
    try:
        with_verify = counted(args.game, args.logs, True, args.cache)
        without = counted(args.game, args.logs, False, args.cache)
    except FileNotFoundError:
        sys.exit("valgrind is not installed (apt install valgrind)")
    events = verify_all(args.game, args.logs, False)
    spent = {name: with_verify[name] - without[name] for name in with_verify}
    line = (f"{args.game}: verifying {args.logs} logs ({events} events) took {spent['instructions'] / 1e6:.0f} M "
            f"instructions ({spent['instructions'] / events / 1e3:.0f} k per event)")
    if args.cache:
        line += f"; L1 misses per event: instructions {spent['I1'] / events:.0f}, data {spent['D1'] / events:.0f}"
    print(line)


if __name__ == "__main__":
    main()
