"""A real browser for tests: Debian's Chromium driven by Playwright for Python.

Never `playwright install` (it downloads a browser, and this machine has no internet for it):
the tests drive the system's /usr/bin/chromium, which CI installs (`apt-get install chromium`).
Without it the browser tests FAIL, saying so; they never skip.

Use the fixtures from a conftest.py (``from tests.browser import browser, open_page  # noqa: F401``):
``browser`` is one Chromium for the whole session; ``open_page(url)`` opens a fresh page in its own
context that may load only ``file:`` URLs (anything else is aborted and fails the test), and fails
the test on any console error, page error or dialog. ``open_page(url, allowed=("http://127.0.0.1:PORT/",))``
lets it load from a live server instead (tests/web/), and from nowhere else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",  # the test runner may be root, where Chromium's own sandbox refuses to start
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ALLOWED_SCHEMES = ("file:",)
UNAUTHORIZED = "console error: Failed to load resource: the server responded with a status of 401 (Unauthorized)"
"""What Chromium logs when a request is answered 401: a live part's poll once its viewer was signed out."""
TIMEOUT_MS = 30_000
"""How long a wait may last before it fails: generous, as a 2-core machine running other suites
can stall a page for seconds (an upper bound, never a timing assertion)."""


def expect(*args: Any, **kwargs: Any) -> Any:
    """Playwright's ``expect``, imported when a browser test first asserts (Playwright is a second of collection)."""
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(*args, **kwargs)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for the session."""
    if not CHROMIUM.exists():
        pytest.fail(f"chromium not found at {CHROMIUM}: .ci/run installs it (apt-get install chromium)", pytrace=False)
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        pytest.fail("playwright is not installed: pip install -e '.[test]' (never `playwright install`)",
                    pytrace=False)
    expect.set_options(timeout=TIMEOUT_MS)
    with sync_playwright() as driver:
        chromium = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Watched:
    """What a page did that a test must not allow: requests off file:, console errors, page errors, dialogs."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.accepted = False
        """Set by a test that provokes the problems on purpose (and has checked them itself)."""
        self.excused: tuple[str, ...] = ()
        """Problems a test expects and allows (see ``excuse``); any other still fails it."""

    def excuse(self, *expected: str) -> None:
        """Allow the problems that are exactly one of ``expected``, and only those."""
        self.excused += expected

    def unexcused(self) -> list[str]:
        return [problem for problem in self.problems if problem not in self.excused]

    def check(self) -> None:
        assert self.accepted or not self.unexcused(), "the page misbehaved:\n" + "\n".join(self.unexcused())


@pytest.fixture
def open_page(browser) -> Iterator[Callable[..., Any]]:
    """Open a URL in a fresh, isolated page; at the end of the test, fail on anything the page did wrong."""
    contexts: list[tuple[Any, Watched]] = []

    def open_(url: str, width: int = 1400, height: int = 900, allowed: tuple[str, ...] = ALLOWED_SCHEMES) -> Any:
        context = browser.new_context(viewport={"width": width, "height": height}, service_workers="block")
        context.set_default_timeout(TIMEOUT_MS)
        watched = Watched()

        def route(request_route: Any) -> None:
            url = request_route.request.url
            if url.startswith(allowed):
                request_route.continue_()
            else:
                request_route.abort()  # the request listener has named it

        context.route("**/*", route)
        page = context.new_page()
        # Routing sees network requests; this sees every request, whatever its scheme.
        page.on("request", lambda request: request.url.startswith(allowed) or watched.problems.append(
            f"request to {request.url}"))
        page.on("console", lambda message: message.type == "error" and watched.problems.append(
            f"console error: {message.text}"))
        page.on("pageerror", lambda error: watched.problems.append(f"page error: {error}"))

        def dialog(shown: Any) -> None:
            watched.problems.append(f"dialog: {shown.type} {shown.message!r}")
            shown.dismiss()

        page.on("dialog", dialog)
        page.problems = watched
        contexts.append((context, watched))
        page.goto(url)
        return page

    yield open_
    for context, _ in contexts:
        context.close()
    for _, watched in contexts:
        watched.check()
