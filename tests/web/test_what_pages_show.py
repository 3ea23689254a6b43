"""What a spectator sees, in Chromium against a live `tourney serve`: the numbers the API gives, games
that say how they ended, charts numbered by their own ladder and drawn on their own scale, links that
work whatever a tournament is called, the replay stacked at a phone's width; and leaderboards people
use: columns sorted by the server (no script needed), search, paged and filtered game lists, a
ladder's head-to-head table, a bot's record by seat and opponent with its latest losses."""

from __future__ import annotations

import subprocess
import urllib.parse

import pytest

from tests import cli
from tests.browser import expect
from tests.web.league import LADDER, SLASHED, TOURNAMENT, TRIO, TWINS, XSS, Api

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def api(serve) -> Api:
    return serve()


def numbers(locator) -> list[str]:
    return locator.evaluate_all("cells => cells.map(cell => cell.textContent.trim())")


def test_a_tournaments_score_is_the_apis_percentage(see, api):
    """The standings' "score %" column shows the API's score (a percentage already, 73.96 not 7396.0)."""
    expected = {row["bot"]: f"{row['score']:.1f}" for row in api.get(f"/api/tournaments/{TOURNAMENT}").json()
                ["standings"]}
    page = see(f"/tournaments/{TOURNAMENT}")
    rows = page.locator("table.standings tbody tr")
    expect(rows).to_have_count(len(expected))
    shown = {rows.nth(i).locator("td").nth(1).inner_text(): rows.nth(i).locator("td").nth(5).inner_text()
             for i in range(rows.count())}
    assert shown == expected and all(0 <= float(score) <= 100 for score in shown.values())


def test_a_game_page_says_how_it_ended(see, api):
    """A game played out says so ("played to its end"), a forfeited one "ended by a forfeit"; none says
    "ended by finished"."""
    games = api.get(f"/api/tournaments/{TOURNAMENT}/games", params={"limit": 200}).json()["items"]
    finished = next(game for game in games if game["forfeit"] is None)
    forfeited = next(game for game in games if game["forfeit"] is not None)
    for game, words in ((finished, "played to its end"), (forfeited, "ended by a forfeit")):
        page = see(f"/games/{game['game_id']}")
        expect(page.locator("main > p").first).to_contain_text(words)
        expect(page.locator("main")).not_to_contain_text("ended by finished")


def axis_labels(chart) -> list[str]:
    return chart.locator("text.axis").evaluate_all("labels => labels.map(label => label.textContent)")


def test_a_ladder_chart_counts_its_own_games_and_draws_every_bot(see, api):
    """The OpenSkill ladder's chart runs from "ladder game 1" to its own last game (not the store's count shared
    by every ladder), with one line per bot that played and no note of any left out."""
    ladder = api.get(f"/api/ladders/{TRIO}").json()
    page = see(f"/ladders/{TRIO}")
    chart = page.locator("svg.chart")
    labels = axis_labels(chart)
    assert f"ladder game {ladder['games']}" in labels and "ladder game 1" in labels, labels
    expect(chart.locator("polyline")).to_have_count(sum(1 for row in ladder["leaderboard"] if len(row["history"])))
    expect(page.locator(".chart-note")).to_have_count(0)


def test_a_bot_page_draws_only_its_own_lines_one_chart_per_ladder(see):
    """twin-a's page draws twin-a alone (not the other bots made from the same file); random_bot, on an Elo and
    an OpenSkill ladder, gets a chart for each, each on its own scale."""
    twin = see(f"/bots/{TWINS[0]}")
    expect(twin.locator("section.ladder-chart")).to_have_count(1)
    expect(twin.locator("section.ladder-chart polyline")).to_have_count(1)
    expect(twin.locator("section.ladder-chart ul.legend li")).to_have_text(["v1"])
    both = see("/bots/random_bot")
    charts = both.locator("section.ladder-chart")
    expect(charts).to_have_count(2)
    expect(charts.locator("h3")).to_have_text([f"{LADDER} Elo", f"{TRIO} OpenSkill μ − 3σ"])
    elo = [float(label) for label in axis_labels(charts.nth(0)) if label.lstrip("-").isdigit()]
    skill = [float(label) for label in axis_labels(charts.nth(1)) if label.lstrip("-").isdigit()]
    assert all(1300 < value < 1700 for value in elo) and all(-40 < value < 60 for value in skill), (elo, skill)
    for index in range(2):
        expect(charts.nth(index).locator("polyline")).to_have_count(1)


def test_a_tournament_named_with_a_slash_is_reached_from_every_link(see, api):
    """open/2026: its links (home, a game page, its games page) lead to its page, never to a 404."""
    home = see("/")
    home.get_by_role("link", name=SLASHED, exact=True).click()
    expect(home.locator("h1")).to_contain_text(SLASHED)
    home.get_by_role("link", name=f"All {api.get('/api/tournaments/2').json()['games']} games").click()
    expect(home.locator("h1")).to_contain_text(SLASHED)
    home.locator("table.games a.game").first.click()
    home.get_by_role("link", name=SLASHED, exact=True).click()
    expect(home.locator("h1")).to_contain_text(SLASHED)
    expect(home.locator("table.standings tbody tr")).to_have_count(2)


def test_a_game_page_at_a_phones_width_stacks_its_replay(see, api):
    """At 390 px the game page does not scroll sideways, and its replay (verified, open on the dealt table) has
    its table above its story with every control on screen."""
    game = api.get(f"/api/ladders/{LADDER}/games", params={"limit": 1}).json()["items"][0]["game_id"]
    page = see(f"/games/{game}", **PHONE)
    frame = page.frame_locator("iframe.replay")
    expect(frame.locator("#verify")).to_have_attribute("data-verdict", "verified")
    expect(frame.locator("#counter")).not_to_have_text("step 0 of", use_inner_text=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    inner = page.frame(url=lambda url: "/replay" in url)
    assert inner.evaluate("document.documentElement.scrollWidth") <= inner.evaluate("innerWidth")
    table, side = inner.locator("#table").bounding_box(), inner.locator("aside.side").bounding_box()
    assert table["y"] + table["height"] <= side["y"] + 1
    frame_box = page.locator("iframe.replay").bounding_box()
    for control in ("#first", "#play", "#next", "#last", "#slider"):
        box = inner.locator(control).bounding_box()
        assert frame_box["x"] <= box["x"] and box["x"] + box["width"] <= frame_box["x"] + frame_box["width"], control


@pytest.mark.parametrize("path", ["/", f"/ladders/{LADDER}", f"/ladders/{TRIO}/games", "/tournaments/1",
                                  "/tournaments/1/games", "/bots/random_bot", "/bots/raises"])
def test_every_page_fits_a_phone(see, path):
    """At 390 px no page scrolls sideways (wide tables scroll inside their own box)."""
    page = see(path, **PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], path


# -- leaderboards people use (all of it drawn by the server: tested with JavaScript off) -------------


@pytest.fixture
def plain(browser, shown):
    """Open a path of the shared server with JavaScript off."""
    contexts = []

    def open_(path: str):
        context = browser.new_context(java_script_enabled=False)
        contexts.append(context)
        page = context.new_page()
        page.goto(shown + path.lstrip("/"))
        return page

    yield open_
    for context in contexts:
        context.close()


def bots_listed(page) -> list[str]:
    return numbers(page.locator("table.leaderboard tbody tr td:nth-child(2)"))


def test_leaderboard_columns_sort_by_the_server(plain, api):
    """Clicking a heading sorts by it (ratings high first, then low first on a second click; names A to Z),
    marks it with aria-sort, and keeps each bot's own rank."""
    board = api.get(f"/api/ladders/{TRIO}").json()["leaderboard"]
    page = plain(f"/ladders/{TRIO}")
    assert bots_listed(page) == [row["bot"] for row in board]
    page.get_by_role("link", name="rating").click()
    expect(page.locator("th[aria-sort=descending]")).to_have_text("rating ▼")
    by_rating = sorted(board, key=lambda row: -row["rating"])
    assert bots_listed(page) == [row["bot"] for row in by_rating]
    page.locator("th[aria-sort] a").click()  # the column sorted by: the other way
    expect(page.locator("th[aria-sort=ascending]")).to_contain_text("rating")
    assert bots_listed(page) == [row["bot"] for row in reversed(by_rating)]
    page.get_by_role("link", name="bot", exact=True).click()
    expect(page.locator("th[aria-sort=ascending]")).to_contain_text("bot")  # the sorted page, not the one before
    assert bots_listed(page) == sorted(row["bot"] for row in board)
    ranks = {row["bot"]: str(row["rank"]) for row in board}
    # The rank cell: the bot's own rank first (then its 95% range; no "=" tie mark out of rank order).
    shown_ranks = numbers(page.locator("table.leaderboard tbody tr td:nth-child(1)"))
    assert [cell.split()[0] for cell in shown_ranks] == [ranks[b] for b in bots_listed(page)]
    assert not any("=" in cell for cell in shown_ranks)


def test_leaderboard_search_finds_bots(plain):
    """Searching "twin" lists the two twins, and says how many it found; "show all" lists every bot again."""
    page = plain(f"/ladders/{TRIO}")
    page.fill("input[name=q]", "twin")
    page.get_by_role("button", name="find").click()
    assert sorted(bots_listed(page)) == list(TWINS)
    expect(page.locator("table.leaderboard caption")).to_contain_text("2 found for “twin”")
    page.get_by_role("link", name="show all").click()
    assert len(bots_listed(page)) == 3


def test_game_lists_are_paged_newest_first_and_filtered(plain, api):
    """A ladder's games page pages newest first (2 a page here) and filters by bot and result; a tournament's by
    forfeit: every game listed is one the filter keeps, and as many as the API counts."""
    newest = [game["game_id"][:12] for game in api.get(f"/api/ladders/{LADDER}/games").json()["items"]]
    page = plain(f"/ladders/{LADDER}/games?limit=2")
    assert numbers(page.locator("table.games a.game")) == newest[:2]
    page.get_by_role("link", name="older →").click()
    assert numbers(page.locator("table.games a.game")) == newest[2:4]
    page = plain(f"/ladders/{LADDER}/games")
    page.select_option("select[name=bot]", "random_bot")
    page.select_option("select[name=result]", "loss")
    page.get_by_role("button", name="show").click()
    losses = api.get(f"/api/ladders/{LADDER}/games", params={"bot": "random_bot", "result": "loss"}).json()
    rows = page.locator("table.games tbody tr")
    expect(rows).to_have_count(losses["total"])
    for game in losses["items"]:
        place = next(seat["rank"] for seat in game["seats"] if seat["bot"] == "random_bot")
        assert place != 1
    page = plain("/tournaments/1/games?forfeited=true")
    forfeits = api.get(f"/api/tournaments/{TOURNAMENT}/games", params={"forfeited": "true"}).json()
    expect(page.locator("table.games tbody tr")).to_have_count(forfeits["total"])
    for index in range(forfeits["total"]):
        expect(page.locator("table.games tbody tr").nth(index)).to_contain_text("forfeited:")


def test_a_ladder_shows_head_to_head(plain, api):
    """Each pair of the ladder's bots: the row's score against the column's, in percent, with their games."""
    table = api.get(f"/api/ladders/{LADDER}/head-to-head").json()
    page = plain(f"/ladders/{LADDER}")
    matrix = page.locator("table.h2h")
    expect(matrix.locator("thead th[scope=col]")).to_have_text(table["bots"])
    for row, bot in enumerate(table["bots"]):
        for column, other in enumerate(table["bots"]):
            pair = table["pairs"].get(bot, {}).get(other)
            cell = matrix.locator("tbody tr").nth(row).locator("td").nth(column)
            shown = f"{pair['score']:.0f}% ({pair['games']})" if pair else "·" if bot == other else ""
            expect(cell).to_have_text(shown)
    assert table["pairs"][XSS]["random_bot"] == {"games": 4, "score": 100.0}


def test_a_bot_page_shows_its_record_and_links_its_latest_losses(plain, api):
    """random_bot's page: its games, wins, draws and losses by seat and by opponent (as the API counts them), and
    links to its latest losses' replays, newest first, each a game it lost."""
    record = api.get("/api/bots/random_bot/results").json()
    page = plain("/bots/random_bot")
    seats = page.locator("table.by-seat tbody tr")
    expect(seats).to_have_count(len(record["by_seat"]))
    for index, row in enumerate(record["by_seat"]):
        assert numbers(seats.nth(index).locator("td")) == [str(row[key]) for key in
                                                           ("seat", "games", "wins", "draws", "losses")] + [
            f"{row['score']:.1f}"]
    expect(page.locator("table.by-opponent tbody tr td:first-child")).to_have_text(
        [row["opponent"] for row in record["by_opponent"]])
    links = page.locator("ul.losses a.replay")
    expect(links).to_have_count(len(record["latest_losses"]))
    assert len(record["latest_losses"]) == 5
    links.first.click()
    game = record["latest_losses"][0]
    assert page.url.endswith(f"/games/{urllib.parse.quote(game['game_id'])}")
    expect(page.locator("iframe.replay")).to_be_attached()
    assert next(seat["rank"] for seat in game["seats"] if seat["bot"] == "random_bot") != 1


def test_a_sorted_leaderboard_stays_sorted_when_it_refreshes(visit, league):
    """The ladder page's live refresh asks for the leaderboard in the page's own order and search."""
    page = visit(f"/ladders/{LADDER}?sort=bot&order=desc")
    expect(page.locator("table.leaderboard caption")).to_contain_text("4 games")
    before = bots_listed(page)
    subprocess.run([*cli.COMMAND, "ladder", "play", LADDER, "--games", "2", "--jobs", "0",
                    "--db", str(league.path)], check=True, capture_output=True)
    expect(page.locator("table.leaderboard caption")).to_contain_text("6 games")
    expect(page.locator("th[aria-sort=descending]")).to_contain_text("bot")
    assert bots_listed(page) == before == sorted(before, key=str.casefold, reverse=True)
