"""bench/rl.py prints the lines docs/benchmarks.md and docs/rl.md quote (a short run: the format, not the speed)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RATE = r"[0-9]+"
RATIO = r"[0-9]+\.[0-9]{2}"


def test_a_short_run_prints_every_line_and_the_bound_lies_between_the_ratio_and_the_engines():
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "rl.py"), "--seconds", "0.4", "--game", "lemur-tails"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    patterns = [
        rf"rl: lemur-tails pettingzoo={RATE} openspiel={RATE} steps/s ratio: {RATIO}",
        rf"rl: hearts openspiel={RATE} steps/s",
        rf"rl: floor python-game={RATE} steps/s ratio: {RATIO}",
        rf"rl: lemur-tails engine-alone={RATE} steps/s ratio: {RATIO} bound: {RATIO}",
    ]
    assert len(lines) == len(patterns), run.stdout
    for line, pattern in zip(lines, patterns, strict=True):
        assert re.fullmatch(pattern, line), line
    alone, bound = map(float, re.findall(RATIO, lines[3]))
    floor = float(re.findall(RATIO, lines[2])[0])
    assert 0 < bound < min(alone, floor)  # a step costs the engine's time and the floor's: slower than either
