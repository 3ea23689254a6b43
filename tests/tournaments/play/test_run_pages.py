"""`tourney run` walks its plan a page at a time (issue 39 item 4): it holds one page of a stage's games and none of
the stored results (tournaments.play.create_or_resume.Run.stages, tournaments.play.plan_pages.stages), and a run
stopped mid-stage and resumed, reading the stored results back a page at a time, stores the same tournament as a
run never stopped: round robin, Swiss (its rounds drawn from scores read in pages) and an SPRT match (its batches'
blocks read in pages).

Real runs of tourney's builtin random bot in this process (``--jobs 0``), into real SQLite files; pages of a few
games, so that every stage spans many pages."""

from __future__ import annotations

import gc
import hashlib
import tracemalloc
from pathlib import Path

import pytest

import tournaments
from ledger import read_pages
from ledger.rows import tournament_rows
from ledger.store import Ledger
from tests.tournaments.play.test_seeds import Interrupted, interrupt_after
from tournaments.bots.spec import BUILTIN, BotSpec, Limits
from tournaments.play import candidate_match, formats, plan_pages, runner, standings
from tournaments.play.jobs import Job
from tournaments.play.schedule import Scheduled
from tournaments.ratings.sprt import Sprt

GAME = "tails-on-fire"
QUIET = {"jobs": 0, "sandbox": "off", "seed": "1", "players": 2}
PACKAGES = Path(tournaments.__file__).parent
HELD = [tracemalloc.Filter(True, f"{PACKAGES}/play/*"), tracemalloc.Filter(True, f"{PACKAGES}/library/*"),
        tracemalloc.Filter(True, f"{PACKAGES.parent}/ledger/read_pages.py")]
"""Where what the runner keeps is allocated (its plan, its stages, its pages, the results it reads back); a game
being played or stored allocates in engines/, replays/ and the rest of ledger/, and is let go once stored."""


def builtin(count: int) -> list[BotSpec]:
    return [BotSpec(f"bot{i}", BUILTIN, "", hashlib.sha256(f"bot{i}".encode()).hexdigest()) for i in range(count)]


def live(kind: type) -> int:
    return sum(isinstance(thing, kind) for thing in gc.get_objects())


class Watching(tournaments.Observer):
    """At chosen games of a run (counted as stored): the planned games and jobs alive, and the Python memory the
    runner's own modules hold (tracemalloc), after a full collection."""

    def __init__(self, at: tuple[int, ...]) -> None:
        self.at, self.games = at, 0
        self.planned: dict[int, int] = {}
        self.held: dict[int, int] = {}

    def game(self, result) -> None:
        self.games += 1
        if self.games in self.at:
            gc.collect()
            self.planned[self.games] = live(Scheduled) + live(Job)
            snapshot = tracemalloc.take_snapshot().filter_traces(HELD)
            self.held[self.games] = sum(trace.size for trace in snapshot.traces)


@pytest.mark.slow
def test_a_run_holds_a_page_of_its_plan_and_no_result_per_game(tmp_path, monkeypatch):
    """A round robin of 300 games walked 20 games a page: at any time at most two pages of planned games (and their
    jobs) are alive, never the plan's 300; and what the runner's modules hold grows by well under 100 bytes a
    game from the 30th game to the 270th (the kept results grew it by ~150 bytes a game here, when every result
    was kept by key)."""
    monkeypatch.setattr(plan_pages, "PAGE", 20)
    watching = Watching((30, 150, 270))
    tracemalloc.start()
    try:
        result = tournaments.run_tournament(builtin(6), GAME, games=10, db=str(tmp_path / "t.db"), observer=watching,
                                            **QUIET)
    finally:
        tracemalloc.stop()
    assert result.stored == result.total == 300  # 15 tables, 10 deals, 2 seats
    assert max(watching.planned.values()) <= 2 * (2 * 20) + 4, watching.planned
    grown = watching.held[270] - watching.held[30]
    assert grown < 240 * 40, watching.held


def stored_results(ledger: Ledger, name: str) -> dict[str, list[tuple[str, int]]]:
    row = tournament_rows.get(ledger, name)
    with ledger.read() as connection:
        return {key: seats for page in read_pages.tournament_result_pages(connection, row["id"], 100)
                for key, seats in page.items()}


def played(db: Path, spec: runner.Spec, stop: int | None = None) -> tuple[Ledger, runner.Run]:
    """``spec`` played in this process into ``db`` (each game stored as it ends), stopped after ``stop`` games and
    resumed when given."""
    ledger = Ledger(str(db))
    if stop is not None:
        with pytest.raises(Interrupted):
            runner.execute(ledger, runner.open_run(ledger, "cup", spec, False), 0, interrupt_after(stop))
    the_run = runner.open_run(ledger, "cup", spec, stop is not None)
    assert the_run.done == (stop or 0)
    runner.execute(ledger, the_run, 0)
    return ledger, the_run


FORMATS = {"round-robin": (None, 5, 11), "gauntlet": (formats.Gauntlet("bot0"), 5, 6),
           "swiss": (formats.Swiss(3), 5, 13)}
"""A format, its bots, and the game its run is stopped at (mid-stage: a Swiss round has 8 games, in 3 pages)."""


@pytest.mark.parametrize("form", FORMATS)
def test_a_tournament_stopped_mid_stage_resumes_page_by_page_to_the_same_games(tmp_path, monkeypatch, form):
    """Stopped mid-stage, then resumed with pages of three games: every planned game stored once, with the same
    seats and ranks as a run never stopped, and the same standings (a Swiss round drawn from scores read back a
    page at a time draws the same tables)."""
    monkeypatch.setattr(plan_pages, "PAGE", 3)
    chosen, bots, stop = FORMATS[form]
    spec = runner.Spec(GAME, 2, 2, "1", 1.0, 5.0, tuple(builtin(bots)), format=chosen)
    resumed, stopped_run = played(tmp_path / "stopped.db", spec, stop)
    whole, whole_run = played(tmp_path / "whole.db", spec)
    assert stored_results(resumed, "cup") == stored_results(whole, "cup")
    assert len(stored_results(whole, "cup")) == whole_run.total == stopped_run.done
    assert stopped_run.over() and whole_run.over()
    shown = [standings.of_tournament(ledger, "cup").to_json()["standings"] for ledger in (resumed, whole)]
    assert shown[0] == shown[1] and len(shown[0]) == bots


def test_an_sprt_match_stopped_mid_batch_resumes_to_the_same_statistics(tmp_path, monkeypatch):
    """An SPRT match in batches of three deals, stopped in its second batch and resumed with pages of two games:
    the same games, and the same statistics (LLR, decision, blocks, wins) as a match never stopped."""
    monkeypatch.setattr(plan_pages, "PAGE", 2)
    candidate, baseline = builtin(2)
    spec = candidate_match.build(candidate, baseline, (), GAME, 2, 12, "1", Limits(1.0, 5.0), Sprt(-20, 20), 3)
    resumed, stopped_run = played(tmp_path / "stopped.db", spec, 8)
    whole, _ = played(tmp_path / "whole.db", spec)
    assert stored_results(resumed, "cup") == stored_results(whole, "cup")
    assert len(stored_results(whole, "cup")) == stopped_run.done > 8
    mine, theirs = candidate_match.of_tournament(resumed, "cup")[1], candidate_match.of_tournament(whole, "cup")[1]
    assert mine.to_json() == theirs.to_json()
    assert candidate_match.statistics(stopped_run.plan, stopped_run.stored).to_json() == theirs.to_json()
