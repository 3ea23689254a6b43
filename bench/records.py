"""Text records against JSON logs: their size, and the time to verify each, side by side in one run.

For each game at its usual seats, the same games (a heuristic bot in seat 0, random bots in the
others; seeds bench-0, bench-1, ...) as the JSON log `tourney replay export` writes (indented) and
as the text record `--format text` writes; then each read from its bytes and verified completely
(`replays.verify.verify_read`: a record is rebuilt into its log line by line, then verified as the
log), the two taking turns, best of three rounds. A line per game (sizes per game, times per game,
and the two ratios), then the smallest size ratio and the largest time ratio, as docs/benchmarks.md
shows them:

    smallest size ratio: 9.7x; largest verify time ratio: 3.21x

Usage: python bench/records.py [--games N]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.engine import RandomAgent
from engines import registry
from engines.driver import play
from replays import log as logfmt
from replays import text_record
from replays.record import SeatInfo, record
from replays.verify import verify_read
from tournaments.bots.inprocess import load_module

BOTS = Path(__file__).resolve().parent.parent / "bots"
GAMES = ("tails-on-fire", "nine-tails", "lemur-tails")
ROUNDS = 3


def logs(game: str, count: int) -> list[dict]:
    engine = registry.get(game)
    config = engine.configure(engine.default_seats)
    heuristic = load_module(str(BOTS / f"heuristic_{game.replace('-', '_')}.py")).Bot
    out = []
    for index in range(count):
        seed = f"bench-{index}"
        agents = [heuristic(game, 0, random.Random(f"{seed}/0")),
                  *(RandomAgent(random.Random(f"{seed}/{seat}")) for seat in range(1, config.seats))]
        seats = [SeatInfo(f"bot{seat}", "0" * 64) for seat in range(config.seats)]
        played = play(engine, config, seed, agents)
        out.append(logfmt.from_recorded(record(engine, config, seed, played, seats, game_id=f"{game}-{seed}")))
    return out


def verify_logs(blobs: list[bytes]) -> float:
    began = time.perf_counter()
    for blob in blobs:
        verify_read(logfmt.parse(blob), None)
    return time.perf_counter() - began


def verify_records(texts: list[str]) -> float:
    began = time.perf_counter()
    for text in texts:
        rebuilt = text_record.rebuild(text_record.parse(text))
        verify_read(rebuilt.log, rebuilt)
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games of each game (default 40)")
    count = parser.parse_args().games
    smallest, slowest = float("inf"), 0.0
    for game in GAMES:
        played = logs(game, count)
        blobs = [logfmt.dumps(log) for log in played]
        texts = [text_record.write(log) for log in played]
        json_size = sum(map(len, blobs)) / count
        text_size = sum(len(text.encode()) for text in texts) / count
        json_time = record_time = float("inf")
        for _ in range(ROUNDS):
            json_time = min(json_time, verify_logs(blobs))
            record_time = min(record_time, verify_records(texts))
        size_ratio, time_ratio = json_size / text_size, record_time / json_time
        smallest, slowest = min(smallest, size_ratio), max(slowest, time_ratio)
        print(f"{game}: {count} games, JSON log {json_size / 1000:.1f} KB, text record {text_size / 1000:.1f} KB "
              f"({size_ratio:.1f}x smaller); verify: log {json_time / count * 1000:.1f} ms, record "
              f"{record_time / count * 1000:.1f} ms ({time_ratio:.2f}x)")
    print(f"smallest size ratio: {smallest:.1f}x; largest verify time ratio: {slowest:.2f}x")


if __name__ == "__main__":
    main()
