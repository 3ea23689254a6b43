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

And a floor: the same Python games with each bot's process started once and kept for every game
(no sandbox, no cgroup, no new process): what the JSON-lines protocol alone costs, a round trip
between two processes per move, which no sandbox can go below.

Rounds alternate the ways, the best rate of each is kept. The lines (docs/benchmarks.md has runs):

    sandbox: sandboxed, cgroup v1, seccomp, cpu clock, no pondering
    sandbox: process=3.9 games/s
    sandbox: off=61.0 on=3.1 games/s ratio: 0.051
    sandbox: program off=20.0 on=15.0 games/s ratio: 0.750
    sandbox: floor protocol=70.0 games/s ratio: 0.120
    sandbox: on/floor ratio: 0.044

The last is the sandbox's own cost beside the process's: Python bots sandboxed over the floor.

With ``--where``, where a sandboxed game's own time goes, each part timed alone (medians):

    sandbox: where: cgroup make+remove=0.42 ms freeze+thaw=31 us cpu read=6 us
    sandbox: where: fresh bot to its ready=9.8 ms (python) 4.1 ms (program)

Usage: python bench/sandbox.py [--games N] [--rounds R] [--where]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tournaments.bots.spec import PROGRAM, BotSpec, Confinement, Limits, Resources  # noqa: E402
from tournaments.play import preparation, runner  # noqa: E402
from tournaments.play.protocol import ProgramAgent, ProgramProcess  # noqa: E402
from tournaments.play.schedule import schedule  # noqa: E402
from tournaments.sandbox import sandbox  # noqa: E402 (after the sys.path line)

GAME = "lemur-tails"


def rate(folder: Path, games: int, confinement: Confinement, in_worker: bool) -> float:
    """Games per second of ``games`` games played one after another in this process."""
    prepared, k = preparation.prepare(folder, GAME, None, Limits(), confinement)
    with prepared:
        spec = runner.Spec(GAME, k, games, "bench", 1.0, 5.0, tuple(prepared.bots), sandbox=confinement.sandbox,
                           clock=confinement.clock, ponder=confinement.ponder)
        jobs = [runner.Job(spec, scheduled) for scheduled in schedule(spec.bot_names, k, games, "bench")][:games]
        began = time.perf_counter()
        for job in jobs:
            result = runner.play_job(job, in_worker=in_worker)
            assert result.recorded.reason == "finished", result.recorded.reason
        return len(jobs) / (time.perf_counter() - began)


KEPT = ("import sys; sys.path += {paths!r}; from tournaments.bots import pyhost; streams = pyhost._protocol_streams()\n"
        "while True:\n    pyhost.serve(sys.argv[1], *streams)")
"""A pyhost that plays one game after another in one process (the floor's bots)."""


class Kept(ProgramAgent):
    """A seat played by a bot process kept from game to game (the floor): greeted each game, never killed."""

    kept: ClassVar[dict[str, ProgramProcess]] = {}

    def __init__(self, spec: BotSpec, game: str, seat: int, seats: int, seed: int, limits: Limits,
                 confinement: Confinement) -> None:
        super().__init__(spec, game, seat, seats, seed, limits, confinement)

    def _start(self, spec: BotSpec, confinement: Confinement) -> ProgramProcess:
        if spec.path not in self.kept:
            boot = KEPT.format(paths=sandbox.pyhost_paths())
            self.kept[spec.path] = ProgramProcess(replace(spec, kind=PROGRAM, command=(sys.executable, "-I", "-S",
                                                                                      "-c", boot, spec.files[0])),
                                                  Confinement(False))
        return self.kept[spec.path]

    def close(self) -> None:
        self.process = None


def floor_rate(folder: Path, games: int) -> float:
    """Games per second with bot processes kept for every game (runner.make_agent's program agent replaced)."""
    made = runner.make_agent
    runner.make_agent = lambda spec, *rest, **named: Kept(spec, *rest[:5], Confinement(False))
    try:
        return rate(folder, games, Confinement(False), False)
    finally:
        runner.make_agent = made


def where(folder: Path, programs: Path, rounds: int) -> None:
    """Time the sandbox's parts alone: a game's cgroup made and removed, a freeze and thaw of a group with a
    process in it, a read of its CPU time, and a fresh bot in a warm sandbox from its spawn to its ready."""
    import statistics
    import subprocess

    from tournaments.play.protocol import ProgramProcess, handshake, hello
    from tournaments.sandbox import cgroups

    found = cgroups.hierarchy()
    if found is None:
        print(f"sandbox: where: no cgroups ({cgroups.unavailable()})")
        return
    made = []
    for _ in range(50 * rounds):
        began = time.perf_counter()
        cgroups.Box(found, 1024, 64).remove()
        made.append(time.perf_counter() - began)
    box = cgroups.Box(found, 1024, 64)
    sleeper = subprocess.Popen(["sleep", "60"], preexec_fn=box.join)
    pairs, reads = [], []
    for _ in range(500 * rounds):
        began = time.perf_counter()
        box.freeze()
        box.thaw()
        pairs.append(time.perf_counter() - began)
        began = time.perf_counter()
        box.cpu_seconds()
        reads.append(time.perf_counter() - began)
    sleeper.kill()
    sleeper.wait()
    box.remove()
    fresh = {}
    on = Confinement(True, Resources(), *sandbox.timing())
    for kind, bots in (("python", folder), ("program", programs)):
        prepared, _ = preparation.prepare(bots, GAME, None, Limits(), on)
        with prepared:
            spec = prepared.bots[0]
            times = []
            for _ in range(20 * rounds):
                began = time.perf_counter()
                process = ProgramProcess(spec, on)
                handshake(process, hello(spec, GAME, 0, 2, 1, Limits(), on))
                times.append(time.perf_counter() - began)
                process.kill()
            fresh[kind] = statistics.median(times)
    print(f"sandbox: where: cgroup make+remove={statistics.median(made) * 1e3:.2f} ms "
          f"freeze+thaw={statistics.median(pairs) * 1e6:.0f} us cpu read={statistics.median(reads) * 1e6:.0f} us")
    print(f"sandbox: where: fresh bot to its ready={fresh['python'] * 1e3:.1f} ms (python) "
          f"{fresh['program'] * 1e3:.1f} ms (program)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--where", action="store_true", help="also time the sandbox's parts alone")
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
        floor = max(floor_rate(folder, args.games) for _ in range(args.rounds))
        for process in Kept.kept.values():
            process.kill()
        if args.where:
            where(folder, programs, args.rounds)
    print(f"sandbox: {sandbox.describe(on)}")
    print(f"sandbox: process={best['process']:.1f} games/s")
    print(f"sandbox: off={best['off']:.1f} on={best['on']:.1f} games/s ratio: {best['on'] / best['off']:.3f}")
    print(f"sandbox: program off={best['program off']:.1f} on={best['program on']:.1f} games/s ratio: "
          f"{best['program on'] / best['program off']:.3f}")
    print(f"sandbox: floor protocol={floor:.1f} games/s ratio: {floor / best['off']:.3f}")
    print(f"sandbox: on/floor ratio: {best['on'] / floor:.3f}")


if __name__ == "__main__":
    main()
