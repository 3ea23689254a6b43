"""Ledger write path vs raw sqlite3 executemany: the same events, the same schema, one run.

Both sides append the same N sealed events (default 200,000) as one game into a fresh,
migrated SQLite file (WAL, synchronous=NORMAL, the append-only and contiguity triggers
in place). The ledger side goes through ``Ledger.append`` (SQLAlchemy Core,
``exec_driver_sql`` executemany, BEGIN IMMEDIATE); the raw side is sqlite3's own
executemany of the same tuples. Rounds alternate so both see the same machine noise;
the best round of each is kept. The last line is the ratio, ledger over raw:

    ledger=812345 events/s raw=901234 events/s
    ratio: 0.90

With ``--text`` a third side is timed in the same rounds: ``Ledger.append`` with its event insert sent as
``text()`` with named binds (a dict per row), what every other ledger statement is; its lines follow
(``text=... events/s``, ``text ratio: ...``). docs/benchmarks.md says why the hot inserts stay raw.

Usage: python bench/ledger.py [--events N] [--rounds R] [--text]
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import text

from ledger.appending import Appending
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


NAMED_EVENT = text("INSERT INTO events (game_id, seq, type, audience, body, private, salt, hash) "
                   "VALUES (:game_id, :seq, :type, :audience, :body, :private, :salt, :hash)")
FIELDS = ("seq", "type", "audience", "body", "private", "salt", "hash")


def append_with_text(self, game_id, expected_seq, records, connection=None) -> str:
    """Ledger.append (its stale check left out: one writer here) with the event insert as text() and named binds."""
    if connection is None:
        with self.write() as connection:
            return append_with_text(self, game_id, expected_seq, records, connection)
    head = records[-1].hash
    connection.execute(text("UPDATE games SET events = :events, head = :head WHERE id = :id AND events = :expected"),
                       {"events": expected_seq + len(records), "head": head, "id": game_id, "expected": expected_seq})
    connection.execute(NAMED_EVENT, [{"game_id": game_id, **dict(zip(FIELDS, record, strict=True))}
                                     for record in records])
    return head


def through_text(directory: Path, records) -> float:
    kept = Appending.append
    Appending.append = append_with_text
    try:
        return through_ledger(directory, records)
    finally:
        Appending.append = kept


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
    parser.add_argument("--text", action="store_true", help="also time the event insert as text() with named binds")
    args = parser.parse_args()
    records = make_records(args.events)
    sides = (("raw", through_raw), ("ledger", through_ledger), *((("text", through_text),) if args.text else ()))
    best = {kind: float("inf") for kind, _ in sides}
    for _ in range(args.rounds):
        for kind, run in sides:
            with tempfile.TemporaryDirectory() as directory:
                best[kind] = min(best[kind], run(Path(directory), records))
    ledger_rate, raw_rate = args.events / best["ledger"], args.events / best["raw"]
    print(f"ledger={ledger_rate:.0f} events/s raw={raw_rate:.0f} events/s")
    print(f"ratio: {ledger_rate / raw_rate:.2f}")
    if args.text:
        text_rate = args.events / best["text"]
        print(f"text={text_rate:.0f} events/s")
        print(f"text ratio: {text_rate / raw_rate:.2f}")


if __name__ == "__main__":
    main()
