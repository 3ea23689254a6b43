"""Shared fixtures: a real SQLite ledger in a temporary directory, the toy game, the browser (tests/browser.py)."""

from __future__ import annotations

import pytest

from engines import registry
from ledger.store import Ledger
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
