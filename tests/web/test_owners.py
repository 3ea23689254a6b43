"""Owners in the browser: signing in with the API token (a POSTed form) for a session cookie (HttpOnly,
SameSite=Strict, Secure over TLS; only its hash stored; it expires), signing out, submitting a bot by
an upload form, following submissions and their validation, reading their own bots' stderr, retiring a
bot. Every form that changes something carries a CSRF token the server checks; the CSP stays as strict;
a read-only server refuses all of it. The whole path runs in Chromium, with a second owner who cannot
read the first's stderr nor retire their bot."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import html
import re
import sqlite3
import subprocess
from collections.abc import Iterator

import httpx
import pytest

from tests import cli
from tests.browser import expect
from tests.web.league import LADDER, ROOT, League, tourney
from tests.web.live import start, stop
from tests.web.test_api import CHATTY_BOT
from web.security import SITE_POLICY

PHONE = {"width": 390, "height": 844}
RAISES = (ROOT / "tests" / "tournaments" / "bots" / "raises.py").read_bytes()


def rows(league: League, sql: str, *args) -> list[tuple]:
    with contextlib.closing(sqlite3.connect(league.path)) as connection:
        return connection.execute(sql, args).fetchall()


# -- in Chromium: the whole path --------------------------------------------------------------------


@pytest.fixture
def site(league: League) -> Iterator[str]:
    """`tourney serve --submissions` over this test's league."""
    process, base = start(league, "--submissions")
    yield base
    stop(process)


def sign_in(open_page, base: str, token: str):
    """A fresh browser (its own cookies) signed in with ``token`` through the form; its account page."""
    page = open_page(base + "sign-in", allowed=(base,))
    page.fill("input[name=token]", token)
    page.get_by_role("button", name="sign in").click()
    page.wait_for_url(base + "account")
    return page


def session_cookie(page) -> dict:
    return next(cookie for cookie in page.context.cookies() if cookie["name"] == "tourney_session")


@pytest.mark.browser
def test_an_owners_whole_path_in_the_browser(site, open_page, league, tmp_path):
    """alice signs in, submits two bots with the upload form (one passes its validation, one is refused with its
    reason), reads her bot's stderr on its page, finds it by her name on the leaderboard, retires it and signs
    out; bob, signed in beside her, sees none of her stderr and cannot retire her bot."""
    alice = sign_in(open_page, site, league.tokens["alice"])
    expect(alice.locator("h1")).to_contain_text("alice")
    cookie = session_cookie(alice)
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and not cookie["secure"]  # plain http here
    stored = rows(league, "SELECT secret_hash FROM web_sessions")
    assert stored == [(hashlib.sha256(cookie["value"].encode()).hexdigest(),)]
    assert not rows(league, "SELECT 1 FROM web_sessions WHERE secret_hash = ? OR token_hash = ?", cookie["value"],
                    league.tokens["alice"])

    for name, content in (("chatty", CHATTY_BOT), ("clumsy", RAISES)):
        (tmp_path / f"{name}.py").write_bytes(content)
        alice.goto(site + "account")
        alice.select_option("select[name=ladder]", LADDER)
        alice.set_input_files("input[name=file]", str(tmp_path / f"{name}.py"))
        alice.fill("input[name=bot]", name)
        alice.get_by_role("button", name="submit").click()
        alice.wait_for_url(re.compile(r".*/account/submissions/\d+$"))
        expect(alice.locator(".status-line .status")).to_have_text("pending")
    refused_page = alice.url
    subprocess.run([*cli.COMMAND, "ladder", "work", LADDER, "--rounds", "1", "--games", "4",
                    "--jobs", "0", "--seed", "3", "--db", str(league.path)], check=True, capture_output=True)
    alice.goto(refused_page)
    expect(alice.locator(".status-line .status")).to_have_text("refused")
    expect(alice.locator("pre.reason")).to_contain_text("tripped over its tail")
    alice.goto(site + "account")
    expect(alice.locator("table.submissions tbody tr .status")).to_have_text(["refused", "listed"])
    mine = alice.locator("table.mine tbody tr", has_text="chatty")
    expect(mine).to_contain_text("active")

    alice.goto(site + "bots/chatty")
    excerpts = alice.locator("section.excerpt pre.stderr")
    expect(excerpts.first).to_contain_text("chatty at seat")
    expect(excerpts.first).to_contain_text("<script>alert(1)</script>")  # as text: no script ran, no dialog
    assert alice.locator("section.excerpt script").count() == 0
    alice.goto(site + f"ladders/{LADDER}?q=alice")
    expect(alice.locator("table.leaderboard tbody tr td:nth-child(2)")).to_have_text(["chatty"])

    bob = sign_in(open_page, site, league.tokens["bob"])
    expect(bob.locator("table.mine")).to_have_count(0)
    bob.goto(site + "bots/chatty")
    expect(bob.locator("#stderr + p.note")).to_contain_text("Only its owner may read")
    assert bob.locator("section.excerpt").count() == 0 and "chatty at seat" not in bob.content()
    token = bob.locator("header input[name=csrf]").get_attribute("value")
    forged = bob.request.post(site + "account/retire", form={"ladder": LADDER, "bot": "chatty", "csrf": token})
    assert forged.status == 403 and "only the owner of &#39;chatty&#39; may retire it" in forged.text()

    alice.set_viewport_size(PHONE)
    for path in ("account", "sign-in", refused_page.removeprefix(site)):
        alice.goto(site + path)
        assert alice.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], path
    alice.set_viewport_size({"width": 1280, "height": 900})
    alice.goto(site + "account")
    mine.get_by_role("button", name="retire").click()
    alice.wait_for_url(re.compile(r".*/account/retire\?ladder=.*&bot=chatty$"))
    expect(alice.locator("h1")).to_contain_text("Retire chatty")
    alice.get_by_role("button", name="yes, retire chatty").click()
    alice.wait_for_url(site + "account#bots")
    expect(mine).to_contain_text("retired")
    alice.goto(site + f"ladders/{LADDER}")
    expect(alice.locator("table.leaderboard")).not_to_contain_text("chatty")

    alice.get_by_role("button", name="sign out").click()
    alice.wait_for_url(site)
    expect(alice.locator("header")).to_contain_text("owners: sign in")
    assert not [c for c in alice.context.cookies() if c["name"] == "tourney_session"]
    assert rows(league, "SELECT COUNT(*) FROM web_sessions s JOIN owners o ON o.id = s.owner_id "
                        "WHERE o.name = 'alice'") == [(0,)]
    alice.goto(site + "account")
    assert alice.url == site + "sign-in"
    alice.context.add_cookies([{**cookie}])  # the old cookie, put back: its session is gone
    alice.goto(site + "account")
    assert alice.url == site + "sign-in"


@pytest.mark.browser
def test_forms_without_their_csrf_token_or_from_another_site_change_nothing(site, open_page, league):
    """A signed-in browser's POST without the form's CSRF token, with another one, or saying it comes from
    another site, is a 403 that says why, and nothing is retired."""
    alice = sign_in(open_page, site, league.tokens["alice"])
    token = alice.locator("header input[name=csrf]").get_attribute("value")
    form = {"ladder": LADDER, "bot": "random_bot"}
    for sent, headers, words in (({}, {}, "CSRF token"), ({"csrf": "0" * 64}, {}, "CSRF token"),
                                 ({"csrf": token}, {"Origin": "https://elsewhere.example"}, "another site"),
                                 ({"csrf": token}, {"Sec-Fetch-Site": "cross-site"}, "another site")):
        for url in ("account/retire", "sign-out"):
            answer = alice.request.post(site + url, form={**form, **sent}, headers=headers)
            assert answer.status == 403 and words in answer.text(), (url, sent, headers)
    alice.goto(site + "account")
    expect(alice.locator("h1")).to_contain_text("alice")  # still signed in: the sign-outs were refused


@pytest.mark.browser
def test_a_read_only_server_refuses_owners(see, shown):
    """Without --submissions nobody signs in: no link to it, its form is a 403, and so is its POST."""
    home = see("/")
    expect(home.locator("header")).not_to_contain_text("sign in")
    refused = see("/sign-in")
    expect(refused.locator("h1")).to_have_text("403")
    expect(refused.locator("main")).to_contain_text("this server is read-only")
    answer = refused.request.post(shown + "sign-in", form={"token": "tourney_x", "csrf": "x"})
    assert answer.status == 403
    assert refused.request.get(shown + "account").status == 403
    # The browser reports the 403 page it was sent to on purpose; nothing else may have gone wrong.
    assert refused.problems.problems and all("status of 403" in problem for problem in refused.problems.problems)
    refused.problems.accepted = True


# -- the session, request by request ------------------------------------------------------------------


class Browser:
    """Requests to the application that keep cookies as a browser does (httpx's ASGI transport)."""

    def __init__(self, app, base: str = "http://league.test") -> None:
        self.app = app
        self.base = base
        self.cookies = httpx.Cookies()

    def request(self, method: str, url: str, **kwargs) -> httpx.Response:
        async def send() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app)
            async with httpx.AsyncClient(transport=transport, base_url=self.base, cookies=self.cookies) as client:
                answer = await client.request(method, url, **kwargs)
                self.cookies = client.cookies
                return answer

        with concurrent.futures.ThreadPoolExecutor(1) as thread:
            return thread.submit(asyncio.run, send()).result()

    def sign_in(self, token: str) -> httpx.Response:
        form = self.request("GET", "/sign-in")
        csrf = re.search(r'name="csrf" value="([^"]+)"', form.text).group(1)
        return self.request("POST", "/sign-in", data={"token": token, "csrf": csrf})

    def csrf(self) -> str:
        return html.unescape(re.search(r'name="csrf" value="([^"]+)"', self.request("GET", "/account").text).group(1))


@pytest.fixture
def app(serve):
    return serve(submissions=True).app


def test_sign_in_sets_a_strict_httponly_cookie_that_expires(app, league):
    """The answer to a good token is a 303 to the account page with the session cookie: HttpOnly,
    SameSite=Strict, Path=/, Max-Age the session's hours; over https named `__Host-tourney_session`, Secure and
    without Domain (tests/web/test_security_cookies.py); the sign-in cookie is cleared."""
    for base, secure in (("http://league.test", False), ("https://league.test", True)):
        prefix = "__Host-" if secure else ""
        browser = Browser(app, base)
        answer = browser.sign_in(league.tokens["alice"])
        assert answer.status_code == 303 and answer.headers["location"] == "/account"
        cookies = answer.headers.get_list("set-cookie")
        session = next(c for c in cookies if c.startswith(f"{prefix}tourney_session="))
        parts = {part.strip().split("=")[0].lower(): part.strip() for part in session.split(";")}
        assert {"httponly", "path", "max-age", "samesite"} <= set(parts) and "domain" not in parts
        assert parts["samesite"].lower() == "samesite=strict"
        assert parts["max-age"] == f"Max-Age={168 * 3600}" and parts["path"] == "Path=/"
        assert ("secure" in parts) is secure
        sign_in = f"{prefix}tourney_sign_in"
        assert any(c.startswith(f'{sign_in}=""') or f"{sign_in}=;" in c or
                   (c.startswith(f"{sign_in}=") and "Max-Age=0" in c) for c in cookies)


def test_a_bad_token_is_said_on_the_form_again(app):
    """A token that is not valid: the form again, 401, saying so; no session."""
    browser = Browser(app)
    answer = browser.sign_in("tourney_not-a-token")
    assert answer.status_code == 401 and "this API token is not valid" in answer.text and 'name="token"' in answer.text
    assert "tourney_session" not in browser.cookies


def test_sign_in_needs_its_own_form(app, league):
    """A sign-in POST without the form's cookie and CSRF value (a login forged from elsewhere) is a 403."""
    browser = Browser(app)
    answer = browser.request("POST", "/sign-in", data={"token": league.tokens["alice"], "csrf": "made-up"})
    assert answer.status_code == 403 and "CSRF token" in answer.text and "tourney_session" not in browser.cookies


def test_a_session_ends_when_it_expires_or_its_token_is_replaced(app, league):
    """A session past its expiry, or opened with a token since replaced (`tourney users token`), signs nobody in."""
    browser = Browser(app)
    browser.sign_in(league.tokens["alice"])
    assert browser.request("GET", "/account").status_code == 200
    with contextlib.closing(sqlite3.connect(league.path)) as connection:
        connection.execute("UPDATE web_sessions SET expires_at = '2000-01-01T00:00:00+00:00'")
        connection.commit()
    assert browser.request("GET", "/account").headers["location"] == "/sign-in"
    browser = Browser(app)
    browser.sign_in(league.tokens["bob"])
    assert browser.request("GET", "/account").status_code == 200
    tourney("users", "token", "bob", "--db", league.path)
    assert browser.request("GET", "/account").headers["location"] == "/sign-in"


def test_the_owner_pages_keep_the_sites_policy_and_post_only_with_a_csrf_token(app, league):
    """Signed in, every page keeps the site's CSP and is private; each of its POST forms goes to this site and
    carries the session's CSRF token."""
    browser = Browser(app)
    browser.sign_in(league.tokens["alice"])
    token = browser.csrf()
    game = browser.request("GET", f"/api/ladders/{LADDER}/games").json()["items"][0]["game_id"]
    forms = 0
    for url in ("/", "/account", f"/ladders/{LADDER}", "/bots/random_bot", f"/games/{game}", "/sign-in",
                "/tournaments/1"):
        page = browser.request("GET", url)
        assert page.headers["content-security-policy"] == SITE_POLICY and "<script>" not in page.text, url
        assert page.headers["cache-control"] == "private, no-store", url
        for form in re.findall(r"<form[^>]*>.*?</form>", page.text, re.S):
            if 'method="get"' in form:
                continue
            assert 'method="post"' in form and re.search(r'action="/[^/]', form), (url, form[:200])
            sent = re.search(r'name="csrf" value="([^"]+)"', form).group(1)
            assert sent == token or url == "/sign-in", (url, form[:200])
            forms += 1
    assert forms >= 4


def test_an_upload_refused_on_the_account_page_says_why(app, league):
    """An upload that is not a bot draws the account page again, at the API's status, with the reason."""
    browser = Browser(app)
    browser.sign_in(league.tokens["alice"])
    answer = browser.request("POST", "/account/submissions", data={"ladder": LADDER, "csrf": browser.csrf()},
                             files={"file": ("notes.txt", b"just words\n")})
    assert answer.status_code == 422 and "a single file is a Python bot (.py)" in html.unescape(answer.text)
    assert "<h1>alice" in answer.text


def test_the_token_is_never_kept(app, league):
    """Nothing the server stores or sends back after a sign-in holds the token."""
    browser = Browser(app)
    answer = browser.sign_in(league.tokens["alice"])
    assert league.tokens["alice"] not in str(answer.headers) and league.tokens["alice"] not in answer.text
    for stored in (league.path, league.path.with_name(league.path.name + "-wal")):
        if stored.exists():
            assert league.tokens["alice"].encode() not in stored.read_bytes(), stored
