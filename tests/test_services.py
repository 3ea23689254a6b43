"""`.ci/with-services`: the throwaway PostgreSQL server of a test run, one per run, never shared.

These run the real script (initdb, pg_ctl) with PGHOST unset, as a second run on this machine
would, while the suite itself runs beside its own server.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / ".ci" / "with-services"
CONNECT = ("import os, psycopg; c = psycopg.connect(connect_timeout=10); "
           "c.execute('CREATE TABLE probe (n int)'); print(os.environ['PGPORT'], os.environ['PGPASSWORD'])")


@pytest.fixture
def base():
    """A temporary folder for the runs' clusters that the postgres user can reach (as root the server runs
    as that user; pytest's tmp_path sits under a folder only its owner may enter)."""
    folder = Path(tempfile.mkdtemp(prefix="tourney-services-"))
    folder.chmod(0o1777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def bare_env(base: Path) -> dict[str, str]:
    """The environment of a fresh run: no server named, clusters kept under ``base``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG") and k != "TOURNEY_TEST_POSTGRES"}
    env["TMPDIR"] = str(base)
    return env


def clusters(base: Path) -> list[Path]:
    return sorted(base.glob("tourney-pg.*"))


def wait_for_server(base: Path, run: subprocess.Popen, errors: Path) -> int:
    """Until the server of ``run`` (a with-services process whose stderr goes to ``errors``) is ready; its pid.
    PostgreSQL writes postmaster.pid in steps (created empty, then line by line, its status "ready" last on line 8;
    initdb's bootstrap backend leaves a shorter one), so a file merely present may not hold a pid yet."""
    deadline = time.monotonic() + 120
    while True:
        for cluster in clusters(base):
            with contextlib.suppress(OSError):
                lines = (cluster / "data" / "postmaster.pid").read_text().splitlines()
                if len(lines) >= 8 and lines[7].strip() == "ready":
                    return int(lines[0])
        assert time.monotonic() < deadline and run.poll() is None, \
            f"the run's server never started: {errors.read_text(errors='replace')[-2000:]}"
        time.sleep(0.2)


@contextlib.contextmanager
def script(base: Path, errors: Path, *command: str) -> Iterator[subprocess.Popen]:
    """The script running ``command``, its stderr written to ``errors``; killed and waited for if the test ends
    first (a failed assertion leaves no process behind for the next test to trip on)."""
    with errors.open("w") as stderr:
        run = subprocess.Popen([str(SCRIPT), *command], env=bare_env(base), stderr=stderr)
    try:
        yield run
    finally:
        if run.poll() is None:
            run.kill()
        run.wait(timeout=30)


@pytest.mark.slow
def test_two_runs_at_once_each_get_a_server_of_their_own(base):
    """Two runs started together both pass, each on its own port with its own password, and both clusters
    are gone afterwards (pg_virtualenv as root refused the second: "Cluster 15/regress exists")."""
    env = bare_env(base)
    runs = [subprocess.Popen([str(SCRIPT), sys.executable, "-c", f"import time; {CONNECT}; time.sleep(2)"],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [run.communicate(timeout=180) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    ports = [out.split()[0] for out, _ in outputs]
    passwords = [out.split()[1] for out, _ in outputs]
    assert ports[0] != ports[1] and passwords[0] != passwords[1]
    assert clusters(base) == []


@pytest.mark.slow
def test_a_killed_run_leaves_a_cluster_the_next_run_removes(base, tmp_path):
    """SIGKILL leaves no chance to clean up: the next run finds the cluster whose owner is gone, stops its
    server and removes it, then passes on a server of its own."""
    with script(base, tmp_path / "first.err", "sleep", "60") as first:
        server = wait_for_server(base, first, tmp_path / "first.err")
        left = clusters(base)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
        subprocess.run(["pkill", "-KILL", "-P", str(first.pid)], check=False)  # its `sleep`, orphaned
    assert clusters(base) == left  # nothing cleaned up by the killed run

    second = subprocess.run([str(SCRIPT), sys.executable, "-c", CONNECT], env=bare_env(base), capture_output=True,
                            text=True, timeout=180)
    assert second.returncode == 0, second.stderr
    assert f"removing the stale test cluster {left[0]}" in second.stderr
    assert clusters(base) == []
    assert not Path(f"/proc/{server}").exists() or b"postgres" not in Path(f"/proc/{server}/cmdline").read_bytes()


@pytest.mark.slow
def test_a_terminated_run_stops_its_command_and_server_at_once(base, tmp_path):
    """SIGTERM to the script ends the command it runs and removes its cluster, without waiting for the command."""
    with script(base, tmp_path / "run.err", "sleep", "60") as run:
        wait_for_server(base, run, tmp_path / "run.err")
        time.sleep(0.5)
        run.send_signal(signal.SIGTERM)
        assert run.wait(timeout=30) == 143  # within 30 s: not after the 60 s of its command
    assert clusters(base) == []
