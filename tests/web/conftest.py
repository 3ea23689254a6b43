"""Fixtures of the web tests: the seeded league (made once), a fresh copy per test, the app over it."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.web.league import Api, League, seed
from web.app import create_app
from web.settings import Settings


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
