"""A real browser (Debian's Chromium through Playwright) against a live `tourney serve` on 127.0.0.1:
the home page, a leaderboard that refreshes itself, a bot page, a game page whose replay steps
forward; no console error, no request leaving the server, the HTML-named bot shown as text."""

from __future__ import annotations

import subprocess
import urllib.parse

import pytest

from tests import cli
from tests.browser import expect
from tests.web.league import LADDER, XSS
from tests.web.screenshots import GAME_SHOT, LADDER_SHOT, shoot

# the module's live server is the browser's; its one test without Chromium stays with it
pytestmark = pytest.mark.browser


def test_home_page_lists_the_ladder_and_the_tournament(visit):
    """The home page links the ladder and the tournament; following the ladder's link shows its leaderboard."""
    home = visit("/")
    expect(home.locator("h1").first).to_have_text("Ladders")
    home.get_by_role("link", name=LADDER, exact=True).click()
    expect(home.locator("table.leaderboard tbody tr")).to_have_count(2)


def test_the_html_named_bot_shows_as_text(visit):
    """A bot named <img src=x onerror=alert(1)> is a link with that text; no image, no script ran (no dialog)."""
    ladder = visit(f"/ladders/{LADDER}")
    expect(ladder.get_by_role("link", name=XSS).first).to_be_visible()
    assert ladder.locator("main img").count() == 0
    bot = visit(f"/bots/{urllib.parse.quote(XSS, safe='')}")
    expect(bot.locator("h1")).to_contain_text(XSS)
    assert bot.locator("main img").count() == 0


def test_leaderboard_refreshes_when_games_are_stored(visit, league, tmp_path):
    """With the ladder page open, games played by `tourney ladder play` appear without a reload."""
    ladder = visit(f"/ladders/{LADDER}")
    expect(ladder.locator("table.leaderboard caption")).to_contain_text("4 games")
    subprocess.run([*cli.COMMAND, "ladder", "play", LADDER, "--games", "2", "--jobs", "0",
                    "--db", str(league.path)], check=True, capture_output=True)
    expect(ladder.locator("table.leaderboard caption")).to_contain_text("6 games")
    assert int(ladder.locator("#leaderboard").get_attribute("data-refreshed")) >= 1
    shoot(ladder, tmp_path / LADDER_SHOT)


def test_bot_page_filters_its_games(visit):
    """The bot page's form (no script needed) shows only the games the bot forfeited."""
    bot = visit("/bots/raises")
    expect(bot.locator("table", has_text="content hash")).to_contain_text("python")
    bot.select_option("select[name=forfeited]", "true")
    bot.get_by_role("button", name="show").click()
    bot.wait_for_url("**forfeited=true**")
    rows = bot.locator("table.games tbody tr")
    assert rows.count() > 0
    for index in range(rows.count()):
        expect(rows.nth(index)).to_contain_text("raises forfeited")


def test_game_page_replay_steps_forward(visit, tmp_path):
    """A game page embeds its replay, whose chain checks and whose Next button steps forward."""
    ladder = visit(f"/ladders/{LADDER}")
    ladder.locator("table.games a.game").first.click()
    expect(ladder.locator(".verification.ok")).to_contain_text("verified")
    replay = ladder.frame_locator("iframe.replay")
    expect(replay.locator("#verify")).to_have_attribute("data-verdict", "verified")
    counter = replay.locator("#counter")
    replay.locator("#first").click()
    expect(counter).to_contain_text("step 0 of")
    replay.locator("#next").click()
    replay.locator("#next").click()
    expect(counter).to_contain_text("step 2 of")
    shoot(ladder, tmp_path / GAME_SHOT)


def test_pages_fit_a_phone(visit):
    """At a phone's width the pages do not scroll sideways (wide tables scroll inside their box)."""
    for path in ("/", f"/ladders/{LADDER}", "/bots/random_bot", "/tournaments/cup"):
        page = visit(path, width=390, height=844)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, path


def test_serve_listens_on_the_loopback_only_by_default(live):
    """`tourney serve` without --host listens on 127.0.0.1 alone (the kernel's table of listening sockets)."""
    port = urllib.parse.urlsplit(live).port
    listening = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as rows:
            for row in list(rows)[1:]:
                local, state = row.split()[1], row.split()[3]
                address, _, hex_port = local.rpartition(":")
                if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                    listening.add(address)
    assert listening == {"0100007F"}  # 127.0.0.1, little-endian hex


def test_pages_work_without_javascript(browser, live):
    """With JavaScript off, the ladder page still shows its leaderboard and chart, and the bot page's filter
    form still filters (everything but the replay is drawn by the server)."""
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(f"{live}ladders/{LADDER}")
        expect(page.locator("table.leaderboard tbody tr")).to_have_count(2)
        expect(page.locator("svg.chart polyline")).to_have_count(2)
        page.goto(f"{live}bots/raises")
        page.select_option("select[name=result]", "loss")
        page.get_by_role("button", name="show").click()
        page.wait_for_url("**result=loss**")
        expect(page.locator("table.games tbody tr").first).to_be_visible()
    finally:
        context.close()
