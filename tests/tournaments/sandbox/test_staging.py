"""A run's staged bot files (tournaments/play/preparation.py): a folder of the temporary folder named for the
process that made it, removed when the run ends; one a SIGKILLed run left is removed by the next run that stages
bots, and nothing else is (docs/security.md, "cgroups"). Real `tourney run` processes, real bwrap."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import cli
from tests.tournaments.sandbox.test_sandbox import TIMEOUT
from tournaments.play.preparation import STAGING
from tournaments.sandbox import leftovers, sandbox

pytestmark = pytest.mark.sandbox

DAWDLER = Path(__file__).resolve().parents[1] / "bots" / "dawdler.py"
GAMES = 12
"""Games of dawdlers (a quarter second before each game's first move) at one job: seconds of run to kill."""


@pytest.fixture
def tmpdir_base() -> Iterator[Path]:
    """The runs' TMPDIR: a folder the sandboxes' own uids can reach (pytest's tmp_path sits under a folder only its
    owner may enter, and a sandbox binds its bots' staged copies from here)."""
    if (problem := sandbox.unavailable()) is not None:
        pytest.fail(f"the staging tests need a working bwrap: {problem}")
    folder = Path(tempfile.mkdtemp(prefix="tourney-staging-test-"))
    folder.chmod(0o1777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def ended_pid() -> int:
    """The pid of a process that has ended."""
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


def run_args(tmp_path: Path, db: str, games: int) -> list[str]:
    bots = tmp_path / "bots"
    if not bots.exists():
        bots.mkdir()
        for name in ("ant", "bee"):
            shutil.copy(DAWDLER, bots / f"{name}.py")
    return ["run", str(bots), "--game", "lemur-tails", "--games", str(games), "--jobs", "1", "--sandbox", "on",
            "--db", str(tmp_path / db)]


def staging_of(base: Path, pid: int) -> list[Path]:
    """The staging folders of process ``pid`` in ``base``."""
    return sorted(base.glob(f"{STAGING}{pid}-*"))


def staged(base: Path, pid: int) -> list[Path]:
    """The bots' copies in them so far."""
    return [copy for folder in staging_of(base, pid) for copy in folder.iterdir()]


def test_a_killed_runs_staged_files_are_removed_by_the_next_run_and_nothing_else(tmp_path, tmpdir_base):
    environment = {**os.environ, "TMPDIR": str(tmpdir_base)}
    dead = ended_pid()
    made = {
        "dead": tmpdir_base / f"{STAGING}{dead}-1-aaaaaaaa",
        "pid reused": tmpdir_base / f"{STAGING}{os.getpid()}-1-bbbbbbbb",  # this pid, started at another time
        "alive": tmpdir_base / f"{STAGING}{leftovers.tag()}-cccccccc",  # this very process's
        "not a staging name": tmpdir_base / f"{STAGING}kept",
    }
    for folder in made.values():
        (folder / "bot").mkdir(parents=True)
        (folder / "bot" / "bot.py").write_text("GAMES = '*'\n")
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / "precious").write_text("keep me")
    link = tmpdir_base / f"{STAGING}{dead}-1-link"
    link.symlink_to(target, target_is_directory=True)
    others = None
    if os.geteuid() == 0:  # another user's folder, named as if stale: not ours to remove
        others = tmpdir_base / f"{STAGING}{dead}-1-dddddddd"
        others.mkdir()
        os.chown(others, 65534, 65534)

    with cli.spawn(*run_args(tmp_path, "killed.db", GAMES), env=environment, cwd=tmp_path, stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE, text=True, start_new_session=True) as killed:
        try:
            deadline = time.monotonic() + TIMEOUT
            while len(staged(tmpdir_base, killed.pid)) < 2:  # its folder made, and a copy of each bot in it
                assert killed.poll() is None, f"the run ended before it was killed: {killed.communicate()}"
                assert time.monotonic() < deadline, "the run never staged its bots"
                time.sleep(0.02)
            own = staging_of(tmpdir_base, killed.pid)
            assert len(own) == 1
            # The run swept before it staged: the stale folders are gone, the rest untouched.
            assert not made["dead"].exists() and not made["pid reused"].exists()
            assert made["alive"].exists() and made["not a staging name"].exists()
            assert link.is_symlink() and (target / "precious").read_text() == "keep me"
            assert others is None or others.exists()
        finally:
            os.killpg(killed.pid, signal.SIGKILL)
            killed.communicate(timeout=TIMEOUT)
    assert killed.returncode == -signal.SIGKILL
    assert staging_of(tmpdir_base, killed.pid) == own  # a SIGKILL leaves no chance to clean up

    following = cli.tourney(*run_args(tmp_path, "next.db", 2), env=environment, cwd=tmp_path)
    assert following.returncode == 0, following.stderr
    assert staging_of(tmpdir_base, killed.pid) == []  # the next run removed the killed one's
    left = sorted(path.name for path in tmpdir_base.iterdir() if path.name.startswith(STAGING))
    expected = [made["alive"].name, made["not a staging name"].name, link.name] + ([others.name] if others else [])
    assert left == sorted(expected)  # and its own, at its end
