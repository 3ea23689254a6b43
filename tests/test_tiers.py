"""The suite's tiers (tests/tiers.py, docs/testing.md): a plain `pytest` collects the fast tier, every test not
marked with a tier; tox's pytest command collects every test; the tiers together are the whole suite; and the
tests that use a tier's fixture carry its marker."""

from __future__ import annotations

import configparser
import json
import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests import tiers

# two collections of the whole suite in processes: seconds on an idle machine, tens of them on a busy one
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 600  # two collections of the whole suite on a loaded machine (an upper bound, not a timing assertion)


def tox_pytest_args() -> list[str]:
    """The arguments tox's test environment gives pytest (tox.ini), but {posargs}."""
    config = configparser.ConfigParser(interpolation=None)
    config.read(ROOT / "tox.ini")
    line = next(line for line in config["testenv:tests"]["commands"].splitlines() if " pytest " in f" {line} ")
    words = shlex.split(line)
    return [word for word in words[words.index("pytest") + 1:] if word != "{posargs}"]


def without_xdist(args: list[str]) -> list[str]:
    """``args`` without pytest-xdist's options: collecting is the same on one process as on its workers."""
    out, skip = [], False
    for word in args:
        if skip:
            skip = False
        elif word in ("-n", "--numprocesses", "--dist"):
            skip = True
        elif not word.startswith(("-n=", "--numprocesses=", "--dist=")):
            out.append(word)
    return out


def collect(args: list[str], report: Path | None = None) -> subprocess.Popen:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PYTEST_XDIST", "PYTEST_ADDOPTS", tiers.REPORT))}
    if report is not None:
        env[tiers.REPORT] = str(report)
    return subprocess.Popen([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def selected(process: subprocess.Popen) -> set[str]:
    """The node ids a `pytest --collect-only -q` listed (it failed the test if it failed)."""
    out, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, out[-3000:] + err[-3000:]
    return {line for line in out.splitlines() if "::" in line}


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> tuple[list[dict], set[str], set[str]]:
    """Every collected test (tests/tiers.py's report: id, markers, fixtures, parameters), what tox's command
    selects and what a plain `pytest` selects; the two collections run side by side."""
    report = tmp_path_factory.mktemp("tiers") / "report.json"
    with_tox = collect(without_xdist(tox_pytest_args()), report)
    plain = collect([])
    tox_ids, plain_ids = selected(with_tox), selected(plain)
    return json.loads(report.read_text()), tox_ids, plain_ids


def test_tox_runs_every_collected_test(suite):
    rows, tox_ids, _ = suite
    assert len(rows) > 1000  # the whole suite was collected
    assert tox_ids == {row["id"] for row in rows}


def test_plain_pytest_runs_the_fast_tier_only(suite):
    """Plain `pytest` selects exactly the tests with no tier marker, and pyproject's expression is the fast tier's."""
    rows, _, plain_ids = suite
    fast = {row["id"] for row in rows if not set(row["markers"]) & set(tiers.TIERS)}
    assert plain_ids == fast and fast
    addopts = shlex.split(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
                          ["addopts"])
    assert addopts[addopts.index("-m") + 1] == tiers.FAST


def test_the_tiers_together_are_the_whole_suite(suite):
    """Each test is in the fast tier or in at least one other; every tier holds tests; every tier is declared."""
    rows, _, plain_ids = suite
    by_tier = {tier: {row["id"] for row in rows if tier in row["markers"]} for tier in tiers.TIERS}
    assert all(by_tier.values()), {tier: len(ids) for tier, ids in by_tier.items()}
    assert plain_ids.union(*by_tier.values()) == {row["id"] for row in rows}
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["markers"]
    assert set(tiers.TIERS) <= {line.partition(":")[0] for line in declared}


def test_tests_that_use_a_tiers_fixture_carry_its_marker(suite):
    """Chromium's fixtures (tests/browser.py), PostgreSQL's backend and the Ray cluster: their tests are marked."""
    rows, _, _ = suite
    unmarked = [(row["id"], tier) for row in rows for tier in expected_tiers(row) if tier not in row["markers"]]
    assert unmarked == []


def expected_tiers(row: dict) -> set[str]:
    expected = {tiers.FIXTURES[name] for name in row["fixtures"] if name in tiers.FIXTURES}
    if row["params"].get("backend") == "postgresql":
        expected.add("postgres")
    if row["id"].startswith("tests/tournaments/play/test_ray.py::") and "cluster" in row["fixtures"]:
        expected.add("ray")
    return expected
