"""Every page with a table, in Chromium at 1280 and 390 px (issue 41): the page never scrolls sideways, and what
it calls essential (rank, name and rating; a tournament's Elo; an owner's retire button) is on screen, never
hidden off to the right of a table's scrolling box. On a phone the other columns collapse until "all columns"
is ticked (no script)."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import httpx
import pytest

from tests.browser import expect
from tests.tournaments.ladder.test_divisions import make as divided
from tests.tournaments.ladder.test_divisions import play as play_divided
from tests.web.league import LADDER, TOURNAMENT, TRIO
from tests.web.live import start, stop
from tests.web.test_api import CHATTY_BOT
from tests.web.test_leaderboard_export import claim
from tests.web.test_owners import RAISES, sign_in, site  # noqa: F401 (site: the fixture sign_in's server)

WIDTHS = (1280, 390)
CELLS = """([selector, names]) => {
  const out = [];
  for (const table of document.querySelectorAll(selector)) {
    const heads = [...table.tHead.rows[0].cells].map(cell => cell.textContent.replace(/[▲▼]/g, '').trim());
    const wanted = heads.flatMap((text, index) => names.includes(text) ? [index] : []);
    out.push({heads});
    for (const row of [table.tHead.rows[0], ...[...table.tBodies].flatMap(body => [...body.rows])]) {
      if (row.cells.length !== heads.length) continue;  // a row spanning the table ("none yet")
      for (const index of wanted) {
        const cell = row.cells[index], box = cell.getBoundingClientRect();
        out.push({column: heads[index], text: cell.textContent.trim().slice(0, 40), left: box.left,
                  right: box.right, shown: getComputedStyle(cell).display !== 'none' && box.width > 0});
      }
    }
  }
  return out;
}"""
BUTTONS = """(selector) => [...document.querySelectorAll(selector)].map(button => {
  const box = button.getBoundingClientRect();
  return {text: button.textContent.trim(), left: box.left, right: box.right, shown: box.width > 0};
})"""
PAGES = {
    "/": {"table": ["ladder"]},
    f"/ladders/{LADDER}": {"table.leaderboard": ["#", "bot", "rating"], "table.games": ["game", "seats: bot (place)"]},
    f"/ladders/{TRIO}": {"table.leaderboard": ["#", "bot", "rating"]},
    f"/ladders/{LADDER}/games": {"table.games": ["game", "seats: bot (place)"]},
    f"/tournaments/{TOURNAMENT}": {"table.standings": ["#", "bot", "Elo"], "table.games": ["game"]},
    f"/tournaments/{TOURNAMENT}/games": {"table.games": ["game"]},
    "/bots/random_bot": {"table.entries": ["ladder", "status", "rating"], "table.by-seat": ["seat", "score %"],
                         "table.by-opponent": ["opponent", "score %"], "table.games": ["game"]},
}

pytestmark = pytest.mark.browser  # every test here drives Chromium (tests/tiers.py)


def check_fits(page, width: int, essentials: dict[str, list[str]], buttons: str | None = None) -> None:
    """No sideways scroll of the page; each essential column's cells (heading included) shown and on screen; each
    of ``buttons`` too."""
    # The page as a reader sees it: with its stylesheet applied. A locator finds the text of a page whose CSS is still
    # loading (seen under load: a 390 px page measured 741 px wide, its tables laid out without site.css).
    page.wait_for_load_state("load")
    where = page.url
    assert page.evaluate("document.documentElement.scrollWidth") <= width, (where, width)
    for selector, names in essentials.items():
        cells = page.evaluate(CELLS, [selector, names])
        heads = [cell["heads"] for cell in cells if "heads" in cell]
        assert heads, (where, selector, "no such table")
        assert set(names) <= {text for head in heads for text in head}, (where, selector, heads)
        shown = [cell for cell in cells if "column" in cell]
        assert shown, (where, selector)
        for cell in shown:
            assert cell["shown"] and cell["left"] >= 0 and cell["right"] <= width + 0.5, (where, width, cell)
    if buttons is not None:
        found = page.evaluate(BUTTONS, buttons)
        assert found, (where, buttons)
        for button in found:
            assert button["shown"] and button["left"] >= 0 and button["right"] <= width + 0.5, (where, width, button)


@pytest.mark.parametrize("width", WIDTHS)
def test_every_table_keeps_its_essentials_on_screen(see, shown, width):
    """At 1280 and 390 px each page with a table keeps rank, name and rating (Elo on a tournament) on screen, and
    the page never scrolls sideways (a game page's seats, the head-to-head matrices scroll inside their box)."""
    game = httpx.get(shown + f"api/ladders/{LADDER}/games", params={"limit": 1}).json()["items"][0]["game_id"]
    pages = {**PAGES, f"/games/{game}": {"main table": ["seat", "bot", "place"]}}
    for path, essentials in pages.items():
        check_fits(see(path, width=width, height=900), width, essentials)


def test_on_a_phone_the_other_columns_come_back_with_all_columns(see):
    """At 390 px the leaderboard hides games and forfeits; ticking "all columns" shows them (in the table's own
    scrolling box: the page still does not scroll sideways)."""
    page = see(f"/ladders/{LADDER}", width=390, height=844)
    games = page.locator("table.leaderboard thead th", has_text="games")
    expect(games).to_be_hidden()
    page.locator("#leaderboard label.columns input").check()
    expect(games).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_the_account_page_keeps_its_bots_rating_and_retire_button_on_screen(site, open_page, league):  # noqa: F811
    """alice's account (a bot listed, one refused) at 1280 and 390 px: each bot's name, rating and retire button, and
    each submission's status, on screen; no sideways scroll there nor on a submission's page."""
    for name, content in (("chatty", CHATTY_BOT), ("clumsy", RAISES)):
        answer = httpx.post(site + f"api/ladders/{LADDER}/submissions", files={"file": (f"{name}.py", content)},
                            data={"bot": name}, headers={"Authorization": f"Bearer {league.tokens['alice']}"})
        assert answer.status_code == 202, answer.text
    subprocess.run([sys.executable, "-m", "tournaments", "ladder", "work", LADDER, "--rounds", "1", "--games", "2",
                    "--jobs", "0", "--seed", "3", "--db", str(league.path)], check=True, capture_output=True)
    alice = sign_in(open_page, site, league.tokens["alice"])
    for width in WIDTHS:
        alice.set_viewport_size({"width": width, "height": 900})
        alice.goto(site + "account")
        check_fits(alice, width, {"table.mine": ["bot", "rating"], "table.submissions": ["#", "bot", "status"]},
                   buttons="table.mine button")
        submission = alice.locator("table.submissions tbody tr a").first.get_attribute("href")
        alice.goto(site + submission.lstrip("/"))
        expect(alice.locator(".status-line .status")).to_be_visible()
        assert alice.evaluate("document.documentElement.scrollWidth") <= width, submission


def test_a_bots_curl_example_wraps_on_a_phone(league, open_page, monkeypatch):
    """A bot page's curl example, with a long public address configured, wraps at 390 px: the page stays 390 wide."""
    public = "https://a-league-with-a-rather-long-address.example.org/tourney"
    monkeypatch.setenv("TOURNEY_PUBLIC_URL", public)
    process, base = start(league, "--submissions")
    try:
        page = open_page(base + "bots/random_bot", width=390, height=844, allowed=(base,))
        expect(page.locator("#stderr + p.note code")).to_contain_text(f"{public}/api/bots/random_bot/logs")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.close()
    finally:
        stop(process)


@pytest.mark.parametrize("width", WIDTHS)
def test_an_owners_page_and_a_bots_battles_keep_their_essentials_on_screen(league, open_page, width):
    """An owner's page (their bots' ladder, rank, name and rating; their results) and a bot's battles filtered by
    opponent and seat, at 1280 and 390 px: essentials on screen, no sideways scroll."""
    claim(league, "alice", "random_bot")
    process, base = start(league)
    try:
        for path, essentials in (
                ("owners/alice", {"table.owner-bots": ["#", "bot", "rating"], "table.games": ["game",
                                                                                             "seats: bot (place)"]}),
                ("bots/random_bot?opponent=twin-a&seat=0", {"table.games": ["game", "seats: bot (place)"]})):
            page = open_page(base + path, width=width, height=900, allowed=(base,))
            check_fits(page, width, essentials)
            page.close()
    finally:
        stop(process)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_ladder_in_divisions_keeps_its_essentials_on_screen(tmp_path, open_page, width):
    """A ladder in divisions (each row labelled with its division, the boss marked, the links to each division
    above the table), whole and filtered to one division, at 1280 and 390 px: rank, bot and rating on screen, no
    sideways scroll."""
    ledger, specs = divided(tmp_path, [("lose", "bronze")])
    play_divided(ledger, specs, ("win", "lose"), 11, "b")
    ledger.close()
    process, base = start(SimpleNamespace(path=tmp_path / "league.db"))
    try:
        for path in ("ladders/divided", "ladders/divided?division=bronze"):
            page = open_page(base + path, width=width, height=900, allowed=(base,))
            expect(page.locator("table.leaderboard small.division").first).to_be_visible()
            check_fits(page, width, {"table.leaderboard": ["#", "bot", "rating"]})
            page.close()
    finally:
        stop(process)
