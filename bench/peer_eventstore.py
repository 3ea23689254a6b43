"""The ledger's writer against a peer event store: pyeventsourcing's SQLite recorder, the same games, one run.

G games of 250 events each (default 400; the first 250 events of random-bot Tails on Fire games,
played and sealed in memory before anything is timed) are written one transaction per game into a
fresh SQLite file by each side:

* **tourney**: ``Ledger.append(game_id, 0, records)``, the ledger's own write path (SQLAlchemy Core,
  ``exec_driver_sql`` executemany in one BEGIN IMMEDIATE transaction), into a migrated ledger whose
  events table keeps every column (game, seq, type, audience, the canonical body, the private part,
  its salt, the hash) and the triggers that refuse UPDATE and DELETE and any seq but the next. The
  games' rows are made before the timing, as the ledger makes them when a game starts.
* **eventsourcing**: ``SQLiteAggregateRecorder.insert_events`` (pyeventsourcing's recorder for an
  aggregate's events, its own connection pool, a BEGIN and a commit per call), one StoredEvent per
  event: the game id as originator id, the seq as version, the type as topic, and as state the
  event's canonical body followed by its private part (what the ledger stores but the hash, salt
  and audience columns). Its table has its primary key and nothing else.

Both files use WAL and synchronous=NORMAL (the ledger's pragmas; eventsourcing sets WAL itself and
is given NORMAL, where SQLite's own default would sync every commit). Each side is timed in CPU
seconds of this process (SQLite runs in it; the machine may be shared), rounds alternate, the best
round of each side is kept. The line printed (a contract):

    peer: tourney=N events/s eventsourcing=N events/s ratio: X

pyeventsourcing is a bench-only dependency: pip install -e '.[bench]' (or pip install eventsourcing).

``--floor`` prints, besides, what SQLite alone costs each side: sqlite3's own executemany of the
very same rows, a transaction per game, into the ledger's migrated events table (as it is, and
with its contiguity trigger dropped, to show its share) and into the peer's table:

    floor: ledger=N ledger-without-contiguity=N peer=N events/s ratio: X

(ratio: ledger over peer, the most the writer could reach on these schemas with no Python at all).
What other events tables would allow is bench/peer_schemas.py's question.

Usage: python bench/peer_eventstore.py [--games G] [--rounds R] [--profile SIDE] [--floor]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

try:
    from eventsourcing.persistence import StoredEvent
    from eventsourcing.sqlite import SQLiteAggregateRecorder, SQLiteConnectionPool, SQLiteDatastore
except ImportError:
    sys.exit("bench/peer_eventstore.py compares with pyeventsourcing, a bench-only dependency: "
             "pip install -e '.[bench]' (or pip install eventsourcing)")

from bench.verify import recorded_in_memory
from ledger import dialect
from ledger.chain import Record
from ledger.store import Ledger

EVENTS = 250
GAME = "tails-on-fire"


def games_of(count: int) -> list[tuple[str, list[Record]]]:
    """``count`` games' ids and first EVENTS records (random-bot games long enough, in seed order)."""
    out: list[tuple[str, list[Record]]] = []
    seed = 0
    while len(out) < count:
        recorded = recorded_in_memory(GAME, f"peer-{seed}")
        seed += 1
        if len(recorded.records) >= EVENTS:
            out.append((recorded.game_id, list(recorded.records[:EVENTS])))
    return out


def through_tourney(path: Path, games: list[tuple[str, list[Record]]], profile: cProfile.Profile | None = None
                    ) -> float:
    ledger = Ledger(str(path))
    with ledger.write() as connection:
        for game_id, _ in games:
            ledger.create_game({"id": game_id, "game": GAME, "engine_version": 1, "config": "{}",
                                "seed_commitment": "0" * 64}, connection)
    began = time.process_time()
    if profile is not None:
        profile.enable()
    for game_id, records in games:
        ledger.append(game_id, 0, records)
    if profile is not None:
        profile.disable()
    took = time.process_time() - began
    ledger.close()
    return took


class _NormalSyncPool(SQLiteConnectionPool):
    """eventsourcing's pool, each connection with synchronous=NORMAL as the ledger's (WAL it sets itself)."""

    def _create_connection(self):
        connection = super()._create_connection()
        connection._sqlite_conn.execute("PRAGMA synchronous = NORMAL")
        return connection


def peer_events(games: list[tuple[str, list[Record]]]) -> list[list[StoredEvent]]:
    return [[StoredEvent(originator_id=game_id, originator_version=r.seq, topic=r.type,
                         state=r.body + (r.private or b"")) for r in records] for game_id, records in games]


def through_eventsourcing(path: Path, games: list[list[StoredEvent]], profile: cProfile.Profile | None = None
                          ) -> float:
    datastore = SQLiteDatastore(str(path), originator_id_type="text")
    datastore.pool = _NormalSyncPool(db_name=str(path))
    recorder = SQLiteAggregateRecorder(datastore)
    recorder.create_table()
    began = time.process_time()
    if profile is not None:
        profile.enable()
    for events in games:
        recorder.insert_events(events)
    if profile is not None:
        profile.disable()
    took = time.process_time() - began
    datastore.close()
    return took


def raw(path: Path, statement: str, games: list[list[tuple]]) -> float:
    """sqlite3's own executemany of ``games``' rows into ``path``, a BEGIN IMMEDIATE ... COMMIT per game."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = NORMAL")
    connection.execute("PRAGMA foreign_keys = ON")
    began = time.process_time()
    for rows in games:
        connection.execute("BEGIN IMMEDIATE")
        connection.executemany(statement, rows)
        connection.execute("COMMIT")
    took = time.process_time() - began
    connection.close()
    return took


def floors(directory: Path, games: list[tuple[str, list[Record]]], rounds: int) -> dict[str, float]:
    """Events per second of sqlite3 alone into each schema (see the module docstring), best of ``rounds``."""
    ledger_rows = [[(game_id, *record) for record in records] for game_id, records in games]
    peer_rows = [[(e.originator_id, e.originator_version, e.topic, e.state) for e in events]
                 for events in peer_events(games)]
    best = {"ledger": float("inf"), "ledger-without-contiguity": float("inf"), "peer": float("inf")}
    for round_ in range(rounds):
        for side in best:
            path = directory / f"floor-{side}-{round_}.db"
            if side == "peer":
                datastore = SQLiteDatastore(str(path), originator_id_type="text")
                SQLiteAggregateRecorder(datastore).create_table()
                datastore.close()
                took = raw(path, "INSERT INTO stored_events VALUES (?, ?, ?, ?)", peer_rows)
            else:
                ledger = Ledger(str(path))
                with ledger.write() as connection:
                    for game_id, _ in games:
                        ledger.create_game({"id": game_id, "game": GAME, "engine_version": 1, "config": "{}",
                                            "seed_commitment": "0" * 64}, connection)
                    if side != "ledger":
                        connection.exec_driver_sql("DROP TRIGGER events_contiguous")  # a scratch copy
                ledger.close()
                took = raw(path, dialect.INSERT_EVENT, ledger_rows)
            best[side] = min(best[side], took)
    return {side: len(games) * EVENTS / took for side, took in best.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", choices=("tourney", "eventsourcing"),
                        help="print a cProfile of one round of that side instead of the line")
    parser.add_argument("--floor", action="store_true", help="also what SQLite alone costs each side")
    args = parser.parse_args()
    games = games_of(args.games)
    stored = peer_events(games)
    events = args.games * EVENTS
    with tempfile.TemporaryDirectory() as directory:
        if args.profile:
            profile = cProfile.Profile(time.process_time)
            run = through_tourney if args.profile == "tourney" else through_eventsourcing
            run(Path(directory) / "profiled.db", games if args.profile == "tourney" else stored, profile)
            pstats.Stats(profile).sort_stats("tottime").print_stats(18)
            return
        best = {"tourney": float("inf"), "eventsourcing": float("inf")}
        for round_ in range(args.rounds):
            best["tourney"] = min(best["tourney"], through_tourney(Path(directory) / f"tourney-{round_}.db", games))
            best["eventsourcing"] = min(best["eventsourcing"],
                                        through_eventsourcing(Path(directory) / f"peer-{round_}.db", stored))
        tourney, peer = events / best["tourney"], events / best["eventsourcing"]
        print(f"peer: tourney={tourney:.0f} events/s eventsourcing={peer:.0f} events/s ratio: {tourney / peer:.2f}",
              flush=True)
        if args.floor:
            rates = floors(Path(directory), games, args.rounds)
            print(f"floor: ledger={rates['ledger']:.0f} "
                  f"ledger-without-contiguity={rates['ledger-without-contiguity']:.0f} peer={rates['peer']:.0f} "
                  f"events/s ratio: {rates['ledger'] / rates['peer']:.2f}")


if __name__ == "__main__":
    main()
