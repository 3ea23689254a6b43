"""The test suite's tiers (docs/testing.md): what a plain `pytest` runs, and what only tox (CI) adds.

Every test that needs one of the expensive things below carries its marker, declared in pyproject.toml
(``--strict-markers``): a module's ``pytestmark``, a test's decorator, or a parameter's ``marks``.
Plain ``pytest`` deselects them all (pyproject's addopts: ``-m FAST``); tox runs every tier (``-m ""``).

A marker forgotten is caught where it can be: the fixtures and helpers that start Chromium, a Ray cluster,
a PostgreSQL database or a sandbox call ``require`` first, which fails a test not marked for it, so that
the fast tier never runs such a test unseen. tests/test_tiers.py checks the rest (the tiers cover the whole
collection, tox selects all of it).
"""

from __future__ import annotations

import json

import pytest

TIERS = {
    "browser": "drives Debian's Chromium through Playwright (tests/browser.py)",
    "ray": "starts a local Ray cluster (tests/tournaments/play/test_ray.py)",
    "postgres": "needs the PostgreSQL server of .ci/with-services (tests/backends.py)",
    "sandbox": "needs bubblewrap: bots in their sandbox on purpose (--sandbox on), cgroups, the containment's attacks",
    "slow": "a second or more each on an idle machine: scale tests, tournaments and ladders played whole",
}
FAST = f"not ({' or '.join(TIERS)})"
"""The fast tier: pyproject's addopts select it for a plain `pytest`."""

REPORT = "TOURNEY_TIERS_REPORT"
"""Where tests/conftest.py writes every collected test, before any deselection (tests/test_tiers.py reads it)."""

current: pytest.Item | None = None
"""The test being set up, run or torn down (tests/conftest.py keeps it), for ``require``."""


FIXTURES = {"browser": "browser", "open_page": "browser"}
"""Fixtures that stand for a tier: a test using one (directly or through another fixture) must carry its marker."""


def check(item: pytest.Item) -> None:
    """Fail ``item`` (at its setup) if it uses a fixture of a tier whose marker it does not carry."""
    global current
    current = item
    for fixture in getattr(item, "fixturenames", ()):
        if fixture in FIXTURES:
            require(FIXTURES[fixture], f"the {fixture!r} fixture")


def require(tier: str, what: str) -> None:
    """Fail the current test unless it carries the ``tier`` marker: it uses ``what``, which that tier stands for."""
    if current is not None and current.get_closest_marker(tier) is None:
        pytest.fail(f"{current.nodeid} uses {what} but is not marked {tier!r}: add @pytest.mark.{tier} (or the "
                    f"module's pytestmark) so that plain pytest leaves it to its tier (tests/tiers.py)", pytrace=False)


def report(items: list[pytest.Item], path: str) -> None:
    """Write each collected test's node id, markers and fixtures (all of them, before ``-m`` deselects any) as JSON."""
    rows = [{"id": item.nodeid, "markers": sorted({mark.name for mark in item.iter_markers()}),
             "fixtures": sorted(getattr(item, "fixturenames", ())),
             "params": {name: str(value) for name, value in getattr(getattr(item, "callspec", None), "params",
                                                                        {}).items()}}
            for item in items]
    with open(path, "w") as out:
        json.dump(rows, out)
