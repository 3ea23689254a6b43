"""The HTTP defects of issue 41: a deliberate Cache-Control on every answer; a limit on wrong tokens (API and
sign-in form) per client address and per token prefix, answered 429 with Retry-After; a new sign-in ends the
browser's old session, and "sign out everywhere" ends all of an owner's; the session cookies are `__Host-` over
https (or when the operator says so). The clock of the limits is the test's: nothing sleeps."""

from __future__ import annotations

import asyncio
import concurrent.futures
import html
import re

import httpx
import pytest

from tests.browser import UNAUTHORIZED
from tests.web.league import LADDER, League
from tests.web.live import start, stop
from web.app import create_app
from web.settings import Settings

ANONYMOUS = ("/", f"/ladders/{LADDER}", "/bots/random_bot", "/tournaments/1", "/tournaments/1/games", "/api/ladders",
             "/api/bots/random_bot", "/api/tournaments", "/openapi.json")
"""Pages and API answers anyone may see (with a game's page, its replay and its log, found in the test)."""


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Browser:
    """Requests to the application from one client address, keeping cookies as a browser does."""

    def __init__(self, app, base: str = "http://league.test", address: str = "203.0.113.7") -> None:
        self.app = app
        self.base = base
        self.address = address
        self.cookies = httpx.Cookies()

    def request(self, method: str, url: str, token: str | None = None, **kwargs) -> httpx.Response:
        headers = dict(kwargs.pop("headers", {}) or {})
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"

        async def send() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app, client=(self.address, 40000))
            async with httpx.AsyncClient(transport=transport, base_url=self.base, cookies=self.cookies) as client:
                answer = await client.request(method, url, headers=headers, **kwargs)
                self.cookies = client.cookies
                return answer

        with concurrent.futures.ThreadPoolExecutor(1) as thread:
            return thread.submit(asyncio.run, send()).result()

    def get(self, url: str, **kwargs) -> httpx.Response:
        return self.request("GET", url, **kwargs)

    def sign_in(self, token: str) -> httpx.Response:
        form = self.get("/sign-in")  # its form's token (a signed-in page's header has the session's first)
        csrf = re.search(r'action="/sign-in".*?name="csrf" value="([^"]+)"', form.text, re.S).group(1)
        return self.request("POST", "/sign-in", data={"token": token, "csrf": csrf})

    def csrf(self) -> str:
        return html.unescape(re.search(r'name="csrf" value="([^"]+)"', self.get("/account").text).group(1))

    def signed_in(self) -> bool:
        account = self.get("/account")
        assert account.status_code in (200, 303), account.text[:300]
        return account.status_code == 200


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def make(league: League, clock: Clock):
    """``make(**settings)``: the application (submissions open) over this test's league, on the test's clock."""
    apps = []

    def made(**settings):
        app = create_app(Settings(db=str(league.path), submissions=True, **settings), clock=clock)
        apps.append(app)
        return app

    yield made
    for app in apps:
        app.state.site.ledger.close()


def wrong(number: int) -> str:
    """A token of the right form that belongs to nobody (each one different, as a guesser's are)."""
    return f"tourney_{number:043d}"


# -- Cache-Control ---------------------------------------------------------------------------------------


def test_every_answer_says_how_it_may_be_cached(make, league):
    """Anonymous pages and API answers: `no-cache` (kept, but asked again each time); static files five minutes;
    errors, redirects and writes `no-store`; anything answered to an owner, or that sets a cookie, `private,
    no-store`; HEAD as GET."""
    browser = Browser(make())
    game = browser.get(f"/api/ladders/{LADDER}/games").json()["items"][0]["game_id"]
    for url in (*ANONYMOUS, f"/games/{game}", f"/games/{game}/replay", f"/api/games/{game}/log"):
        for method in ("GET", "HEAD"):
            answer = browser.request(method, url)
            assert answer.status_code == 200 and answer.headers["cache-control"] == "no-cache", (method, url)
    assert browser.get(f"/api/ladders/{LADDER}").headers["cache-control"] == "no-cache"  # its own, with an ETag
    assert browser.get("/static/site.css").headers["cache-control"] == "public, max-age=300"
    for url in ("/ladders/no-such-ladder", "/api/ladders/no-such-ladder", "/api/me"):
        answer = browser.get(url)
        assert answer.status_code in (401, 404) and answer.headers["cache-control"] == "no-store", url
    form = browser.get("/sign-in")  # it sets the sign-in form's cookie
    assert "set-cookie" in form.headers and form.headers["cache-control"] == "private, no-store"
    out = browser.request("POST", "/sign-out", data={"csrf": "x"})
    assert out.status_code == 403 and out.headers["cache-control"] == "no-store"
    assert browser.get("/account").headers["cache-control"] == "no-store"  # a 303 to the sign-in form

    signed_in = browser.sign_in(league.tokens["alice"])
    assert signed_in.status_code == 303 and signed_in.headers["cache-control"] == "private, no-store"
    for url in ("/", f"/ladders/{LADDER}", "/account"):
        assert browser.get(url).headers["cache-control"] == "private, no-store", url
    assert Browser(make()).get("/api/me", token=league.tokens["alice"]).headers["cache-control"] == \
        "private, no-store"


# -- wrong tokens ----------------------------------------------------------------------------------------


def test_wrong_tokens_from_one_address_are_answered_429_until_the_window_passes(make, league, clock):
    """Ten wrong tokens a minute from one address are each a 401; the next attempt, even with a good token, is a
    429 with Retry-After (else a guess that hit would still be told so); once the minute has passed the good
    token works. Another address is not held back."""
    app = make(failed_sign_ins_per_minute=10)
    guesser = Browser(app, address="198.51.100.1")
    for number in range(10):
        assert guesser.get("/api/me", token=wrong(number)).status_code == 401
        clock.now += 1
    refused = guesser.get("/api/me", token=wrong(99))
    assert refused.status_code == 429 and refused.json()["detail"].startswith("more than 10 wrong tokens a minute")
    assert int(refused.headers["retry-after"]) == 50
    assert guesser.get("/api/me", token=league.tokens["alice"]).status_code == 429
    assert Browser(app, address="198.51.100.2").get("/api/me", token=league.tokens["alice"]).status_code == 200
    clock.now += 50
    answer = guesser.get("/api/me", token=league.tokens["alice"])
    assert answer.status_code == 200 and answer.json()["name"] == "alice"


def test_wrong_tokens_count_per_token_prefix_across_addresses(make, league, clock):
    """Wrong tokens sharing their first characters count together whatever address they come from (a guesser
    with many addresses, a token half leaked): the eleventh is a 429; a token of another prefix is not held."""
    app = make(failed_sign_ins_per_minute=10)
    prefix = league.tokens["bob"][:16]
    for number in range(10):
        guess = prefix + f"{number:035d}"
        assert Browser(app, address=f"198.51.100.{number + 10}").get("/api/me", token=guess).status_code == 401
    assert Browser(app, address="198.51.100.99").get("/api/me", token=prefix + "x" * 35).status_code == 429
    if not league.tokens["alice"].startswith(prefix):
        assert Browser(app, address="198.51.100.98").get("/api/me", token=league.tokens["alice"]).status_code == 200
    clock.now += 61
    assert Browser(app, address="198.51.100.99").get("/api/me", token=league.tokens["bob"]).status_code == 200


def test_wrong_tokens_in_the_sign_in_form_count_too(make, league, clock):
    """The sign-in form answers wrong tokens with 401, then the form again at 429 with Retry-After, the good token
    included, and signs in with it once the minute has passed; the API's wrong tokens and the form's add up."""
    app = make(failed_sign_ins_per_minute=4)
    browser = Browser(app)
    assert browser.get("/api/me", token=wrong(1)).status_code == 401
    for number in range(2, 5):
        assert browser.sign_in(wrong(number)).status_code == 401
    refused = browser.sign_in(league.tokens["alice"])
    assert refused.status_code == 429 and "retry-after" in refused.headers
    assert "wrong tokens a minute" in html.unescape(refused.text) and 'name="token"' in refused.text
    assert not browser.signed_in()
    clock.now += 61
    assert browser.sign_in(league.tokens["alice"]).status_code == 303 and browser.signed_in()


def test_the_limit_is_documented(make):
    """The document lists 429 with Retry-After for the sign-in form and for every operation that reads a token."""
    paths = make().openapi()["paths"]
    assert "Retry-After" in paths["/sign-in"]["post"]["responses"]["429"]["headers"]
    assert "Retry-After" in paths["/api/me"]["get"]["responses"]["429"]["headers"]


# -- sessions --------------------------------------------------------------------------------------------


def session_of(browser: Browser, name: str = "tourney_session") -> str:
    return browser.cookies[name]


def test_a_second_sign_in_ends_the_first_session(make, league):
    """Signing in again in the same browser (as the same owner or another) ends the session its cookie held: the
    old cookie, sent from anywhere, signs nobody in; the new one does."""
    app = make()
    browser = Browser(app)
    for token in (league.tokens["alice"], league.tokens["alice"], league.tokens["bob"]):
        before = session_of(browser) if "tourney_session" in browser.cookies else None
        assert browser.sign_in(token).status_code == 303
        assert browser.signed_in() and session_of(browser) != before
        if before is not None:
            stale = Browser(app)
            stale.cookies.set("tourney_session", before, domain="league.test")
            assert not stale.signed_in()
    assert "<h1>bob" in browser.get("/account").text


def test_sign_out_everywhere_ends_every_session_of_the_owner(make, league):
    """"sign out everywhere" (a POST with the page's CSRF token) ends every session of the owner, in every browser,
    and no other owner's; without the token it is a 403 and nothing ends. The account page offers it."""
    app = make()
    here, there, bob = Browser(app), Browser(app), Browser(app)
    for browser, token in ((here, "alice"), (there, "alice"), (bob, "bob")):
        browser.sign_in(league.tokens[token])
    page = here.get("/account").text
    assert re.search(r'<form[^>]*method="post" action="/sign-out-everywhere">\s*<input type="hidden" name="csrf"',
                     page) and "sign out everywhere" in page
    refused = here.request("POST", "/sign-out-everywhere", data={"csrf": "not-it"})
    assert refused.status_code == 403 and here.signed_in() and there.signed_in()
    done = here.request("POST", "/sign-out-everywhere", data={"csrf": here.csrf()})
    assert done.status_code == 303 and done.headers["location"] == "/"
    assert "tourney_session" not in here.cookies
    assert not there.signed_in() and bob.signed_in()


def test_sign_out_everywhere_refuses_another_site(make, league):
    """A cross-site POST to "sign out everywhere" is refused (403) even with the token: the sessions stay."""
    browser = Browser(make())
    browser.sign_in(league.tokens["alice"])
    answer = browser.request("POST", "/sign-out-everywhere", data={"csrf": browser.csrf()},
                             headers={"Origin": "https://elsewhere.example", "Sec-Fetch-Site": "cross-site"})
    assert answer.status_code == 403 and browser.signed_in()


# -- __Host- cookies -------------------------------------------------------------------------------------


def cookie_parts(answer: httpx.Response, name: str) -> dict[str, str]:
    header = next(c for c in answer.headers.get_list("set-cookie") if c.startswith(name + "="))
    return {part.strip().split("=")[0].lower(): part.strip() for part in header.split(";")[1:]}


def test_over_https_the_cookies_are_host_prefixed(make, league):
    """Over https the session cookie is `__Host-tourney_session` (Secure, Path=/, no Domain), and so is the sign-in
    form's (`__Host-tourney_sign_in`, Path=/); only they are read there: a `tourney_session` cookie (as a plain-http
    page or another host could set) signs nobody in."""
    app = make()
    browser = Browser(app, "https://league.test")
    form = browser.get("/sign-in")
    parts = cookie_parts(form, "__Host-tourney_sign_in")
    assert "secure" in parts and parts["path"] == "Path=/" and "domain" not in parts
    answer = browser.sign_in(league.tokens["alice"])
    parts = cookie_parts(answer, "__Host-tourney_session")
    assert "secure" in parts and parts["path"] == "Path=/" and "domain" not in parts and "httponly" in parts
    assert not any(c.startswith("tourney_session=") for c in answer.headers.get_list("set-cookie"))
    assert browser.signed_in()
    secret = browser.cookies["__Host-tourney_session"]
    planted = Browser(app, "https://league.test")
    planted.cookies.set("tourney_session", secret, domain="league.test")
    assert not planted.signed_in()
    done = browser.request("POST", "/sign-out", data={"csrf": browser.csrf()})
    assert done.status_code == 303 and "__Host-tourney_session" not in browser.cookies


def test_over_plain_http_the_cookies_are_plain_unless_the_operator_says_so(make, league):
    """Over plain http (127.0.0.1, the tests) the cookie is `tourney_session`, not Secure (a browser keeps a Secure
    cookie from http only on localhost); with TOURNEY_HTTPS_COOKIES=1 it is `__Host-` and Secure there too."""
    answer = Browser(make()).sign_in(league.tokens["alice"])
    parts = cookie_parts(answer, "tourney_session")
    assert "secure" not in parts and parts["path"] == "Path=/"
    assert not any(c.startswith("__Host-") for c in answer.headers.get_list("set-cookie"))
    assert Settings.from_env({"TOURNEY_HTTPS_COOKIES": "1"}).https_cookies
    forced = Browser(make(https_cookies=True))
    form = forced.get("/sign-in")
    parts = cookie_parts(form, "__Host-tourney_sign_in")
    assert "secure" in parts and parts["path"] == "Path=/" and "domain" not in parts
    # httpx, like a browser away from localhost, keeps no Secure cookie from http: the test sends it itself.
    value = form.headers["set-cookie"].split(";")[0].split("=", 1)[1]
    csrf = re.search(r'action="/sign-in".*?name="csrf" value="([^"]+)"', form.text, re.S).group(1)
    answer = forced.request("POST", "/sign-in", data={"token": league.tokens["alice"], "csrf": csrf},
                            headers={"Cookie": f"__Host-tourney_sign_in={value}"})
    parts = cookie_parts(answer, "__Host-tourney_session")
    assert answer.status_code == 303 and "secure" in parts and parts["path"] == "Path=/" and "domain" not in parts


# -- malformed bodies ------------------------------------------------------------------------------------


def test_a_malformed_multipart_body_is_a_documented_400(make, league):
    """A multipart body without its parts (as Schemathesis sends one) to either upload or to the sign-in form is
    a 400, JSON on the API and a page elsewhere, and the document lists that 400 for every operation with a body."""
    app = make()
    browser = Browser(app)
    body = b"--edge\r\nFalse--edge--\r\n"
    for url, kind in ((f"/api/ladders/{LADDER}/submissions", "application/json"),
                      ("/account/submissions", "text/html"), ("/sign-in", "text/html")):
        answer = browser.request("POST", url, token=league.tokens["alice"], content=body,
                                 headers={"Content-Type": "multipart/form-data; boundary=edge"})
        assert answer.status_code == 400 and answer.headers["content-type"].startswith(kind), (url, answer.text[:200])
    operations = [(path, operation) for path, item in app.openapi()["paths"].items() for operation in item.values()]
    with_body = [(path, operation) for path, operation in operations if "requestBody" in operation]
    assert len(with_body) >= 6  # the two uploads, sign in, the two sign-outs, retire
    for path, operation in with_body:
        documented = operation["responses"]["400"]["content"]
        assert list(documented) == ["application/json" if path.startswith("/api/") else "text/html"], path


# -- in Chromium -----------------------------------------------------------------------------------------


@pytest.fixture
def site(league: League):
    """`tourney serve --submissions` over this test's league (plain http on 127.0.0.1)."""
    process, base = start(league, "--submissions")
    yield base
    stop(process)


def signed_in_page(open_page, base: str, token: str, page=None):
    """A browser (a fresh one, or ``page``'s) signed in with ``token`` through the form; its account page."""
    if page is None:
        page = open_page(base + "sign-in", allowed=(base,))
    else:
        page.goto(base + "sign-in")
    page.fill("input[name=token]", token)
    page.get_by_role("button", name="sign in").click()
    page.wait_for_url(base + "account")
    return page


@pytest.mark.browser
def test_in_chromium_a_second_sign_in_replaces_the_session_and_sign_out_everywhere_ends_all(site, open_page, league):
    """In Chromium: signing in again in one browser gives it a new cookie and the old one signs nobody in; then
    "sign out everywhere" on one browser's account page signs out the other browser too."""
    here = signed_in_page(open_page, site, league.tokens["alice"])
    first = next(c for c in here.context.cookies() if c["name"] == "tourney_session")
    signed_in_page(open_page, site, league.tokens["alice"], here)
    second = next(c for c in here.context.cookies() if c["name"] == "tourney_session")
    assert second["value"] != first["value"]
    stale = open_page(site, allowed=(site,))
    stale.context.add_cookies([first])
    stale.goto(site + "account")
    assert stale.url == site + "sign-in"

    there = signed_in_page(open_page, site, league.tokens["alice"])
    here.goto(site + "account")
    here.get_by_role("button", name="sign out everywhere").click()
    here.wait_for_url(site)
    assert not [c for c in here.context.cookies() if c["name"] == "tourney_session"]
    there.goto(site + "account")
    assert there.url == site + "sign-in"
    # Both account pages poll their lists every second (live.js): a poll answered after the sign-out is a 401,
    # which Chromium logs as a console error. That answer is what the test wants; nothing else may show.
    for page in (here, there):
        page.problems.excuse(UNAUTHORIZED)
