"""A bots folder played through `tourney run`, its standings read and its logs verified (shared by bot tests)."""

from __future__ import annotations

import json
import os
import pty
import select
import shutil
import subprocess
import time
from pathlib import Path

from tests import cli, tiers

BOTS = Path(__file__).resolve().parents[1] / "bots"


def random_pair(folder: Path) -> Path:
    """``folder`` made with two copies of the random bot in it (a.py, b.py): the smallest field a tournament takes."""
    folder.mkdir()
    for name in ("a", "b"):
        shutil.copy(BOTS / "random_bot.py", folder / f"{name}.py")
    return folder


def run_and_verify(folder: Path, game: str, db: Path, players: int = 2) -> list[dict]:
    """Play one deal per table of ``folder``'s bots with no worker (``--jobs 0``), each in its sandbox as in any
    tournament (``--sandbox on``: bwrap missing fails, never skips), check that no bot forfeited and that `replay
    verify` passes every stored log; the standings' rows."""
    tiers.require("sandbox", "--sandbox on")
    result = cli.invoke("run", folder, "--game", game, "--games", "1", "--players", players, "--jobs", "0",
                        "--sandbox", "on", "--db", db, "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["standings"]
    assert not any(row.get("forfeits") for row in rows), rows
    verified = cli.invoke("replay", "verify", "--db", db, "--quiet")
    assert verified.exit_code == 0 and "all passed" in verified.output, verified.output
    return rows


def on_terminal(argv: list[str], timeout: float = 240, **popen) -> tuple[int, bytes]:
    """Run ``argv`` with its stdin, stdout and stderr on a new pseudo-terminal (a session of its own, so
    the terminal is its controlling one); its exit status and every byte it wrote there."""
    controller, child = pty.openpty()
    process = subprocess.Popen(argv, stdin=child, stdout=child, stderr=child, start_new_session=True, **popen)
    os.close(child)
    shown = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if select.select([controller], [], [], 0.2)[0]:
                try:
                    chunk = os.read(controller, 65536)
                except OSError:  # the terminal's last writer closed it
                    break
                if not chunk:
                    break
                shown += chunk
            elif process.poll() is not None:
                break
        return process.wait(timeout=30), shown
    finally:
        if process.poll() is None:
            process.kill()
        os.close(controller)
