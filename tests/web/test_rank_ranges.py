"""Rank you can trust (issue 41 item 3): each leaderboard row carries the ranks its bot holds with 95% confidence and
whether it is tied with the row above, in the API and on the page, as the ladder's standings compute them."""

from __future__ import annotations

import re

from ledger.store import Ledger
from tests.web.league import LADDER, TRIO
from tournaments.ladder import league as ladder_league


def test_the_leaderboard_gives_each_bots_rank_range_and_ties_in_the_api_and_on_the_page(api, league):
    ledger = Ledger(str(league.path), read_only=True)
    try:
        expected = {name: ladder_league.standings(ledger, name) for name in (LADDER, TRIO)}
    finally:
        ledger.close()
    for name, standings in expected.items():
        board = api.get(f"/api/ladders/{name}").json()["leaderboard"]
        assert [(row["bot"], row["rank_low"], row["rank_high"], row["tied"]) for row in board] == [
            (s.name, s.rank_low, s.rank_high, s.tied) for s in standings]
        assert all(1 <= row["rank_low"] <= row["rank"] <= row["rank_high"] <= len(board) for row in board)
        page = api.get(f"/ladders/{name}/leaderboard").text
        cells = re.findall(r"<tr[^>]*>\s*<td>(.*?)</td>", page, flags=re.S)
        assert len(cells) == len(board)
        for cell, row in zip(cells, board, strict=True):
            assert ('title="statistically tied with the bot above (95%)">=</abbr>' in cell) is row["tied"]
            assert cell.startswith(str(row["rank"]))
            ranged = f"{row['rank_low']}–{row['rank_high']}</small>"
            assert (ranged in cell) is (row["rank_high"] > row["rank_low"])
    # The seeded league's bots have a handful of games: no rank is sure yet, and some neighbours are tied.
    assert any(s.tied for standings in expected.values() for s in standings)
    assert any(s.rank_high > s.rank_low for standings in expected.values() for s in standings)
