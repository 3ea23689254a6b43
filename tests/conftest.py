"""Shared fixtures: a real SQLite ledger in a temporary directory, the toy game, the browser (tests/browser.py),
and ``backend``: the same test on an SQLite file and on a fresh PostgreSQL database (tests/backends.py). Also the
suite's tiers (tests/tiers.py), its pytest-xdist groups, and what each worker keeps to itself (docs/testing.md)."""

from __future__ import annotations

import contextlib
import gc
import os

import pytest

from engines import registry
from ledger.store import Ledger
from tests import properties, tiers  # noqa: F401 (properties: Hypothesis's profiles, loaded before any test module)
from tests.backends import BACKENDS, backend_for
from tests.browser import browser, open_page  # noqa: F401 (one Chromium for every browser test, found by name)
from tests.toy import ENGINE as TOY
from tournaments.sandbox import cgroups, leftovers, warm

registry.register(TOY)

if os.environ.get("PYTEST_XDIST_WORKER"):
    # pytest-xdist's workers inherit COLUMNS=80 (and LINES) from execnet: rich would wrap the CLI's output at 80
    # columns there and nowhere else, and tests that read whole lines would fail only under -n. A worker sees the
    # terminal a plain run sees: none (tests that want a width set COLUMNS themselves).
    os.environ.pop("COLUMNS", None)
    os.environ.pop("LINES", None)

# Each worker (and a run without xdist: "main") keeps its sandboxes' cgroups in a subtree of its own, inherited by
# every process it starts: its sweeps and its checks for stale groups (test_sandbox.py's assert_nothing_left,
# test_cgroups.py) see only its own. Named for the worker's process (pid and start time), so that two runs at once,
# from one checkout or two, never share one, and one left by a worker that was killed is found (docs/testing.md).
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")
SUBTREE = f"tourney-tests-{leftovers.tag()}-{WORKER}"
os.environ[cgroups.PARENT_VARIABLE] = SUBTREE


@pytest.fixture(scope="session", autouse=True)
def _own_cache(tmp_path_factory):
    """The run's own $XDG_CACHE_HOME (a ladder unpacks stored bots there, tournaments/ladder/league.py): never the
    user's, and one per pytest-xdist worker (each has its own base temp), so that workers never unpack the same bot
    into one folder at once (one may remove a copy another is about to play). Tests that set it keep theirs."""
    previous = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))
    yield
    if previous is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = previous


@pytest.fixture(scope="session", autouse=True)
def _own_cgroups():
    """At the end, the worker's warm sandboxes are closed (with the frozen group that keeps cgroup v1's freezer
    warm) and its cgroup subtree is swept and removed. First, the subtrees of workers that are gone (killed) are
    emptied and removed, with whatever their groups still held. At the end too, the staged bot files of the runs
    the tests SIGKILLed (tournaments/play/preparation.py: the next run would remove them) are removed."""
    _sweep_stale_subtrees()
    yield
    from tournaments.play.preparation import sweep_staging

    sweep_staging()
    if cgroups._detect.cache_info().currsize:  # this worker made or looked for groups
        found = cgroups.hierarchy()
        if found is not None:
            warm.pool.close()
            cgroups.sweep()
            for parent in found.parents:
                with contextlib.suppress(OSError):
                    parent.rmdir()


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


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Keep the test being run, for tests.tiers.require (its fixtures' setup included, module-scoped ones too), and
    fail it if it uses a tier's fixture without that tier's marker."""
    tiers.check(item)


GC_THRESHOLDS = (700, 10, 100)
"""Python's own thresholds for the young generations (a cycle a test lets go is collected as soon as before), a full
collection ten times less often."""


def pytest_collection_finish(session: pytest.Session) -> None:
    """Once the suite is collected, freeze what the process holds (every module, the collected items) out of the
    collector's generations and make full collections rarer: they walked it all, a fifth of a worker's CPU
    (docs/testing.md, "The collector in a worker", has the figures)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


SHARED_SCOPES = ("class", "module", "package")
"""Fixtures of these scopes are built once for the tests of a worker that use them (a league, a tournament)."""


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook reads the groups (--dist loadgroup)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under tox's ``--dist loadgroup``, the tests of a module that use one of its class-, module- or package-scoped
    fixtures (a ledger or a league built once) stay on one worker, so that it is built once; every other test is
    handed out on its own, wherever a worker is free, so that a long module does not keep one worker busy while the
    other idles. A module that must keep all its tests together names its group (``xdist_group``)."""
    for item in items:
        shared = shared_fixtures(item)
        if item.get_closest_marker("xdist_group") is None and shared:
            item.add_marker(pytest.mark.xdist_group(f"{item.nodeid.split('::', 1)[0]}::{shared}"))
        if getattr(item.config.option, "loadgroup", False):
            _mark_group_in_id(item)
    if os.environ.get(tiers.REPORT):
        tiers.report(items, os.environ[tiers.REPORT])


def shared_fixtures(item: pytest.Item) -> str:
    """The fixtures built once for several tests (SHARED_SCOPES) that the test uses, with the parameters it gets
    them with: "" if none. Tests of a module with the same ones share a group (so one worker builds them once);
    a fixture that tests of two groups use may be built once on each worker that runs them."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return "?"
    names = sorted(name for name, definitions in info.name2fixturedefs.items()
                   if any(definition.scope in SHARED_SCOPES for definition in definitions))
    params = getattr(getattr(item, "callspec", None), "params", {})
    return ",".join(f"{name}={params[name]}" if name in params else name for name in names)


def _sweep_stale_subtrees() -> None:
    """Empty and remove the cgroup subtrees of test workers that are gone (``tourney-tests-<pid>-<start>-<worker>``)."""
    usual, _ = cgroups._usual()
    if usual is None:
        return
    for folder in usual.parents[0].glob("tourney-tests-*"):
        owner = leftovers.parse(folder.name, "tourney-tests-")
        if owner is not None and leftovers.gone(*owner):
            with contextlib.suppress(OSError):
                cgroups._stale_box(usual, folder.name).remove()


def _mark_group_in_id(item: pytest.Item) -> None:
    """On a pytest-xdist worker under --dist loadgroup: suffix the test's id with its group (``...@group``), which is
    how xdist's scheduler finds groups. xdist 3.8 writes the suffix to ``item._nodeid``, which pytest 9 no longer
    reads (a node's id is ``item._id``), so without this no group takes effect (docs/testing.md)."""
    names = sorted({str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
                    for mark in item.iter_markers("xdist_group")})
    if names and "@" not in item.nodeid:
        from _pytest.nodeid import NodeId

        group = "_".join(names).replace("@", "_").replace("[", "_").replace("]", "_")
        item._id = NodeId.parse(f"{item.nodeid}@{group}")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (tox's command): half as many workers again as the cores this process may use (3 on 2 cores).
    The suite's tests wait on real bots, sandboxes, timeouts and servers: with one worker per core the machine was
    27% idle (tests/tournaments/sandbox and tests/tournaments/play: 313 s with 2 workers, 73% busy; 265 s with 3,
    90% busy; docs/benchmarks.md). PYTEST_XDIST_AUTO_NUM_WORKERS still decides when set (pytest-xdist's own hook)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cores + (cores + 1) // 2
