"""Shared fixtures: a real SQLite ledger in a temporary directory, the toy game, the browser (tests/browser.py),
and ``backend``: the same test on an SQLite file and on a fresh PostgreSQL database (tests/backends.py)."""

from __future__ import annotations

import pytest

from engines import registry
from ledger.store import Ledger
from tests.backends import BACKENDS, backend_for
from tests.browser import browser, open_page  # noqa: F401 (one Chromium for every browser test, found by name)
from tests.toy import ENGINE as TOY

registry.register(TOY)


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "tourney.db"


@pytest.fixture
def ledger(db_path):
    store = Ledger(str(db_path))
    yield store
    store.close()


@pytest.fixture(params=BACKENDS)
def backend(request, tmp_path, monkeypatch):
    with backend_for(request.param, tmp_path) as chosen:
        if chosen.path is None:  # a server's ledger has no file to keep its key beside (docs/scaling.md)
            monkeypatch.setenv("TOURNEY_LEDGER_KEY", str(chosen.key))
        yield chosen
