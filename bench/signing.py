"""What signed heads cost: the writer's store path with and without the signature, and a checked read.

N Lemur Tails games between random bots are recorded once (in memory), then stored, one
transaction each as the tournament writer stores them, into two fresh SQLite ledgers: one
signs every head with its Ed25519 ledger key (what tourney does), the other with a signer that
returns a constant (what storing cost before ledger keys). Rounds alternate; the best round of
each is kept. Then, on the signed ledger, the standings' checked read (replays.facts.read:
the last events and the opening of every game, their links, the checkpoint chain) is timed
against the plain join of the seat rows that standings read before. The last line is the
ratio of the signed store path to the unsigned one:

    sign one head: 52 us
    store: signed 2.41 ms/game, unsigned 2.36 ms/game (+50 us/game)
    read: checked 61 us/game, seat rows only 9 us/game (2000 games)
    ratio: 1.02

Usage: python bench/signing.py [--games N] [--rounds R]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines import registry
from engines.driver import play
from ledger import checkpoints, signing_keys
from ledger.rows import tournament_rows
from ledger.store import Ledger
from replays import facts
from replays.archive import store_recorded
from replays.record import SeatInfo, record

GAME = "lemur-tails"


class RandomAgent:
    def __init__(self, seed: int) -> None:
        self.choice = random.Random(seed).choice

    def act(self, turn) -> str:
        return self.choice(turn.legal)


class ConstantSigner:
    """Stands in for the ledger key: what storing a game cost before heads were signed."""

    def sign(self, message: bytes) -> str:
        return "0" * 128


def recorded_games(count: int) -> list:
    engine = registry.get(GAME)
    config = engine.configure(2)
    seats = [SeatInfo("a", "0" * 64), SeatInfo("b", "1" * 64)]
    return [record(engine, config, f"s{i}", play(engine, config, f"s{i}", [RandomAgent(i), RandomAgent(-i)]), seats)
            for i in range(count)]


def store_all(directory: Path, name: str, games: list, signed: bool) -> tuple[float, Ledger]:
    ledger = Ledger(str(directory / name))
    bots = [ledger.ensure_bot("a", "0" * 64, "python"), ledger.ensure_bot("b", "1" * 64, "python")]
    tournament = tournament_rows.create(ledger, "bench", GAME, "{}", "1", bots)
    ledger.signing_key()
    if not signed:
        ledger._key = ConstantSigner()  # the bench's stand-in: storing as before ledger keys
    began = time.perf_counter()
    for number, recorded in enumerate(games):
        store_recorded(ledger, recorded, bots, None, tournament, f"k{number}")
    return time.perf_counter() - began, ledger


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        key, _ = signing_keys.open_or_create(Path(folder) / "k.key")
        began = time.perf_counter()
        for i in range(2000):
            key.sign(signing_keys.log_message("g", f"{i:064x}"))
        print(f"sign one head: {(time.perf_counter() - began) / 2000 * 1e6:.0f} us")
    games = recorded_games(args.games)
    best = {True: float("inf"), False: float("inf")}
    read = plain = float("inf")
    for round_ in range(args.rounds):
        for signed in (round_ % 2 == 0, round_ % 2 == 1):
            with tempfile.TemporaryDirectory() as folder:
                seconds, ledger = store_all(Path(folder), "l.db", games, signed)
                best[signed] = min(best[signed], seconds)
                if signed:
                    checkpoints.write(ledger, tournament_rows.scope(tournament_rows.get(ledger, "bench")))
                    read, plain = min(read, timed_read(ledger)), min(plain, timed_rows(ledger))
                ledger.close()
    n = args.games
    print(f"store: signed {best[True] / n * 1e3:.2f} ms/game, unsigned {best[False] / n * 1e3:.2f} ms/game "
          f"({(best[True] - best[False]) / n * 1e6:+.0f} us/game)")
    print(f"read: checked {read / n * 1e6:.0f} us/game, seat rows only {plain / n * 1e6:.0f} us/game ({n} games)")
    print(f"ratio: {best[True] / best[False]:.2f}")


def timed_read(ledger: Ledger) -> float:
    scope = tournament_rows.scope(tournament_rows.get(ledger, "bench"))
    began = time.perf_counter()
    reading = facts.read(ledger, scope)
    assert reading.trust.covered == len(reading.facts)
    return time.perf_counter() - began


def timed_rows(ledger: Ledger) -> float:
    """The seat rows joined as standings read them before results came from the hashed events."""
    began = time.perf_counter()
    with ledger.read() as connection:
        rows = connection.exec_driver_sql(
            "SELECT g.game_key, s.seat, b.name, s.rank FROM games g JOIN seats s ON s.game_id = g.id "
            "JOIN bots b ON b.id = s.bot_id WHERE g.tournament_id = 1 ORDER BY g.game_key, s.seat").fetchall()
    assert rows
    return time.perf_counter() - began


if __name__ == "__main__":
    main()
