"""The writer's cost of storing a finished game vs SQLite's own insert of the same rows, one run.

G Tails on Fire games (default 256) are played once by random bots, in this process, and
each Result is pickled as a worker sends it to the parent. Then, into fresh migrated SQLite
files (WAL, synchronous=NORMAL, the append-only and contiguity triggers in place):

* tourney: what the parent of `tourney run` does per game: unpickle the worker's result and
  store it through the tournament writer (tournaments.play.writer.GroupCommit with the
  runner's limits: up to MAX_GAMES games per transaction), game row, events and seats;
* raw: sqlite3's own executemany of the very same rows (already built as tuples), one
  transaction per batch of the same size.

Both sides are timed in CPU seconds of this process (time.process_time: SQLite runs in it, and
with WAL and synchronous=NORMAL a commit does not wait for the disk), so that other work on a
busy machine does not count. Rounds alternate; the best round of each is kept. The line
printed is (a contract, kept exactly):

    store: tourney=N games/s raw=N games/s ratio: X

``--group 1`` measures one transaction per game (how the writer stored games before groups).

Usage: python bench/store.py [--games G] [--rounds R] [--group N]
"""

from __future__ import annotations

import argparse
import pickle
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ledger import dialect  # noqa: E402 (after the sys.path line)
from ledger import tournaments as tournament_rows  # noqa: E402
from ledger.canonical import canonical  # noqa: E402
from ledger.store import Ledger  # noqa: E402
from replays.archive import finished_game  # noqa: E402
from tournaments.bots.discovery import discover  # noqa: E402
from tournaments.bots.spec import Limits  # noqa: E402
from tournaments.play.runner import Job, Spec, play_job  # noqa: E402
from tournaments.play.schedule import schedule  # noqa: E402
from tournaments.play.writer import MAX_GAMES, GroupCommit  # noqa: E402

GAME = "tails-on-fire"
SEATS = 4


def played(games: int, directory: Path) -> list[bytes]:
    """``games`` finished games, each pickled as a worker sends its Result."""
    folder = directory / "bots"
    folder.mkdir()
    for i in range(SEATS):
        shutil.copy(ROOT / "bots" / "random_bot.py", folder / f"random{i}.py")
    bots, _ = discover(folder, GAME)
    limits = Limits()
    spec = Spec(GAME, SEATS, -(-games // SEATS), "bench", limits.move_time, limits.time_bank, tuple(bots))
    scheduled = schedule([b.name for b in bots], SEATS, spec.games, "bench")[:games]
    return [pickle.dumps(play_job(Job(spec, s), in_worker=True), protocol=pickle.HIGHEST_PROTOCOL)
            for s in scheduled]


def fresh(path: Path, results: list) -> tuple[Ledger, int, dict[str, int]]:
    """A migrated ledger with the tournament and bots the games belong to."""
    ledger = Ledger(str(path))
    names = sorted({seat.name for result in results for seat in result.recorded.seats})
    with ledger.write() as connection:
        ids = {name: ledger.ensure_bot(name, "0" * 64, "python", connection) for name in names}
    tournament = tournament_rows.create(ledger, "bench", GAME, "{}", "bench", list(ids.values()))
    return ledger, tournament, ids


def through_tourney(path: Path, blobs: list[bytes], group: int) -> float:
    ledger, tournament, ids = fresh(path, [pickle.loads(blobs[0])])

    def store(connection, group) -> None:  # as tournaments.play.runner.execute stores a group
        ledger.store_games([finished_game(r.recorded, [ids[s.name] for s in r.recorded.seats], r.scores, tournament,
                                          r.key) for r in group], connection)

    writer = GroupCommit(ledger, store, alone=lambda _result: True, stored=lambda _result, _new: None,
                         max_games=group)
    began = time.process_time()
    for blob in blobs:
        writer.add(pickle.loads(blob))
    writer.flush()
    took = time.process_time() - began
    ledger.close()
    return took


def rows(blobs: list[bytes], tournament: int, ids: dict[str, int]) -> list[tuple[tuple, list, list]]:
    """Per game, the rows the ledger writes: the game row, its events, its seats."""
    out = []
    for blob in blobs:
        result = pickle.loads(blob)
        recorded = result.recorded
        game = (recorded.game_id, recorded.game, recorded.engine_version, canonical(recorded.config).decode(),
                recorded.seed_commitment, recorded.seed, tournament, result.key, "finished", len(recorded.records),
                recorded.head, recorded.reason, "2026-11-30T00:00:00+00:00", "5" * 128)  # ..., created_at, signature
        events = [(recorded.game_id, r.seq, r.type, r.audience, r.body, r.private, r.salt, r.hash)
                  for r in recorded.records]
        seats = [(recorded.game_id, seat, ids[s.name], recorded.ranking[seat],
                  None if result.scores is None else result.scores[seat]) for seat, s in enumerate(recorded.seats)]
        out.append((game, events, seats))
    return out


def through_raw(path: Path, blobs: list[bytes], group: int) -> float:
    ledger, tournament, ids = fresh(path, [pickle.loads(blobs[0])])
    ledger.close()
    games = rows(blobs, tournament, ids)
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA synchronous = NORMAL")
    connection.execute("PRAGMA foreign_keys = ON")
    began = time.process_time()
    for start in range(0, len(games), group):
        batch = games[start:start + group]
        connection.execute("BEGIN IMMEDIATE")
        connection.executemany(dialect.INSERT_GAME, [game for game, _, _ in batch])
        connection.executemany(dialect.INSERT_EVENT, [event for _, events, _ in batch for event in events])
        connection.executemany(dialect.INSERT_SEAT, [seat for _, _, seats in batch for seat in seats])
        connection.execute("COMMIT")
    took = time.process_time() - began
    connection.close()
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--group", type=int, default=MAX_GAMES, help="games per transaction (default: the writer's)")
    args = parser.parse_args()
    best = {"tourney": float("inf"), "raw": float("inf")}
    with tempfile.TemporaryDirectory() as directory:
        blobs = played(args.games, Path(directory))
        for round_ in range(args.rounds):
            for side, measure in (("tourney", through_tourney), ("raw", through_raw)):
                took = measure(Path(directory) / f"{side}-{round_}.db", blobs, args.group)
                best[side] = min(best[side], took)
    tourney, raw = len(blobs) / best["tourney"], len(blobs) / best["raw"]
    print(f"store: tourney={tourney:.0f} games/s raw={raw:.0f} games/s ratio: {tourney / raw:.2f}")


if __name__ == "__main__":
    main()
