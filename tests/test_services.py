"""`.ci/with-services`: the throwaway PostgreSQL server of a test run, one per run, never shared.

These run the real script (initdb, pg_ctl) with PGHOST unset, as a second run on this machine
would, while the suite itself runs beside its own server.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
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


def wait_for_server(base: Path, run: subprocess.Popen) -> None:
    """Until the server of ``run`` (a with-services process) has written its pid file."""
    deadline = time.monotonic() + 120
    while not any((c / "data" / "postmaster.pid").exists() for c in clusters(base)):
        assert time.monotonic() < deadline and run.poll() is None, "the run's server never started"
        time.sleep(0.2)


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
def test_a_killed_run_leaves_a_cluster_the_next_run_removes(base):
    """SIGKILL leaves no chance to clean up: the next run finds the cluster whose owner is gone, stops its
    server and removes it, then passes on a server of its own."""
    env = bare_env(base)
    first = subprocess.Popen([str(SCRIPT), "sleep", "60"], env=env, stderr=subprocess.DEVNULL)
    wait_for_server(base, first)
    left = clusters(base)
    server = int((left[0] / "data" / "postmaster.pid").read_text().split()[0])
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    subprocess.run(["pkill", "-KILL", "-P", str(first.pid)], check=False)  # its `sleep`, orphaned
    assert clusters(base) == left  # nothing cleaned up by the killed run

    second = subprocess.run([str(SCRIPT), sys.executable, "-c", CONNECT], env=env, capture_output=True, text=True,
                            timeout=180)
    assert second.returncode == 0, second.stderr
    assert f"removing the stale test cluster {left[0]}" in second.stderr
    assert clusters(base) == []
    assert not Path(f"/proc/{server}").exists() or b"postgres" not in Path(f"/proc/{server}/cmdline").read_bytes()


@pytest.mark.slow
def test_a_terminated_run_stops_its_command_and_server_at_once(base):
    """SIGTERM to the script ends the command it runs and removes its cluster, without waiting for the command."""
    env = bare_env(base)
    run = subprocess.Popen([str(SCRIPT), "sleep", "60"], env=env, stderr=subprocess.DEVNULL)
    wait_for_server(base, run)
    time.sleep(0.5)
    run.send_signal(signal.SIGTERM)
    assert run.wait(timeout=30) == 143  # within 30 s: not after the 60 s of its command
    assert clusters(base) == []
