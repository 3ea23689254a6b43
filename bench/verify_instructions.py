"""Instructions spent verifying logs, counted by valgrind's callgrind: the A/B measure for the verifier.

Timing on a shared VM drifts by ±30% within minutes, so a change worth 1% cannot be seen in
bench/verify.py's rates; the number of instructions executed does not drift. This script plays
N random-bot games in memory (fixed seeds: the same games every run), writes their full logs
as JSON text, and verifies each from its text as ``tourney replay verify`` does (parse, then
``verify_log`` with the cycle collector paused). With ``--count`` it runs itself under
callgrind twice, verifying N logs and none, and prints the difference:

    python bench/verify_instructions.py --game nine-tails --logs 6 --count
    nine-tails: verifying 6 logs (8573 events) took 1579 M instructions (184 k per event)

Needs valgrind (``apt install valgrind``). Instructions are not time (an instruction that
misses the cache costs more; valgrind's CPU lacks SHA extensions, so hashing weighs more than
on the real machine), so confirm a kept change with bench/verify.py's ratio too.

Usage: python bench/verify_instructions.py [--game NAME] [--logs N] [--count]
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


def instructions(game: str, count: int, verify: bool) -> int:
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
               "--game", game, "--logs", str(count)] + ([] if verify else ["--no-verify"])
    # A fixed string-hash seed: with Python's random one, the count moves by ~0.2% run to run.
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        sys.exit(f"no instruction count in valgrind's output: {done.stderr.strip()[-200:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(SEATS), default="nine-tails")
    parser.add_argument("--logs", type=int, default=6)
    parser.add_argument("--count", action="store_true", help="run under callgrind and print the instructions")
    parser.add_argument("--no-verify", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.count:
        events = verify_all(args.game, args.logs, not args.no_verify)
        print(f"{args.game}: {args.logs} logs, {events} events")
        return
    try:
        with_verify = instructions(args.game, args.logs, True)
        without = instructions(args.game, args.logs, False)
    except FileNotFoundError:
        sys.exit("valgrind is not installed (apt install valgrind)")
    events = verify_all(args.game, args.logs, False)
    spent = with_verify - without
    print(f"{args.game}: verifying {args.logs} logs ({events} events) took {spent / 1e6:.0f} M instructions "
          f"({spent / events / 1e3:.0f} k per event)")


if __name__ == "__main__":
    main()
