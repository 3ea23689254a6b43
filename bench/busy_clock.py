"""What the CPU clock charges a CPU-bound bot on a busy machine, measured (docs/bot-protocol.md, "Time").

One sandboxed bot (a program doing the same fixed work at each act, then answering) is timed move by
move exactly as a game times it (tournaments.play.protocol: frozen between its turns, its move charged
by the CPU clock: the CPU time of its cgroup, or a third of the move's wall-clock time when that is
more), while 0, 1, 2, ... other sandboxed bots that only spin, never frozen (as the bots acting in other
games of a run are), share its one CPU: the whole run, every sandbox included, is pinned to that CPU,
so with k spinners the bot gets about 1/(k+1) of it (the kernel shares a CPU between cgroups, each
sandbox being one; what runs outside the sandboxes weighs as one group however many its processes).
Rounds alternate the loads; the median move of each load is kept.

For each load it prints the move's wall-clock time, its CPU time, what the CPU clock charged, and that
charge over the idle one (1.00: the busy machine cost the bot nothing), and what the wall clock (`--clock
wall`, or `--tc`) would have charged, over the idle one:

    busy_clock: sandboxed, cgroup v1, seccomp, cpu clock, no pondering; work 0.20 s a move on CPU 1
    busy_clock: spinners=0 wall=0.203 cpu=0.201 charged=0.201 ratio=1.00 wall-clock ratio=1.00
    busy_clock: spinners=2 wall=0.612 cpu=0.203 charged=0.204 ratio=1.01 wall-clock ratio=3.01
    busy_clock: spinners=4 wall=1.013 cpu=0.205 charged=0.338 ratio=1.68 wall-clock ratio=4.99

Usage: python bench/busy_clock.py [--work SECONDS] [--moves N] [--rounds R] [--spinners 0,1,2,3,4] [--cpu K]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tournaments.bots.spec import CPU, PROGRAM, BotSpec, Confinement, Limits, Resources  # noqa: E402
from tournaments.play.protocol import ProgramProcess, handshake, hello  # noqa: E402
from tournaments.sandbox import sandbox  # noqa: E402 (after the sys.path line)

BOT = '''import json, sys, time
WORK = float(sys.argv[1])
calibrated = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print('{"type": "ready"}', flush=True)
        continue
    if message["type"] != "act":
        break
    if not calibrated:  # how many rounds of the loop take WORK seconds of CPU, measured once, idle or not
        began, rounds = time.process_time(), 0
        while time.process_time() - began < WORK:
            for _ in range(10_000):
                pass
            rounds += 1
        calibrated = rounds
    else:
        for _ in range(calibrated):
            for _ in range(10_000):
                pass
    print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
'''
SPIN = "while True:\n    pass\n"


def moves(folder: Path, work: float, count: int, confinement: Confinement) -> list[tuple[float, float, float]]:
    """(wall, cpu, charged) seconds of each of ``count`` moves of one bot process, timed as a game times it."""
    spec = BotSpec("busy", PROGRAM, str(folder / "busy.py"), "0" * 64, command=(sys.executable, "-I", "busy.py",
                                                                                 str(work)),
                   cwd=str(folder), files=("busy.py",))
    limits = Limits(60.0, 60.0)
    process = ProgramProcess(spec, confinement, paused=True)
    out = []
    try:
        process.resume()
        handshake(process, hello(spec, "lemur-tails", 0, 2, 1, limits, confinement))
        process.pause()
        for _ in range(count + 1):  # the first move calibrates the bot's loop: left out
            process.resume()
            clock = process.clock(limits.allowed)
            process.send({"type": "act", "view": {}, "legal": ["play"], "events": [], **limits.request()}, clock.cap)
            process.receive(clock)
            charged, wall = clock.used(), clock.wall()
            cpu = process.box.cpu_seconds() - clock.cpu if process.box is not None else float("nan")
            process.pause()
            out.append((wall, cpu, charged))
    finally:
        process.kill()
    return out[1:]


def spinners(count: int, folder: Path, confinement: Confinement) -> list[ProgramProcess]:
    """``count`` sandboxed bots that only spin and are never frozen (as the acting bots of other games are): each
    in a cgroup of its own, so the kernel shares the CPU between them and the timed bot as between a run's bots
    (its fair scheduler shares a CPU between groups, so processes outside any sandbox would weigh as one)."""
    spec = BotSpec("spin", PROGRAM, str(folder / "spin.py"), "1" * 64, command=(sys.executable, "-I", "spin.py"),
                   cwd=str(folder), files=("spin.py",))
    return [ProgramProcess(spec, replace(confinement, ponder=True)) for _ in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=float, default=0.2, help="CPU seconds of work per move")
    parser.add_argument("--moves", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--spinners", default="0,1,2,3,4")
    parser.add_argument("--cpu", type=int, default=max(os.sched_getaffinity(0)))
    args = parser.parse_args()
    problem = sandbox.unavailable()
    if problem is not None:
        sys.exit(f"error: {problem}")
    confinement = Confinement(True, Resources(), *sandbox.timing(CPU, False))
    if confinement.clock != CPU:
        sys.exit("error: this machine has no cgroups for tourney: the CPU clock is not available")
    os.sched_setaffinity(0, {args.cpu})  # the bot's sandbox starts from here, and inherits it
    loads = [int(count) for count in args.spinners.split(",")]
    seen: dict[int, list[tuple[float, float, float]]] = {load: [] for load in loads}
    print(f"busy_clock: {sandbox.describe(confinement)}; work {args.work:.2f} s a move on CPU {args.cpu}",
          flush=True)
    with tempfile.TemporaryDirectory(prefix="tourney-busy-") as directory:
        folder = Path(directory)
        folder.chmod(0o755)
        for name, text in (("busy.py", BOT), ("spin.py", SPIN)):
            (folder / name).write_text(text)
            (folder / name).chmod(0o644)
        for _ in range(args.rounds):
            for load in loads:
                running = spinners(load, folder, confinement)
                try:
                    time.sleep(0.2)  # the spinners take their share before the bot starts
                    seen[load] += moves(folder, args.work, args.moves, confinement)
                finally:
                    for process in running:
                        process.kill()
    idle = statistics.median(charged for _, _, charged in seen[loads[0]])
    idle_wall = statistics.median(wall for wall, _, _ in seen[loads[0]])
    for load in loads:
        wall, cpu, charged = (statistics.median(column) for column in zip(*seen[load], strict=True))
        print(f"busy_clock: spinners={load} wall={wall:.3f} cpu={cpu:.3f} charged={charged:.3f} "
              f"ratio={charged / idle:.2f} wall-clock ratio={wall / idle_wall:.2f}", flush=True)


if __name__ == "__main__":
    main()
