"""Replay page size against JSON log size: the golden replays and a 2,000-decision Nine Tails game.

For each game and each view (full, spectator, seat:0), the JSON log of that view as
`tourney replay export --view V` writes it (indented) beside the page `tourney replay html`
makes of it; the page must stay within 3x the log. A line per game and view, then the largest
ratio:

    nine-tails-3-seats view=full log=140731 B html=240094 B (views 39% of it) ratio: 1.71
    ratio: 2.11

The long game is the first random 3-seat Nine Tails deal (seeds bench-0, bench-1, ...) with
2,000 to 2,200 decisions.

Usage: python bench/html_size.py
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.engine import RandomAgent
from engines import registry
from engines.driver import play
from replays import html
from replays import log as logfmt
from replays.record import SeatInfo, record

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden"
DECISIONS = 2000
BOUND = 3.0


def long_nine_tails() -> tuple[str, dict]:
    engine = registry.get("nine-tails")
    config = engine.configure(3)
    for attempt in range(1000):
        seed = f"bench-{attempt}"
        played = play(engine, config, seed, [RandomAgent(random.Random(f"{seed}/{seat}")) for seat in range(3)])
        decisions = sum(1 for step in played.steps if step.actor >= 0)
        if DECISIONS <= decisions <= DECISIONS * 1.1:
            seats = [SeatInfo(f"random{seat}", "0" * 64) for seat in range(3)]
            recorded = record(engine, config, seed, played, seats, game_id=f"nine-tails-{seed}", salt_key=b"b" * 32)
            return f"nine-tails-{decisions}-decisions", logfmt.from_recorded(recorded)
    raise SystemExit(f"no deal with {DECISIONS} to {DECISIONS * 1.1:g} decisions in 1000 tries")


def main() -> None:
    games = [(path.stem, logfmt.read(path)) for path in sorted(GOLDEN.glob("*.json"))]
    games.append(long_nine_tails())
    worst = 0.0
    for name, full in games:
        for view in ("full", "spectator", "seat:0"):
            log = logfmt.redact(full, view)
            log_size = len(logfmt.dumps(log))
            data = html.page_data(log)
            page = len(html.document(data).encode())
            views = len(orjson.dumps([data["spectator"], data["own"]]))
            ratio = page / log_size
            worst = max(worst, ratio)
            print(f"{name} view={view} log={log_size} B html={page} B (views {views / page:.0%} of it) "
                  f"ratio: {ratio:.2f}")
    print(f"ratio: {worst:.2f}" + ("" if worst <= BOUND else f" (over the {BOUND:g}x bound)"))


if __name__ == "__main__":
    main()
