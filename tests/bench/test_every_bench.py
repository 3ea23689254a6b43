"""Every script in bench/ runs, briefly, and prints the lines docs/benchmarks.md quotes (the format, not the speed):
so that no bench rots unseen when the code it measures changes. The long ones are marked slow (CI runs them)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tournaments.play.test_ray import ray_sessions
from tournaments.play.preparation import STAGING
from tournaments.sandbox import leftovers

ROOT = Path(__file__).resolve().parents[2]
N = r"-?[0-9]+(?:\.[0-9]+)?"
"""A figure: a short run's rates may be anything, even a negative marginal rate; only the shape is checked."""

BENCHES = {
    # script: (its short arguments, a line it must print (a full match), slow?)
    "engine": (["--seconds", "0.2"], [rf"{game} seats={seats} engine={N} games/s bare={N} games/s ratio: {N}"
                                      for game, seats in (("tails-on-fire", 4), ("nine-tails", 3),
                                                          ("lemur-tails", 2))], False),
    "html_size": ([], [rf"ratio: {N}"], True),
    "ledger": (["--events", "2000", "--rounds", "1"], [rf"ledger={N} events/s raw={N} events/s", rf"ratio: {N}"],
               False),
    "peer_eventstore": (["--games", "10", "--rounds", "1"],
                        [rf"peer: tourney={N} events/s eventsourcing={N} events/s ratio: {N}"], False),
    "peer_schemas": (["--games", "10", "--rounds", "1"], [rf"schema rowid-fk: {N} events/s ratio: {N}  \(.*\)"],
                     False),
    "series": (["--games", "1", "--game", "lemur-tails"],
               [rf"lemur-tails seats=2 games={N}: heuristic mean place {N}, firsts {N}%, Elo {N} \| random mean "
                rf"place {N}, firsts {N}%, Elo {N} \| Elo gap: {N}"], True),
    "signing": (["--games", "20", "--rounds", "1"], [rf"ratio: {N}"], True),
    "startup": (["--rounds", "1"], [rf"startup: python={N} ms tourney={N} ms ratio: {N}",
                                    rf"startup: new ledger: made={N} ms revisions={N} ms at-head={N} ms ratio: {N}"],
                False),
    "store": (["--quick"], [rf"store: tourney={N} games/s raw={N} games/s ratio: {N}",
                            *(rf"{game} rows: store: bytes/game={N} games/s={N}"
                              for game in ("tails-on-fire", "nine-tails", "lemur-tails")),
                            *(rf"{game} sealed: store: bytes/game={N} games/s={N} ratio: {N}"
                              for game in ("tails-on-fire", "nine-tails", "lemur-tails"))], True),
    "strength": (["--game", "lemur-tails", "--deals", "1", "--iterations", "5"],
                 [rf"strength: lemur-tails ismcts-vs-heuristic elo={N} \[{N}, {N}\] games=2"], True),
    "tournament": (["--games", "4", "--small", "1", "--rounds", "1"],
                   [rf"in memory: {N} games/s", rf"tourney run --jobs 1: {N} games/s \(fixed cost {N} s\)",
                    rf"ratio: {N}"], True),
    "verify": (["--seconds", "0.2", "--games", "20", "--rounds", "1"],
               [rf"ratio: {N}", rf"verify: jobs1={N} jobs2={N} games/s speedup: {N}"], False),
    "verify_instructions": (["--logs", "1"], [rf"nine-tails: 1 logs, {N} events"], False),
    "sandbox": (["--games", "1", "--rounds", "1", "--where"],
                [rf"sandbox: off={N} on={N} games/s ratio: {N}", rf"sandbox: on/floor ratio: {N}",
                 rf"sandbox: where: cgroup make\+remove={N} ms freeze\+thaw={N} us cpu read={N} us"], True),
    "covert": (["--bits", "16"], [rf"covert: page-cache file=\S+ bits=16 correct={N} probe_ms={N} bits/s={N}",
                                  rf"covert: error rate: {N}"], True),
    "busy_clock": (["--work", "0.02", "--moves", "2", "--rounds", "1", "--spinners", "0,1"],
                   [rf"busy_clock: spinners=1 wall={N} cpu={N} charged={N} ratio={N} wall-clock ratio={N}"], True),
    "league": (["--sizes", "20", "40", "--samples", "2"], [rf"growth: {N} \(worst: .*"], True),
    "standings": (["--bots", "6", "--games", "30", "--report-games", "20", "--run-bots", "4"],
                  [rf"standings: bots=6 games=30 cpu_s={N} bootstrap_cpu_s={N} .*",
                   rf"memory: command=verify games=30 peak_rss_mb={N}",
                   rf"memory: command=verify-tournament-check games=30 peak_traced_mb={N}",
                   rf"memory: command=standings-check games=30 peak_traced_mb={N}",
                   rf"memory: command=standings-bootstrap games=30 peak_traced_mb={N}",
                   rf"report: games={N} cpu_ratio={N} .*"],
                  True),
    "ranks": (["--bots", "10", "--rounds", "1"], [rf"ranks: bots=10 draws={N} fresh={N} ms kept={N} ms ratio: {N}"],
              False),
    "records": (["--games", "2"], [rf"smallest size ratio: {N}x; largest verify time ratio: {N}x"], False),
    "ladder_work": (["--deals", "2", "--rounds", "1"], [rf"ladder: work1={N} work2={N} games/s speedup: {N}"], True),
    "scale": (["--deals", "1", "--rounds", "1"],
              [rf"scale: local1={N} local2={N} ray2={N} games/s speedup: {N}"], True),
    "main_job": (["--games", "1"], [rf"main job: clone={N} s venv={N} s install={N} s run={N} s total={N} s .*"], True),
}
ELSEWHERE = {"rl": "tests/bench/test_rl_lines.py"}
"""Benches another test runs (with its own checks of their lines)."""
MODULES = {"bare_tails_on_fire", "bare_nine_tails", "bare_lemur_tails"}
"""Not scripts: the bare loops bench/engine.py times beside each engine (its lines name them: bare=...)."""


def test_every_bench_is_run_by_a_test():
    """A new script in bench/ must be added here (or to a test of its own), so that it is run."""
    scripts = {path.stem for path in (ROOT / "bench").glob("*.py")} - {"__init__"}
    assert scripts == set(BENCHES) | set(ELSEWHERE) | MODULES
    for module, test in ELSEWHERE.items():
        assert f"bench\" / \"{module}.py" in (ROOT / test).read_text()


@pytest.mark.parametrize("script", [pytest.param(name, marks=pytest.mark.slow) if slow else name
                                    for name, (_args, _lines, slow) in BENCHES.items()])
def test_a_short_run_prints_its_lines(script, tmp_path):
    """The bench runs to its end with a small set of arguments and prints each line its docs quote; and it leaves
    nothing in the temporary folder (TMPDIR) but what the next tourney run removes: the staged bots of a Ray worker
    that Ray killed (tournaments.sandbox.leftovers.sweep). Ray's own sessions, if any, go in a folder of
    their own, removed after the run."""
    args, patterns, _slow = BENCHES[script]
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    with ray_sessions() as sessions:
        env = {**os.environ, "TMPDIR": str(scratch), "RAY_TMPDIR": sessions}
        run = subprocess.run([sys.executable, str(ROOT / "bench" / f"{script}.py"), *args], capture_output=True,
                             text=True, timeout=900, cwd=ROOT, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    lines = run.stdout.splitlines()
    for pattern in patterns:
        assert any(re.fullmatch(pattern, line) for line in lines), (pattern, run.stdout)
    leftovers.sweep(scratch, STAGING)
    assert sorted(path.name for path in scratch.iterdir()) == []
