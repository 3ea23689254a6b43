"""A live `tourney serve` for the browser tests and Schemathesis: started on a free port of 127.0.0.1,
once it answers."""

from __future__ import annotations

import os
import socket
import subprocess
import time

from tests import cli
from tests.web.league import League

STARTUP_SECONDS = 30


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(league: League, *args: str) -> tuple[subprocess.Popen, str]:
    """`tourney serve` on a free port of 127.0.0.1, once it answers; (the process, its base URL)."""
    port = free_port()
    env = {**os.environ, "TOURNEY_POLL_SECONDS": "1"}
    output = league.path.with_suffix(f".serve-{port}.log")
    with output.open("wb") as log:
        process = cli.spawn("serve", "--db", str(league.path),
                            "--port", str(port), *args, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"tourney serve exited: {output.read_text()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, f"http://127.0.0.1:{port}/"
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise AssertionError(f"tourney serve did not listen within {STARTUP_SECONDS} s")


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    process.wait(timeout=30)
