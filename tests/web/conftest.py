"""Fixtures of the web tests: the seeded league (made once), a fresh copy per test, the app over it, and
live servers for the browser: ``live`` over the test's copy (with ``live_args``), ``shown`` over the seeded
league itself, read-only, started once; ``visit``/``see`` open their paths in Chromium."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.web.league import Api, League, seed
from tests.web.live import start, stop


@pytest.fixture(scope="session")
def seeded(tmp_path_factory) -> League:
    folder = tmp_path_factory.mktemp("league")
    return seed(folder / "league.db", folder)


@pytest.fixture
def league(seeded: League, tmp_path: Path) -> League:
    """A copy of the seeded league this test may change."""
    path = tmp_path / "league.db"
    shutil.copy(seeded.path, path)
    for suffix in (".key", ".pub"):  # the ledger's signing key beside it, which stores games
        kept = seeded.path.with_name(seeded.path.name + suffix)
        if kept.exists():
            shutil.copy2(kept, path.with_name(path.name + suffix))
    return League(path, seeded.tokens)


@pytest.fixture
def serve(league: League) -> Iterator[Callable[..., Api]]:
    """``serve(**settings)``: the application over this test's league, and requests to it."""
    from web.app import create_app  # FastAPI and the app: imported by the tests that serve, not at collection
    from web.settings import Settings

    apps = []

    def make(**settings) -> Api:
        app = create_app(Settings(db=str(league.path), **settings))
        apps.append(app)
        return Api(app)

    yield make
    for app in apps:
        app.state.site.ledger.close()


@pytest.fixture
def api(serve) -> Api:
    """The application with submissions open."""
    return serve(submissions=True)


@pytest.fixture
def live(league: League) -> Iterator[str]:
    """`tourney serve` over this test's league (read-only); its base URL."""
    process, base = start(league)
    yield base
    stop(process)


def opener(base: str, open_page) -> Callable[..., object]:
    """Open a path of the server at ``base``; the page may load nothing but the server's own URLs."""
    return lambda path, **size: open_page(base + path.lstrip("/"), allowed=(base,), **size)


@pytest.fixture
def visit(live, open_page):
    """Open a path of the live server. The server is started first so that it stops last: the pages (a ladder
    page polls its leaderboard) are closed while it still answers, never polling a server already gone."""
    return opener(live, open_page)


@pytest.fixture(scope="session")
def shown(seeded: League) -> Iterator[str]:
    """A read-only `tourney serve` over the seeded league, for the tests that only look (started once)."""
    process, base = start(seeded)
    yield base
    stop(process)


@pytest.fixture
def see(shown, open_page):
    """Open a path of the shared read-only server (as ``visit`` does)."""
    return opener(shown, open_page)
