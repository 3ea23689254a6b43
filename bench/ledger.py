"""Ledger write path vs raw sqlite3 executemany: the same events, the same schema, one run.

Both sides append the same N sealed events (default 200,000) as one game into a fresh,
migrated SQLite file (WAL, synchronous=NORMAL, the append-only and contiguity triggers
in place). The ledger side goes through ``Ledger.append`` (SQLAlchemy Core,
``exec_driver_sql`` executemany, BEGIN IMMEDIATE); the raw side is sqlite3's own
executemany of the same tuples. Rounds alternate so both see the same machine noise;
the best round of each is kept. The last line is the ratio, ledger over raw:

    ledger=812345 events/s raw=901234 events/s
    ratio: 0.90

Usage: python bench/ledger.py [--events N] [--rounds R]
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ledger.chain import Chain
from ledger.dialect import INSERT_EVENT
from ledger.store import Ledger

GAME = {"id": "bench", "game": "bench", "engine_version": 1, "config": "{}", "seed_commitment": "0" * 64}


def make_records(n: int):
    chain, salt = Chain("bench"), bytes(16)
    records = []
    for seq in range(n):
        private = {"cards": [seq % 9, 7]} if seq % 4 == 0 else None
        records.append(chain.seal("opossum_played", {"seat": seq % 4, "card": seq % 9 + 1}, private, (seq % 4,),
                                  salt if private else None))
    return records


def fresh_ledger(directory: Path, name: str) -> Ledger:
    ledger = Ledger(str(directory / name))
    ledger.create_game(GAME)
    return ledger


def through_ledger(directory: Path, records) -> float:
    ledger = fresh_ledger(directory, "ledger.db")
    began = time.perf_counter()
    ledger.append("bench", 0, records)
    took = time.perf_counter() - began
    ledger.close()
    return took


def through_raw(directory: Path, records) -> float:
    fresh_ledger(directory, "raw.db").close()
    connection = sqlite3.connect(directory / "raw.db", isolation_level=None)
    connection.execute("PRAGMA synchronous = NORMAL")
    connection.execute("PRAGMA foreign_keys = ON")
    began = time.perf_counter()
    connection.execute("BEGIN IMMEDIATE")
    connection.executemany(
        INSERT_EVENT,
        [("bench", r.seq, r.type, r.audience, r.body, r.private, r.salt, r.hash) for r in records],
    )
    connection.execute("UPDATE games SET events = ?, head = ? WHERE id = 'bench'", (len(records), records[-1].hash))
    connection.execute("COMMIT")
    took = time.perf_counter() - began
    connection.close()
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    records = make_records(args.events)
    best = {"ledger": float("inf"), "raw": float("inf")}
    for _ in range(args.rounds):
        for kind, run in (("raw", through_raw), ("ledger", through_ledger)):
            with tempfile.TemporaryDirectory() as directory:
                best[kind] = min(best[kind], run(Path(directory), records))
    ledger_rate, raw_rate = args.events / best["ledger"], args.events / best["raw"]
    print(f"ledger={ledger_rate:.0f} events/s raw={raw_rate:.0f} events/s")
    print(f"ratio: {ledger_rate / raw_rate:.2f}")


if __name__ == "__main__":
    main()
