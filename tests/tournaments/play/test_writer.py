"""The tournament writer's groups on every backend: one transaction per group, a bounded wait, and a
failed group stored again game by game; bench/store.py's line."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from ledger.chain import seal
from ledger.store import FinishedGame, GameExists, Ledger, SeatRow
from tournaments.play.writer import GroupCommit

ROOT = Path(__file__).resolve().parents[3]


def finished(game_id: str, bot: int) -> FinishedGame:
    records, prev = [], None
    for seq in range(5):
        records.append(seal(game_id, seq, prev, "played", {"seq": seq}, None, (), None))
        prev = records[-1].hash
    row = {"id": game_id, "game": "high-cards", "engine_version": 1, "config": "{}", "seed_commitment": "c" * 64}
    return FinishedGame(row, records, "seed", "finished", [SeatRow(0, bot, 1, None)])


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def writer_ledger(backend):
    ledger = Ledger(backend.url)
    yield ledger, ledger.ensure_bot("alpha", "a" * 64, "python")
    ledger.close()


def make_writer(ledger: Ledger, heard: list, clock: Clock, max_games: int = 3) -> GroupCommit:
    def alone(game: FinishedGame) -> bool:
        try:
            ledger.store_game(game.game, game.records, game.seed, game.end_reason, game.seats)
        except GameExists:
            return False
        return True

    return GroupCommit(ledger, lambda connection, group: ledger.store_games(group, connection), alone,
                       lambda game, new: heard.append((game.game["id"], new, ledger.game(game.game["id"]) is not None)),
                       max_games=max_games, max_delay=0.5, clock=clock)


def test_a_full_group_is_stored_at_once_and_announced_after_commit(writer_ledger):
    """Games wait until the group is full, then are stored together; each is announced once it is committed."""
    ledger, bot = writer_ledger
    heard, clock = [], Clock()
    writer = make_writer(ledger, heard, clock)
    writer.add(finished("g1", bot))
    writer.add(finished("g2", bot))
    assert heard == [] and ledger.game("g1") is None
    writer.add(finished("g3", bot))
    assert heard == [("g1", True, True), ("g2", True, True), ("g3", True, True)]
    assert [len(ledger.records(g)) for g in ("g1", "g2", "g3")] == [5, 5, 5]


def test_a_game_waits_at_most_the_delay_once_another_arrives(writer_ledger):
    """When the first pending game has waited max_delay, the next arrival stores the group however small."""
    ledger, bot = writer_ledger
    heard, clock = [], Clock()
    writer = make_writer(ledger, heard, clock, max_games=32)
    writer.add(finished("g1", bot))
    clock.now = 0.6
    writer.add(finished("g2", bot))
    assert [game for game, _, _ in heard] == ["g1", "g2"]
    writer.add(finished("g3", bot))
    assert len(heard) == 2
    writer.flush()
    assert [game for game, _, _ in heard] == ["g1", "g2", "g3"]


def test_a_group_with_a_stored_game_keeps_the_others(writer_ledger):
    """A group holding a game already stored (a concurrent resume) is stored again game by game: no loss."""
    ledger, bot = writer_ledger
    ledger.store_games([finished("g2", bot)])
    heard, clock = [], Clock()
    writer = make_writer(ledger, heard, clock)
    for game_id in ("g1", "g2", "g3"):
        writer.add(finished(game_id, bot))
    assert heard == [("g1", True, True), ("g2", False, True), ("g3", True, True)]


def test_a_group_failing_for_good_raises(writer_ledger):
    """A game that cannot be stored alone either (its bot does not exist) stops the writer with its error."""
    ledger, bot = writer_ledger
    heard, clock = [], Clock()
    writer = make_writer(ledger, heard, clock, max_games=2)
    writer.add(finished("g1", bot))
    with pytest.raises(Exception, match=r"(?i)foreign key"):
        writer.add(finished("g2", 999_999))
    assert heard == [("g1", True, True)]


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_bench_store_prints_its_line(tmp_path, backend):
    """bench/store.py prints `store: tourney=N games/s raw=N games/s ratio: X` first (a contract), then its lines
    per game (tests/bench/test_every_bench.py checks those)."""
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "store.py"), "--games", "8", "--rounds", "1"],
                            capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    assert re.fullmatch(r"store: tourney=\d+ games/s raw=\d+ games/s ratio: \d+\.\d\d", result.stdout.splitlines()[0])
