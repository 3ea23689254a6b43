"""What the events table's schema allows against the peer: candidate schemas, each written by a prototype writer.

bench/peer_eventstore.py compares the ledger's writer with pyeventsourcing's SQLite recorder on the
ledger's own table. This script asks what another table could reach: for each candidate schema of
the events table below, a prototype writer (sqlite3 alone, no SQLAlchemy) stores the same games as
that bench (G games of 250 events, default 400, a BEGIN IMMEDIATE ... COMMIT per game, WAL,
synchronous=NORMAL, foreign_keys=ON, a fresh file per side and round), building its parameter rows
from the sealed Records inside the timing as a writer must. Against it, the peer as that bench
runs it (``SQLiteAggregateRecorder.insert_events``). CPU seconds of this process, rounds
alternating, best of R. One line per schema:

    schema current: N events/s ratio: X  (the events table as it is: ...)

Every candidate keeps the hash (hex text or 32 raw bytes), the salt, the private part, the exact
canonical body, a foreign key to its game, UNIQUE (game, seq) and triggers that abort UPDATE and
DELETE; they differ in how the game is referred to, how seq's contiguity is checked (``contiguity``:
a per-row trigger, a self-referencing foreign key, or nothing, to show the price), and how rows
are bound. tests/bench/test_peer_schemas.py checks that each refuses what it claims to refuse.

Two binding forms: ``plain`` passes the Record's fields as they are; ``fast`` passes blobs as
bytearray and a missing private part and salt as 0 (the statement turns it back into NULL with
NULLIF). CPython's sqlite3 binds int, float, str and bytearray directly but sends bytes and None
through its adapter lookup first (about 0.26 and 0.18 µs a parameter here).

``--instructions`` counts, instead, the instructions each side executes per event under valgrind's
callgrind (G games, default 40; a run that writes minus one that only sets up): a measure the load
of a shared machine does not move, though not time (kernel work, the WAL's writes, is not in it).

Usage: python bench/peer_schemas.py [--games G] [--rounds R] [--only NAME ...] [--instructions]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ledger.chain import Record

SHIFT = 1 << 32
"""The rowid schemas' event id: game key * SHIFT + seq (so seq < 2**32)."""

APPEND_ONLY = (
    "CREATE TRIGGER events_no_update BEFORE UPDATE ON events "
    "BEGIN SELECT RAISE(ABORT, 'events are append-only: UPDATE is not allowed'); END",
    "CREATE TRIGGER events_no_delete BEFORE DELETE ON events "
    "BEGIN SELECT RAISE(ABORT, 'events are append-only: DELETE is not allowed'); END",
)
GAP = "events must be appended at the next seq of their game"


def _trigger(when: str) -> str:
    return (f"CREATE TRIGGER events_contiguous BEFORE INSERT ON events WHEN {when} "
            f"BEGIN SELECT RAISE(ABORT, '{GAP}'); END")


MAX_PLUS_ONE = "NEW.seq != COALESCE((SELECT MAX(seq) FROM events WHERE {game} = NEW.{game}), -1) + 1"
PREV_BY_KEY = "NEW.seq != 0 AND NOT EXISTS (SELECT 1 FROM events WHERE game_key = NEW.game_key AND seq = NEW.seq - 1)"
PREV_BY_ROWID = "NEW.seq != 0 AND NOT EXISTS (SELECT 1 FROM events WHERE id = NEW.id - 1)"
READS_NOTHING = "NEW.seq < 0"  # never true (seq >= 0 is checked): the price of a per-row trigger alone

TEXT_GAMES = "CREATE TABLE games (id VARCHAR NOT NULL PRIMARY KEY)"
KEYED_GAMES = "CREATE TABLE games (key INTEGER PRIMARY KEY, id VARCHAR NOT NULL UNIQUE)"


@dataclass(frozen=True)
class Schema:
    """A candidate events table and how its prototype writer binds rows."""

    name: str
    about: str
    game: str
    """How events name their game: "id" (the 32-character text id) or "key" (the games row's integer key)."""
    hash_blob: bool
    """The hash as 32 raw bytes (else its 64 hex characters)."""
    layout: str
    """"pk": a rowid table with PRIMARY KEY (game, seq) as its index; "without-rowid": that key as the table;
    "rowid": the rowid is the event id, game key * SHIFT + seq (the only B-tree)."""
    contiguity: str
    """"trigger" (``trigger_when``), "fk" (a foreign key from (game, seq - 1) to (game, seq)) or "none"."""
    trigger_when: str | None = None
    fast: bool = False
    chunk: int = 0
    """Rows per INSERT statement (multi-row VALUES); 0: one row per statement, executemany."""
    page_size: int = 4096

    @property
    def refuses_gaps(self) -> bool:
        return self.contiguity == "fk" or (self.contiguity == "trigger" and self.trigger_when != READS_NOTHING)

    def statements(self) -> list[str]:
        """The DDL: games, events and its triggers."""
        game_column = ("game_id VARCHAR NOT NULL REFERENCES games (id)" if self.game == "id" else
                       "game_key INTEGER NOT NULL REFERENCES games (key)")
        ref = "game_id" if self.game == "id" else "game_key"
        columns = [game_column, "seq INTEGER NOT NULL CHECK (seq >= 0)", "type VARCHAR NOT NULL",
                   "audience VARCHAR NOT NULL", "body BLOB NOT NULL", "private BLOB", "salt BLOB",
                   f"hash {'BLOB' if self.hash_blob else 'VARCHAR'} NOT NULL"]
        if self.layout == "rowid":
            columns.insert(0, "id INTEGER PRIMARY KEY")
            columns.append(f"CHECK (seq < {SHIFT} AND id = game_key * {SHIFT} + seq)")
        if self.contiguity == "fk":
            if self.layout == "rowid":
                columns.insert(-1, "prev INTEGER GENERATED ALWAYS AS (NULLIF(id, game_key * "
                                   f"{SHIFT}) - 1) VIRTUAL REFERENCES events (id)")
            else:
                columns.append("prev_seq INTEGER GENERATED ALWAYS AS (NULLIF(seq, 0) - 1) VIRTUAL")
                columns.append(f"FOREIGN KEY ({ref}, prev_seq) REFERENCES events ({ref}, seq)")
        if self.layout != "rowid":
            columns.append(f"PRIMARY KEY ({ref}, seq)")
        table = f"CREATE TABLE events ({', '.join(columns)})" + (" WITHOUT ROWID" if self.layout == "without-rowid"
                                                                  else "")
        triggers = [_trigger(self.trigger_when.format(game=ref))] if self.contiguity == "trigger" else []
        return [TEXT_GAMES if self.game == "id" else KEYED_GAMES, table, *APPEND_ONLY, *triggers]

    def columns(self) -> str:
        names = ["game_id" if self.game == "id" else "game_key", "seq", "type", "audience", "body", "private", "salt",
                 "hash"]
        return ", ".join((["id"] if self.layout == "rowid" else []) + names)

    def values(self) -> str:
        marks = ["?"] * (9 if self.layout == "rowid" else 8)
        if self.fast:
            marks[-3:-1] = ["NULLIF(?, 0)", "NULLIF(?, 0)"]
        return f"({', '.join(marks)})"

    def rows(self) -> Callable[[str, int, Sequence[Record]], list[tuple]]:
        """The prototype writer's row builder: (game id, game key, records) -> parameter rows."""
        by_id, rowid, hash_blob, fast = self.game == "id", self.layout == "rowid", self.hash_blob, self.fast
        if rowid and not (fast and hash_blob):
            raise ValueError(f"schema {self.name}: the rowid layout's prototype binds the fast form, hash as bytes")
        unhex = bytearray.fromhex if fast else bytes.fromhex
        blob = bytearray

        def build(game_id: str, key: int, records: Sequence[Record]) -> list[tuple]:
            ref = game_id if by_id else key
            if not fast and not hash_blob:
                rows = [(ref, *record) for record in records]
            elif not fast:
                rows = [(ref, seq, type_, audience, body, private, salt, unhex(hash_))
                        for seq, type_, audience, body, private, salt, hash_ in records]
            elif rowid:
                base = key * SHIFT
                rows = [(base + seq, ref, seq, type_, audience, blob(body), 0, 0, unhex(hash_)) if private is None else
                        (base + seq, ref, seq, type_, audience, blob(body), blob(private), blob(salt), unhex(hash_))
                        for seq, type_, audience, body, private, salt, hash_ in records]
            else:
                rows = [(ref, seq, type_, audience, blob(body), 0, 0, unhex(hash_) if hash_blob else hash_)
                        if private is None else
                        (ref, seq, type_, audience, blob(body), blob(private), blob(salt),
                         unhex(hash_) if hash_blob else hash_)
                        for seq, type_, audience, body, private, salt, hash_ in records]
            return rows

        return build


SCHEMAS = [
    Schema("current", "the events table as it is: text game id, hex hash, PRIMARY KEY (game_id, seq) as a second "
            "B-tree, the max+1 trigger", game="id", hash_blob=False, layout="pk", contiguity="trigger",
            trigger_when=MAX_PLUS_ONE),
    Schema("current-fast", "current, rows bound in the fast form", game="id", hash_blob=False, layout="pk",
            contiguity="trigger", trigger_when=MAX_PLUS_ONE, fast=True),
    Schema("key", "integer game key, hash as 32 bytes, the max+1 trigger", game="key", hash_blob=True,
            layout="pk", contiguity="trigger", trigger_when=MAX_PLUS_ONE),
    Schema("key-prev", "key, the trigger checks that seq - 1 exists", game="key", hash_blob=True, layout="pk",
            contiguity="trigger", trigger_when=PREV_BY_KEY),
    Schema("key-prev-wr", "key-prev, WITHOUT ROWID", game="key", hash_blob=True, layout="without-rowid",
            contiguity="trigger", trigger_when=PREV_BY_KEY),
    Schema("key-prev-fast", "key-prev, rows bound in the fast form", game="key", hash_blob=True, layout="pk",
            contiguity="trigger", trigger_when=PREV_BY_KEY, fast=True),
    Schema("rowid-prev-fast", "the rowid is key * 2^32 + seq (one B-tree), the trigger looks seq - 1 up by rowid, "
            "fast form", game="key", hash_blob=True, layout="rowid", contiguity="trigger",
            trigger_when=PREV_BY_ROWID, fast=True),
    Schema("rowid-prev-fast-x64", "rowid-prev-fast, 64 rows per INSERT", game="key", hash_blob=True,
            layout="rowid", contiguity="trigger", trigger_when=PREV_BY_ROWID, fast=True, chunk=64),
    Schema("rowid-prev-fast-8k", "rowid-prev-fast, 8 KB pages (the peer keeps its default)", game="key",
            hash_blob=True, layout="rowid", contiguity="trigger", trigger_when=PREV_BY_ROWID, fast=True,
            page_size=8192),
    Schema("key-empty-trigger", "key-prev-fast with a trigger that reads nothing (checks no contiguity)",
            game="key", hash_blob=True, layout="pk", contiguity="trigger", trigger_when=READS_NOTHING, fast=True),
    Schema("key-unchecked", "key-prev-fast with no contiguity check", game="key", hash_blob=True, layout="pk",
            contiguity="none", fast=True),
    Schema("rowid-unchecked", "rowid-prev-fast with no contiguity check", game="key", hash_blob=True,
            layout="rowid", contiguity="none", fast=True),
    Schema("rowid-fk", "rowid-prev-fast, contiguity by a foreign key from id - 1 to id instead of a trigger",
            game="key", hash_blob=True, layout="rowid", contiguity="fk", fast=True),
    Schema("rowid-fk-x64", "rowid-fk, 64 rows per INSERT", game="key", hash_blob=True, layout="rowid",
            contiguity="fk", fast=True, chunk=64),
    Schema("key-fk-x64", "key-prev-fast, contiguity by a foreign key from (key, seq - 1) to (key, seq), 64 rows "
            "per INSERT", game="key", hash_blob=True, layout="pk", contiguity="fk", fast=True, chunk=64),
]
BY_NAME = {schema.name: schema for schema in SCHEMAS}


def connect(path: Path, page_size: int = 4096) -> sqlite3.Connection:
    """A connection with the ledger's pragmas (autocommit: the writer issues BEGIN and COMMIT)."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute(f"PRAGMA page_size = {page_size}")
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = NORMAL")
    connection.execute("PRAGMA foreign_keys = ON")
    return connection


def create(connection: sqlite3.Connection, schema: Schema, game_ids: Sequence[str]) -> None:
    """The schema's tables and triggers, and a games row per id (keys 1, 2, ... in order)."""
    for statement in schema.statements():
        connection.execute(statement)
    if schema.game == "id":
        connection.executemany("INSERT INTO games (id) VALUES (?)", [(game_id,) for game_id in game_ids])
    else:
        connection.executemany("INSERT INTO games (key, id) VALUES (?, ?)", list(enumerate(game_ids, 1)))


class Writer:
    """The prototype writer of one schema: a game's records in one transaction."""

    def __init__(self, connection: sqlite3.Connection, schema: Schema) -> None:
        self.connection = connection
        self.chunk = schema.chunk
        self.build = schema.rows()
        self.head = f"INSERT INTO events ({schema.columns()}) VALUES "
        self.values = schema.values()
        self.width = self.values.count("?")
        self.statements: dict[int, str] = {}

    def write(self, game_id: str, key: int, records: Sequence[Record]) -> None:
        connection = self.connection
        rows = self.build(game_id, key, records)
        connection.execute("BEGIN IMMEDIATE")
        if not self.chunk:
            connection.executemany(self.head + self.values, rows)
        else:
            for start in range(0, len(rows), self.chunk):
                part = rows[start:start + self.chunk]
                statement = self.statements.get(len(part))
                if statement is None:
                    statement = self.statements[len(part)] = self.head + ", ".join([self.values] * len(part))
                connection.execute(statement, [value for row in part for value in row])
        connection.execute("COMMIT")


def through(path: Path, schema: Schema, games: Sequence[tuple[str, Sequence[Record]]], write: bool = True) -> float:
    """CPU seconds the schema's prototype writer takes to store ``games`` into a fresh file at ``path``."""
    connection = connect(path, schema.page_size)
    create(connection, schema, [game_id for game_id, _ in games])
    writer = Writer(connection, schema)
    began = time.process_time()
    if write:
        for key, (game_id, records) in enumerate(games, 1):
            writer.write(game_id, key, records)
    took = time.process_time() - began
    connection.close()
    return took


def _peer():
    import bench.peer_eventstore as peer  # pyeventsourcing: only where the peer runs

    return peer


def rates(names: Sequence[str], count: int, rounds: int) -> dict[str, float]:
    """Events per second of the peer and of each named schema, best of ``rounds`` alternating rounds."""
    peer = _peer()
    games = peer.games_of(count)
    stored = peer.peer_events(games)
    best = dict.fromkeys(["peer", *names], float("inf"))
    with tempfile.TemporaryDirectory() as directory:
        for round_ in range(rounds):
            for name in best:
                path = Path(directory) / f"{name}-{round_}.db"
                took = peer.through_eventsourcing(path, stored) if name == "peer" else through(
                    path, BY_NAME[name], games)
                best[name] = min(best[name], took)
                for leftover in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
                    leftover.unlink(missing_ok=True)
    return {name: count * peer.EVENTS / took for name, took in best.items()}


def instructions(names: Sequence[str], count: int) -> dict[str, float]:
    """Instructions per event of the peer and of each named schema (callgrind: a writing run minus a setting-up one)."""
    per_event = {}
    for name in ["peer", *names]:
        totals = []
        for write in (True, False):
            command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
                       "--games", str(count), "--run", name] + ([] if write else ["--no-write"])
            done = subprocess.run(command, capture_output=True, text=True, check=True,
                                  env={**os.environ, "PYTHONHASHSEED": "0"})
            found = _callgrind_total(done.stderr)
            if found is None:
                sys.exit(f"no instruction count in valgrind's output: {done.stderr.strip()[-200:]}")
            totals.append(found)
        per_event[name] = (totals[0] - totals[1]) / (count * 250)
    return per_event


def _callgrind_total(report: str) -> int | None:
    from bench.verify_instructions import totals_of

    found = totals_of(report)
    return None if found is None else found["instructions"]


def _run_once(name: str, count: int, write: bool) -> None:
    """One side, once (what --instructions runs under callgrind)."""
    peer = _peer()
    games = peer.games_of(count)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "counted.db"
        if name != "peer":
            through(path, BY_NAME[name], games, write)
        else:
            stored = peer.peer_events(games)  # made in both runs: only the writing is counted
            peer.through_eventsourcing(path, stored if write else [])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", nargs="+", choices=list(BY_NAME), help="these schemas only")
    parser.add_argument("--instructions", action="store_true", help="count instructions under callgrind instead")
    parser.add_argument("--run", choices=["peer", *BY_NAME], help=argparse.SUPPRESS)
    parser.add_argument("--no-write", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    names = args.only or list(BY_NAME)
    if args.run:
        _run_once(args.run, args.games or 40, not args.no_write)
        return
    if args.instructions:
        try:
            counted = instructions(names, args.games or 40)
        except FileNotFoundError:
            sys.exit("valgrind is not installed (apt install valgrind)")
        print(f"peer: eventsourcing={counted['peer']:.0f} instructions/event")
        for name in names:
            print(f"schema {name}: {counted[name]:.0f} instructions/event ratio: {counted['peer'] / counted[name]:.2f}"
                  f"  ({BY_NAME[name].about})")
        return
    measured = rates(names, args.games or 400, args.rounds)
    print(f"peer: eventsourcing={measured['peer']:.0f} events/s", flush=True)
    for name in names:
        print(f"schema {name}: {measured[name]:.0f} events/s ratio: {measured[name] / measured['peer']:.2f}"
              f"  ({BY_NAME[name].about})")


if __name__ == "__main__":
    main()
