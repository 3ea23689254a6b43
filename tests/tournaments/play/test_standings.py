"""`tourney standings --check` and `--interval bootstrap` (tournaments/play/standings.py) read every game's result
from its hashed events a page at a time (replays.facts.pages): what they hold is a page of results and the sums (the
bootstrap: each game's (bot, rank) per seat, never its Fact), and they print what they printed when they held every
game, who vouches for the games included."""

from __future__ import annotations

import pytest

from ledger import checkpoints
from ledger.rows import tournament_rows
from ledger.store import Ledger
from replays import archive, facts, projections
from tests.cli import invoke
from tests.held import AliveFacts
from tests.replays.forgery import real_log
from tests.tournaments.play.test_protocol import GAME
from tournaments.play import standings


def stored(backend, early: int = 4, late: int = 1) -> None:
    """A tournament named cup: ``early`` games under a checkpoint, ``late`` stored after it (vouched for by their own
    signatures)."""
    ledger = Ledger(backend.url)
    try:
        for number in range(early):
            archive.import_log(ledger, real_log(GAME, f"early{number}", game_id=f"early-{number}"), tournament="cup")
        checkpoints.write(ledger, tournament_rows.scope(tournament_rows.get(ledger, "cup")))
        for number in range(late):
            archive.import_log(ledger, real_log(GAME, f"late{number}", game_id=f"late-{number}"), tournament="cup")
    finally:
        ledger.close()


def test_the_check_prints_what_standings_print_trust_included(backend):
    """On a sound ledger `standings --check` prints exactly what `standings` prints (each format), the checkpoint and
    the game stored after it included: the pages' trust is the one the standings show."""
    stored(backend)
    for extra in ((), ("--json",), ("--csv",)):
        plain = invoke("standings", "cup", *extra, "--db", backend.url, width=200)
        checked = invoke("standings", "cup", "--check", *extra, "--db", backend.url, width=200)
        assert plain.exit_code == 0 and checked.exit_code == 0, (plain.output, checked.output)
        assert checked.output == plain.output
    shown = invoke("standings", "cup", "--check", "--db", backend.url, width=200).output
    assert "checkpoint " in shown and "over 4 games" in shown, shown
    assert "1 game stored after the last checkpoint, each checked by its own signature" in shown, shown


@pytest.mark.parametrize("interval", [standings.CURVATURE, standings.BOOTSTRAP])
def test_the_check_and_the_bootstrap_hold_a_page_of_results_not_the_tournament(backend, monkeypatch, interval):
    """With a page of one game, when the check compares its sums (every game read) and when the bootstrap resamples,
    no more results of games are alive than a page holds; the bootstrap resamples every game, in key order."""
    page = 1
    stored(backend, early=5, late=2)
    monkeypatch.setattr(checkpoints, "PAGE", page)
    alive = AliveFacts()
    bootstrap = standings.ratings.bootstrap_ci
    resampled: list[list] = []

    def kept(games):
        resampled.append([list(game) for game in games])
        return bootstrap(games)

    monkeypatch.setattr(standings.ratings, "bootstrap_ci", kept)
    alive.before_each_call(monkeypatch, projections, "_compare")
    alive.before_each_call(monkeypatch, standings.ratings, "bootstrap_ci")
    ledger = Ledger(backend.url)
    try:
        shown = standings.of_tournament(ledger, "cup", interval=interval, check=True)
        found = facts.read(ledger, tournament_rows.scope(tournament_rows.get(ledger, "cup")))
    finally:
        ledger.close()
    assert shown.games == 7 and len(alive.counts) == (2 if interval == standings.BOOTSTRAP else 1), alive.counts
    assert max(alive.counts) <= page, alive.counts
    if interval == standings.BOOTSTRAP:
        every = sorted(found.facts, key=lambda fact: (fact.key or "", fact.game_id))
        assert resampled == [[[(seat.bot, seat.rank) for seat in fact.seats] for fact in every]]


def fact(game_id: str, key: str | None, seats: tuple[tuple[str, int], ...]) -> facts.Fact:
    return facts.Fact(game_id, key, "", tuple(facts.Seat(seat, 0, bot, "", rank, None)
                                               for seat, (bot, rank) in enumerate(seats)),
                      "end", None, "", "", 0, None, False)


def test_the_bootstrap_resamples_the_games_in_their_order_of_keys_sharing_each_seat():
    """``Resampled`` gives the games in the order the bootstrap always drew them from (schedule key, then id; a game
    without a key first), each seat's (bot, rank) one object shared by every game that has it."""
    games = [fact("g3", "t1-d0-r1", (("b", 1), ("a", 2))), fact("g1", None, (("a", 1), ("b", 2))),
             fact("g2", "t0-d0-r0", (("a", 1), ("b", 2))), fact("g0", "", (("b", 1), ("a", 1))),
             fact("g9", "t0-d0-r0x", (("a", 2), ("b", 1)))]
    kept = standings.Resampled()
    for found in games:
        kept.add(found)
    ordered = sorted(games, key=lambda found: (found.key or "", found.game_id))
    assert kept.games() == [tuple((seat.bot, seat.rank) for seat in found.seats) for found in ordered]
    assert kept.games()[1][0] is kept.games()[2][0]  # ("a", 1) of g1 and of g2
