"""Live, not reloaded (issue 41 item 6): a submission's page and the owner's account page keep themselves current
through fragment routes with ETags (304 while nothing changed) that web/static/live.js polls. The fragments are
their owner's alone, as their pages are (another owner: 404, as for the page; a visitor: 401; a read-only server:
403), and never cached (private, no-store). State changes are driven through the ledger, as the worker makes them
(its claim and decision; `tourney ladder work` and `tourney ladder play` in the slow tests). In Chromium: a
pending submission's page turns validating, then refused, without a reload and with no CSP violation, then stops
asking; a hidden page asks nothing and asks at once when shown; a page signed out meanwhile stops at the 401; a
signed-in owner's refreshed leaderboard still marks their bots."""

from __future__ import annotations

import contextlib
import re
import sqlite3
from collections.abc import Iterator

import pytest

from ledger.rows import ladder_rows, submission_rows
from ledger.store import Ledger
from tests.browser import UNAUTHORIZED, expect
from tests.web.league import LADDER, ROOT, Api, League, tourney
from tests.web.live import start, stop
from tests.web.test_api import RANDOM_BOT, upload
from tests.web.test_owners import Browser, sign_in
from tournaments.ladder import league as ladder_league
from web.security import SITE_POLICY

REASON = "its validation game ended in a forfeit: it tripped over its tail"
DIAGNOSIS = "Traceback (most recent call last):\n  ValueError: no such card"


@contextlib.contextmanager
def ledger_of(league: League) -> Iterator[Ledger]:
    ledger = Ledger(str(league.path))
    try:
        yield ledger
    finally:
        ledger.close()


def owner_id(league: League, name: str) -> int:
    with contextlib.closing(sqlite3.connect(league.path)) as connection:
        return connection.execute("SELECT id FROM owners WHERE name = ?", (name,)).fetchone()[0]


def submitted(api: Api, league: League, name: str = "mybot") -> int:
    """alice's upload of a bot named ``name``, pending: its id."""
    answer = upload(api, league.tokens["alice"], RANDOM_BOT, f"{name}.py")
    assert answer.status_code == 202, answer.text
    return answer.json()["id"]


def claim(league: League) -> int:
    """The worker's claim of the oldest pending submission of the ladder (it is validating): its id."""
    with ledger_of(league) as ledger:
        row, _ = submission_rows.claim_next(ledger, ladder_rows.get(ledger, LADDER)["id"])
    return row["id"]


def refuse(league: League, submission: int) -> None:
    """The worker's decision: refused, with its reason and what the bot left behind."""
    with ledger_of(league) as ledger:
        submission_rows.decide(ledger, submission, submission_rows.REFUSED, REASON, None,
                               submission_rows.Told("traceback", "ValueError: no such card", DIAGNOSIS))


def alices_bot_on_the_ladder(league: League, tmp_path, monkeypatch) -> None:
    """alice's bot `mine` (a copy of random_bot) listed on the ladder, as the worker lists an upload."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "mine.py").write_bytes((ROOT / "bots" / "random_bot.py").read_bytes())
    spec, entry_point, files = ladder_league.package(tmp_path / "mine" / "mine.py")
    with ledger_of(league) as ledger:
        ladder_rows.submit(ledger, ladder_rows.get(ledger, LADDER)["id"], spec.name, spec.content_hash, spec.kind,
                           entry_point, files, owner_id=owner_id(league, "alice"))


def page_etag(page: str) -> str:
    return re.search(r'data-etag="([^"]+)"', page).group(1).replace("&#34;", '"')


def private(answer) -> bool:
    return answer.headers["cache-control"] == "private, no-store"


@pytest.fixture
def alice(api: Api, league: League) -> Browser:
    """alice's browser, signed in (cookies kept)."""
    browser = Browser(api.app)
    browser.sign_in(league.tokens["alice"])
    return browser


def test_a_submissions_state_answers_304_until_its_validation_ends(api, league, alice):
    """The fragment answers 200 with an ETag, the page's own; 304 (private, no-store) to that ETag while nothing
    changes; a new fragment once the worker claims it (validating), and once it is refused: reason, diagnosis
    and the end mark that stops the script."""
    submission = submitted(api, league)
    page = alice.request("GET", f"/account/submissions/{submission}")
    assert f'data-live="/account/submissions/{submission}/state"' in page.text and "/static/live.js" in page.text
    url = f"/account/submissions/{submission}/state"
    first = alice.request("GET", url)
    assert first.status_code == 200 and private(first)
    tag = first.headers["etag"]
    assert tag == page_etag(page.text)
    assert "pending" in first.text and "data-live-end" not in first.text and "<html" not in first.text
    assert first.headers["content-security-policy"] == SITE_POLICY and "<script" not in first.text
    same = alice.request("GET", url, headers={"If-None-Match": tag})
    assert same.status_code == 304 and same.content == b"" and private(same) and same.headers["etag"] == tag

    assert claim(league) == submission
    validating = alice.request("GET", url, headers={"If-None-Match": tag})
    assert validating.status_code == 200 and validating.headers["etag"] != tag
    assert "status-validating" in validating.text and "data-live-end" not in validating.text
    tag = validating.headers["etag"]
    assert alice.request("GET", url, headers={"If-None-Match": tag}).status_code == 304

    refuse(league, submission)
    decided = alice.request("GET", url, headers={"If-None-Match": tag})
    assert decided.status_code == 200 and private(decided) and decided.headers["etag"] != tag
    assert "status-refused" in decided.text and "data-live-end" in decided.text
    assert "tripped over its tail" in decided.text and "no such card" in decided.text
    assert alice.request("GET", url, headers={"If-None-Match": decided.headers["etag"]}).status_code == 304
    # The page drawn now starts where the fragment ends: its script has nothing left to ask.
    again = alice.request("GET", f"/account/submissions/{submission}")
    assert page_etag(again.text) == decided.headers["etag"] and "data-live-end" in again.text


def test_a_submissions_state_is_its_owners_alone(api, serve, league, alice):
    """Another owner gets 404, as for the page (nobody learns which ids exist), whatever ETag they send; a
    visitor 401; a read-only server 403; none of them sees the state or the diagnosis."""
    submission = submitted(api, league)
    claim(league)
    refuse(league, submission)
    url = f"/account/submissions/{submission}/state"
    tag = alice.request("GET", url).headers["etag"]
    bob = Browser(api.app)
    bob.sign_in(league.tokens["bob"])
    for headers in ({}, {"If-None-Match": tag}, {"If-None-Match": "*"}):
        answer = bob.request("GET", url, headers=headers)
        assert answer.status_code == 404 and "no such card" not in answer.text
        assert bob.request("GET", f"/account/submissions/{submission}").status_code == 404
    visitor = Browser(api.app)
    answer = visitor.request("GET", url, headers={"If-None-Match": tag})
    assert answer.status_code == 401 and "no such card" not in answer.text and "etag" not in answer.headers
    assert visitor.request("GET", f"/account/submissions/{submission}").status_code == 401
    read_only = Browser(serve().app)
    read_only.cookies = alice.cookies
    assert read_only.request("GET", url).status_code == 403


def test_the_account_lists_answer_304_until_a_validation_ends(api, league, alice):
    """The account page's lists: 200 with the page's ETag, 304 while nothing changes, the new lists once a
    submission is claimed and once it is refused; the owner's own (bob's lists hold none of alice's, a visitor
    gets 401), never cached."""
    submission = submitted(api, league)
    page = alice.request("GET", "/account")
    assert 'data-live="/account/lists"' in page.text
    first = alice.request("GET", "/account/lists")
    assert first.status_code == 200 and private(first) and first.headers["etag"] == page_etag(page.text)
    assert first.headers["content-security-policy"] == SITE_POLICY and "<script" not in first.text
    assert f'href="/account/submissions/{submission}"' in first.text and "status-pending" in first.text
    tag = first.headers["etag"]
    same = alice.request("GET", "/account/lists", headers={"If-None-Match": tag})
    assert same.status_code == 304 and private(same)

    claim(league)
    refuse(league, submission)
    decided = alice.request("GET", "/account/lists", headers={"If-None-Match": tag})
    assert decided.status_code == 200 and decided.headers["etag"] != tag
    assert "status-refused" in decided.text and "tripped over its tail" in decided.text

    bob = Browser(api.app)
    bob.sign_in(league.tokens["bob"])
    theirs = bob.request("GET", "/account/lists", headers={"If-None-Match": decided.headers["etag"]})
    assert theirs.status_code == 200 and private(theirs) and "mybot" not in theirs.text
    assert theirs.headers["etag"] != decided.headers["etag"]
    assert Browser(api.app).request("GET", "/account/lists").status_code == 401


def test_the_account_lists_keep_the_pages_paging(api, league, alice):
    """The lists fragment pages as its page does: with ?limit=1, one submission, and a pager to the others."""
    first, second = submitted(api, league, "one"), submitted(api, league, "two")
    page = alice.request("GET", "/account", params={"limit": 1})
    assert 'data-live="/account/lists?limit=1"' in page.text
    shown = alice.request("GET", "/account/lists", params={"limit": 1})
    assert f'href="/account/submissions/{second}"' in shown.text
    assert f'href="/account/submissions/{first}"' not in shown.text and 'rel="next"' in shown.text


@pytest.mark.slow  # ladder games, played in the sandbox
def test_the_account_lists_change_when_a_game_of_theirs_is_stored(api, league, alice, tmp_path, monkeypatch):
    """alice's bot listed on the ladder: her lists answer 304 until `tourney ladder play` stores games it sat in,
    then show its games; a game stored on another ladder, without her bots, changes nothing."""
    alices_bot_on_the_ladder(league, tmp_path, monkeypatch)
    before = alice.request("GET", "/account/lists")
    assert re.search(r'<td class="num opt">0</td>', before.text), before.text
    tag = before.headers["etag"]

    tourney("ladder", "play", "trio", "--games", "1", "--jobs", "0", "--seed", "4", "--db", league.path)
    assert alice.request("GET", "/account/lists", headers={"If-None-Match": tag}).status_code == 304

    tourney("ladder", "play", LADDER, "--games", "4", "--jobs", "0", "--seed", "4", "--db", league.path)
    after = alice.request("GET", "/account/lists", headers={"If-None-Match": tag})
    assert after.status_code == 200 and after.headers["etag"] != tag
    played = int(re.search(r'<td class="num opt">(\d+)</td>', after.text).group(1))
    assert played > 0


@pytest.mark.slow  # the worker's validation games, played in the sandbox
def test_the_workers_listing_ends_the_submissions_state(api, league, alice, tmp_path, monkeypatch):
    """`tourney ladder work` validates alice's upload and lists it: the submission's state and her lists, asked
    with the ETags they had while it was pending, answer the listed bot (its ladder link, the end mark; an active
    entry in her bots)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    submission = submitted(api, league)
    url = f"/account/submissions/{submission}/state"
    pending, lists = (alice.request("GET", path).headers["etag"] for path in (url, "/account/lists"))
    tourney("ladder", "work", LADDER, "--rounds", "1", "--games", "2", "--jobs", "0", "--seed", "3",
            "--db", league.path)
    listed = alice.request("GET", url, headers={"If-None-Match": pending})
    assert listed.status_code == 200 and "status-listed" in listed.text and "data-live-end" in listed.text
    assert f'href="/ladders/{LADDER}"' in listed.text and 'href="/bots/mybot"' in listed.text
    mine = alice.request("GET", "/account/lists", headers={"If-None-Match": lists})
    assert mine.status_code == 200 and "status-listed" in mine.text
    entry = r'<a class="bot" href="/bots/mybot">mybot</a></td><td><a href="/ladders/duel">duel</a></td>.*?active'
    assert re.search(entry, mine.text), mine.text


# -- in Chromium -------------------------------------------------------------------------------------


@pytest.fixture
def site(league: League) -> Iterator[str]:
    """`tourney serve --submissions` over this test's league (polling every second: tests/web/live.py)."""
    process, base = start(league, "--submissions")
    yield base
    stop(process)


def fragment_requests(page, path: str) -> list[str]:
    """The fragment requests the page sends from now on (a list that grows)."""
    seen: list[str] = []
    page.on("request", lambda request: request.url.endswith(path) and seen.append(request.url))
    return seen


@pytest.mark.browser
def test_a_pending_submissions_page_turns_refused_without_a_reload(site, open_page, league):
    """alice's pending submission's page, left open: the worker claims it, then refuses it (in the ledger); the
    page shows "validating", then "refused" with the reason and the diagnosis, never reloaded; its script then
    stops asking. Her account page, open beside it, shows the refusal too. No CSP violation, no console error
    on either page (open_page also fails the test on any of the first's)."""
    alice = sign_in(open_page, site, league.tokens["alice"])
    account = alice.context.new_page()
    problems: list[str] = []
    for page in (alice, account):
        page.on("console", lambda message: (message.type == "error" or "Content Security Policy" in message.text)
                and problems.append(message.text))
        page.on("pageerror", lambda error: problems.append(str(error)))
    alice.goto(site + "account")
    alice.set_input_files("input[name=file]", files=[{"name": "mybot.py", "mimeType": "text/x-python",
                                                       "buffer": RANDOM_BOT}])
    alice.fill("input[name=bot]", "mybot")
    alice.get_by_role("button", name="submit").click()
    alice.wait_for_url(re.compile(r".*/account/submissions/\d+$"))
    submission = int(alice.url.rsplit("/", 1)[1])
    account.goto(site + "account")
    expect(account.locator("table.submissions tbody tr .status")).to_have_text(["pending"])
    state = alice.locator("#submission-state")
    expect(alice.locator(".status-line .status")).to_have_text("pending")
    expect(state).to_have_attribute("data-live-state", "polling")
    # Nothing changed: the answers are 304s, and the wait between them grows.
    expect(state).to_have_attribute("data-wait", re.compile(r"^(1[5-9]\d\d|[2-9]\d\d\d)$"))
    assert state.get_attribute("data-refreshed") is None
    alice.evaluate("document.querySelector('h1').dataset.marker = 'not reloaded'")

    assert claim(league) == submission
    expect(alice.locator(".status-line .status")).to_have_text("validating")
    refuse(league, submission)
    expect(alice.locator(".status-line .status")).to_have_text("refused")
    expect(alice.locator("pre.reason")).to_contain_text("tripped over its tail")
    expect(alice.locator("section.diagnosis pre.stderr")).to_contain_text("no such card")
    expect(state).to_have_attribute("data-live-state", "ended")
    assert alice.evaluate("document.querySelector('h1').dataset.marker") == "not reloaded"
    assert int(state.get_attribute("data-refreshed")) >= 2
    expect(account.locator("table.submissions tbody tr .status")).to_have_text(["refused"])
    expect(account.locator("table.submissions tbody tr .reason")).to_contain_text("tripped over its tail")
    asked = fragment_requests(alice, f"/account/submissions/{submission}/state")
    alice.wait_for_timeout(3000)  # three of its intervals: an ended page asks nothing (a bound, not a timing claim)
    assert asked == []
    assert problems == []


@pytest.mark.browser
def test_a_hidden_page_stops_asking_and_asks_at_once_when_shown(site, open_page, league):
    """The account page, hidden (as another tab is): its script pauses and sends nothing; shown again, it asks at
    once and shows the submission decided meanwhile."""
    with ledger_of(league) as ledger:
        submission = submission_rows.add(ledger, ladder_rows.get(ledger, LADDER)["id"], owner_id(league, "alice"),
                                         "mybot",
                               "mybot.py", "mybot.py", RANDOM_BOT)
    alice = sign_in(open_page, site, league.tokens["alice"])
    lists = alice.locator("#lists")
    expect(lists.locator("table.submissions tbody tr .status")).to_have_text(["pending"])
    expect(lists).to_have_attribute("data-live-state", "polling")
    hide = """hidden => {
        Object.defineProperty(document, "visibilityState", {value: hidden ? "hidden" : "visible", configurable: true});
        document.dispatchEvent(new Event("visibilitychange"));
    }"""
    alice.evaluate(hide, True)
    expect(lists).to_have_attribute("data-live-state", "paused")
    asked = fragment_requests(alice, "/account/lists")
    claim(league)
    refuse(league, submission)
    alice.wait_for_timeout(3000)  # three of its intervals: a hidden page asks nothing (a bound, not a timing claim)
    assert asked == []
    expect(lists.locator("table.submissions tbody tr .status")).to_have_text(["pending"])
    alice.evaluate(hide, False)
    expect(lists.locator("table.submissions tbody tr .status")).to_have_text(["refused"])
    assert len(asked) >= 1


@pytest.mark.browser
@pytest.mark.slow  # ladder games, played in the sandbox
def test_a_signed_in_owners_ladder_page_keeps_their_rank_across_refreshes(site, open_page, league, tmp_path,
                                                                           monkeypatch):
    """alice's bot on the ladder, her ladder page open: games stored by `tourney ladder play` refresh the
    leaderboard, and the refreshed one still marks her bot ("my rank" and its row), as the page drawn for her does
    (the script sends her session with the leaderboard's request)."""
    alices_bot_on_the_ladder(league, tmp_path, monkeypatch)
    alice = sign_in(open_page, site, league.tokens["alice"])
    alice.goto(site + f"ladders/{LADDER}")
    expect(alice.locator("table.leaderboard caption")).to_contain_text("4 games")
    expect(alice.locator("#leaderboard p.my-rank")).to_contain_text("mine")
    tourney("ladder", "play", LADDER, "--games", "2", "--jobs", "0", "--seed", "4", "--db", league.path)
    expect(alice.locator("table.leaderboard caption")).to_contain_text("6 games")
    assert int(alice.locator("#leaderboard").get_attribute("data-refreshed")) >= 1
    expect(alice.locator("#leaderboard p.my-rank")).to_contain_text("mine")
    expect(alice.locator("table.leaderboard tbody tr.mine")).to_have_count(1)


@pytest.mark.browser
def test_a_page_signed_out_meanwhile_stops_asking(site, open_page, league):
    """alice's account page open, she signs out in another tab: the page's next question is answered 401, and its
    script stops (it does not keep asking, nor put the error page in place of her lists)."""
    alice = sign_in(open_page, site, league.tokens["alice"])
    lists = alice.locator("#lists")
    expect(lists).to_have_attribute("data-live-state", "polling")
    other = alice.context.new_page()
    other.goto(site + "account")
    other.get_by_role("button", name="sign out", exact=True).click()
    other.wait_for_url(site)
    expect(lists).to_have_attribute("data-live-state", "ended")
    expect(lists.locator("h2#bots")).to_have_text("Your bots")
    assert lists.get_attribute("data-refreshed") is None
    alice.problems.excuse(UNAUTHORIZED)  # the 401 the browser logs is the point of the test
    assert UNAUTHORIZED in alice.problems.problems
