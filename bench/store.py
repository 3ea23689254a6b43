"""The writer's cost of storing finished games, and what a game costs on disk, sealed and in rows, one run.

Games of each game are played once by random bots, in this process (Tails on Fire at four seats,
Nine Tails at three, Lemur Tails at two), and each Result is pickled as a worker sends it to the
parent. Then, into fresh migrated SQLite files (WAL, synchronous=NORMAL, the triggers in place):

* tourney: what the parent of `tourney run` does per game: unpickle the worker's result and
  store it through the tournament writer (tournaments.play.writer.GroupCommit with the runner's
  limits: up to MAX_GAMES games per transaction): game row, sealed block, seats;
* rows: the same writer storing each game as the release before sealed games did (revision 0011's
  layout: one events row per event, in the table the live games still use), the game row signed
  and numbered the same way;
* raw (Tails on Fire only): sqlite3's own executemany of the very rows tourney wrote (game rows,
  sealed blocks, seats, dictionaries: read back from its file), one transaction per batch of the
  same size, so the ratio is tourney's whole cost (sealing included) over SQLite's insert alone.

Each side is timed in CPU seconds of this process (time.process_time: SQLite runs in it, and with
WAL and synchronous=NORMAL a commit does not wait for the disk), so other work on a busy machine
does not count. Rounds alternate; the best round of each is kept. bytes/game is the file's growth
(WAL checkpointed) over an empty ledger with the same bots, divided by the games: the sealed side's
includes its first games, stored before their dictionary, and the dictionary itself. The lines
printed are (a contract, kept exactly):

    store: tourney=N games/s raw=N games/s ratio: X
    <game> rows: store: bytes/game=N games/s=N
    <game> sealed: store: bytes/game=N games/s=N ratio: X

the last ratio being the sealed side's games/s over the rows side's.

``--group 1`` measures one transaction per game (how the writer stored games before groups);
``--quick`` plays a few games of each, one round (what tests/bench runs to keep this script working).

Usage: python bench/store.py [--games G] [--rounds R] [--group N] [--quick]
"""

from __future__ import annotations

import argparse
import pickle
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ledger import dialect, signing_keys  # noqa: E402 (after the sys.path line)
from ledger.rows import tournament_rows  # noqa: E402
from ledger.store import FinishedGame, Ledger, now  # noqa: E402
from replays.archive import finished_game  # noqa: E402
from tournaments.bots.discovery import discover  # noqa: E402
from tournaments.bots.spec import Limits  # noqa: E402
from tournaments.play.runner import Job, Spec, play_job  # noqa: E402
from tournaments.play.schedule import schedule  # noqa: E402
from tournaments.play.writer import MAX_GAMES, GroupCommit  # noqa: E402

GAMES = {"tails-on-fire": 4, "nine-tails": 3, "lemur-tails": 2}
"""Each game and its seats."""
SHARE = {"tails-on-fire": 1.0, "nine-tails": 0.125, "lemur-tails": 0.5}
"""Games of each, as a share of --games (a random Nine Tails game is ten times a Tails on Fire one)."""


def played(game: str, seats: int, games: int, directory: Path) -> list[bytes]:
    """``games`` finished games, each pickled as a worker sends its Result."""
    folder = directory / f"bots-{game}"
    folder.mkdir()
    for i in range(seats):
        shutil.copy(ROOT / "bots" / "random_bot.py", folder / f"random{i}.py")
    bots, _ = discover(folder, game)
    limits = Limits()
    spec = Spec(game, seats, -(-games // seats), "bench", limits.move_time, limits.time_bank, tuple(bots))
    scheduled = schedule([b.name for b in bots], seats, spec.games, "bench")[:games]
    return [pickle.dumps(play_job(Job(spec, s), in_worker=True), protocol=pickle.HIGHEST_PROTOCOL)
            for s in scheduled]


def fresh(path: Path, game: str, results: list) -> tuple[Ledger, int, dict[str, int]]:
    """A migrated ledger with the tournament and bots the games belong to."""
    ledger = Ledger(str(path))
    names = sorted({seat.name for result in results for seat in result.recorded.seats})
    with ledger.write() as connection:
        ids = {name: ledger.ensure_bot(name, "0" * 64, "python", connection) for name in names}
    tournament = tournament_rows.create(ledger, "bench", game, "{}", "bench", list(ids.values()))
    ledger.signing_key()
    return ledger, tournament, ids


def file_bytes(path: Path) -> int:
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages, size = (connection.execute(f"PRAGMA {name}").fetchone()[0] for name in ("page_count", "page_size"))
    connection.close()
    return pages * size


def in_rows(ledger: Ledger, games: list[FinishedGame], connection) -> None:
    """Store games as revision 0011 did: game rows signed and numbered, one events row per event, seats."""
    key = ledger.signing_key(connection)
    created = now()
    game_rows, event_rows, seat_rows = [], [], []
    for finished in games:
        game_id, records = finished.game["id"], finished.records
        head = records[-1].hash
        row = {**finished.game, "status": "finished", "events": len(records), "head": head, "seed": finished.seed,
               "end_reason": finished.end_reason, "created_at": created,
               "signature": key.sign(signing_keys.log_message(game_id, head))}
        game_rows.append(tuple(row.get(column) for column in dialect.GAME_COLUMNS))
        event_rows.extend((game_id, *record) for record in records)
        seat_rows.extend((game_id, s.seat, s.bot_id, s.rank, s.score) for s in finished.seats)
    connection.exec_driver_sql(dialect.INSERT_GAME, game_rows)
    connection.exec_driver_sql(dialect.INSERT_EVENT, event_rows)
    connection.exec_driver_sql(dialect.INSERT_SEAT, seat_rows)


def through_writer(path: Path, game: str, blobs: list[bytes], group: int, sealed: bool) -> tuple[float, int]:
    """CPU seconds the writer took to store every game, and the bytes they added to the file."""
    ledger, tournament, ids = fresh(path, game, [pickle.loads(blobs[0])])
    empty = file_bytes(path)
    keep: Callable = ledger.store_games if sealed else lambda games, connection: in_rows(ledger, games, connection)

    def store(connection, group) -> None:  # as tournaments.play.runner.execute stores a group
        keep([finished_game(r.recorded, [ids[s.name] for s in r.recorded.seats], r.scores, tournament, r.key)
              for r in group], connection)

    writer = GroupCommit(ledger, store, alone=lambda _result: True, stored=lambda _result, _new: None,
                         max_games=group)
    began = time.process_time()
    for blob in blobs:
        writer.add(pickle.loads(blob))
    writer.flush()
    took = time.process_time() - began
    ledger.close()
    return took, (file_bytes(path) - empty) // len(blobs)


TABLES = ("sealed_dictionaries", "games", "sealed_games", "seats")


def stored_rows(path: Path) -> dict[str, tuple[list[str], list[tuple]]]:
    """Every row tourney wrote for the games (table -> columns, rows in store order)."""
    out = {}
    with sqlite3.connect(path) as connection:
        for table in TABLES:
            order = {"games": "store_seq", "sealed_games": "store_seq", "seats": "rowid", "sealed_dictionaries": "id"}
            cursor = connection.execute(f"SELECT * FROM {table} ORDER BY {order[table]}")
            out[table] = ([column[0] for column in cursor.description], cursor.fetchall())
    connection.close()
    return out


def through_raw(path: Path, game: str, blobs: list[bytes], rows: dict, group: int) -> float:
    ledger, _tournament, _ids = fresh(path, game, [pickle.loads(blobs[0])])
    ledger.close()
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA synchronous = NORMAL")
    connection.execute("PRAGMA foreign_keys = ON")
    inserts = {table: f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
               for table, (columns, _rows) in rows.items()}
    games, blocks, seats = rows["games"][1], rows["sealed_games"][1], rows["seats"][1]
    seats_of: dict[str, list[tuple]] = {}
    for seat in seats:
        seats_of.setdefault(seat[0], []).append(seat)
    began = time.process_time()
    connection.execute("BEGIN IMMEDIATE")
    connection.executemany(inserts["sealed_dictionaries"], rows["sealed_dictionaries"][1])
    connection.execute("COMMIT")
    for start in range(0, len(games), group):
        connection.execute("BEGIN IMMEDIATE")
        connection.executemany(inserts["games"], games[start:start + group])
        connection.executemany(inserts["sealed_games"], blocks[start:start + group])
        connection.executemany(inserts["seats"], [seat for g in games[start:start + group] for seat in seats_of[g[0]]])
        connection.execute("COMMIT")
    took = time.process_time() - began
    connection.close()
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=256, help="Tails on Fire games (the others: a share of it)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--group", type=int, default=MAX_GAMES, help="games per transaction (default: the writer's)")
    parser.add_argument("--quick", action="store_true", help="16 Tails on Fire games, one round")
    args = parser.parse_args()
    if args.quick:
        args.games, args.rounds = 16, 1
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        lines = []
        for game, seats in GAMES.items():
            blobs = played(game, seats, max(2, round(args.games * SHARE[game])), folder)
            best = {"rows": (float("inf"), 0), "sealed": (float("inf"), 0), "raw": (float("inf"), 0)}
            for round_ in range(args.rounds):
                for side in ("rows", "sealed"):
                    path = folder / f"{game}-{side}-{round_}.db"
                    took, size = through_writer(path, game, blobs, args.group, side == "sealed")
                    best[side] = min(best[side], (took, size))
                    if side == "sealed" and game == "tails-on-fire":
                        raw = through_raw(folder / f"raw-{round_}.db", game, blobs, stored_rows(path), args.group)
                        best["raw"] = min(best["raw"], (raw, 0))
                    path.unlink()
            rate = {side: len(blobs) / took for side, (took, _size) in best.items()}
            if game == "tails-on-fire":
                lines.insert(0, f"store: tourney={rate['sealed']:.0f} games/s raw={rate['raw']:.0f} games/s "
                                f"ratio: {rate['sealed'] / rate['raw']:.2f}")
            lines.append(f"{game} rows: store: bytes/game={best['rows'][1]} games/s={rate['rows']:.0f}")
            lines.append(f"{game} sealed: store: bytes/game={best['sealed'][1]} games/s={rate['sealed']:.0f} "
                         f"ratio: {rate['sealed'] / rate['rows']:.2f}")
        print("\n".join(lines))


if __name__ == "__main__":
    main()
