"""What a submitter is told (docs/ladders.md, "What a submitter sees"): a resubmission of listed content is the
no-op before any game, a program bot's refusal quotes its stderr, and the sandbox's group tells when a bot hit
its process limit. Real `tourney` processes, real SQLite files, real sandboxes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from ledger.rows import ladder_rows, owner_rows, submission_rows
from ledger.store import Ledger
from tests import cli
from tests.tournaments.play.test_protocol import GAME
from tournaments.bots.spec import Resources
from tournaments.ladder import owner_tokens
from tournaments.ladder.worker import ALREADY_LISTED
from tournaments.sandbox import cgroups, sandbox

pytestmark = [pytest.mark.sandbox,
              pytest.mark.skipif(sandbox.unavailable() is not None, reason="ladders need a working sandbox")]

TIMEOUT = 300
HUNGRY = '''"""Holds 200 MiB from its first turn on, then plays at random."""
GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        self.rng = rng
        self.ballast = None

    def act(self, turn):
        if self.ballast is None:
            self.ballast = bytearray(200 * 1024 * 1024)
            for at in range(0, len(self.ballast), 4096):
                self.ballast[at] = 1
        return self.rng.choice(turn.legal)
'''
"""A bot that passes its validation under the default --memory-mb and is refused under 64."""


def tourney(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return cli.tourney(*args, timeout=TIMEOUT, cwd=cwd, env={**os.environ, "XDG_CACHE_HOME": str(cwd / "cache")})


@pytest.fixture
def league(tmp_path) -> Path:
    """An SQLite league with an empty two-seat ladder, spring, and one owner, alice (id 1)."""
    created = tourney(tmp_path, "ladder", "create", "spring", "--game", GAME, "--db", "league.db")
    assert created.returncode == 0, created.stderr
    ledger = Ledger(str(tmp_path / "league.db"))
    try:
        owner_rows.add(ledger, "alice", owner_tokens.token_hash(owner_tokens.new_token()))
    finally:
        ledger.close()
    return tmp_path


def test_resubmitting_listed_content_is_the_no_op_even_under_limits_its_validation_would_fail(league):
    """The same file submitted again with a --memory-mb below what it holds is `already on spring with this
    content: nothing changed`, before any game: it is not validated again, so not refused while it stays listed."""
    bot = league / "hungry.py"
    bot.write_text(HUNGRY)
    first = tourney(league, "ladder", "submit", "spring", str(bot), "--db", "league.db")
    assert first.returncode == 0 and "listed hungry v1 on spring" in first.stdout, first.stdout + first.stderr
    again = tourney(league, "ladder", "submit", "spring", str(bot), "--memory-mb", "64", "--db", "league.db")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "hungry v1 is already on spring with this content: nothing changed" in again.stdout
    assert "validating" not in again.stdout
    other = tourney(league, "ladder", "submit", "spring", str(bot), "--as", "glutton", "--memory-mb", "64",
                    "--db", "league.db")  # the same content under another name is another bot: validated
    assert other.returncode == 1 and "glutton refused" in other.stderr and "--memory-mb" in other.stderr, other.stderr


def test_an_upload_of_listed_content_is_listed_already_whatever_the_workers_limits(league):
    """The web's path: the same upload queued twice, the second validated by a `ladder work` with a --memory-mb it
    would fail, is `listed` with `the same content was already listed`, never `refused`."""
    upload = HUNGRY.encode()
    ledger = Ledger(str(league / "league.db"))
    try:
        first = submission_rows.add(ledger, 1, 1, "hungry", "hungry.py", "hungry.py", upload)
    finally:
        ledger.close()
    worked = work(league)
    assert f"submission {first}: listed hungry v1 (owner alice)" in worked.stdout, worked.stdout + worked.stderr
    ledger = Ledger(str(league / "league.db"))
    try:
        second = submission_rows.add(ledger, 1, 1, "hungry", "hungry.py", "hungry.py", upload)
    finally:
        ledger.close()
    worked = work(league, "--memory-mb", "64")
    assert (f"submission {second}: hungry v1 (owner alice) was listed already with this content: no new version"
            in worked.stdout), worked.stdout + worked.stderr
    ledger = Ledger(str(league / "league.db"), read_only=True)
    try:
        decided = submission_rows.get(ledger, second)
        assert (decided["status"], decided["reason"]) == (submission_rows.LISTED, ALREADY_LISTED)
        assert [entry["version"] for entry in ladder_rows.entries(ledger, 1, active_only=False)] == [1]
    finally:
        ledger.close()


def work(league: Path, *extra: str) -> subprocess.CompletedProcess:
    """One round of a real `tourney ladder work` process (it must end well: exit 0, no traceback)."""
    done = tourney(league, "ladder", "work", "spring", "--rounds", "1", "--games", "1", "--jobs", "0", "--idle",
                   "0.1", "--db", "league.db", *extra)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    return done


def test_a_program_bots_refusal_quotes_the_last_line_of_its_stderr(league):
    """A manifest bot whose program writes why on stderr and exits before answering is refused with that line,
    escaped and on the one error line, as a Python bot's refusal names its file's line."""
    folder = league / "shy"
    folder.mkdir()
    script = folder / "run.sh"
    script.write_text("#!/bin/sh\necho 'starting up' >&2\nprintf 'no hand to play \\033[2J\\n' >&2\nexit 1\n")
    script.chmod(0o755)
    (folder / "shy.bot.json").write_text(json.dumps({"command": ["./run.sh"], "name": "shy"}))
    refused = tourney(league, "ladder", "submit", "spring", str(folder / "shy.bot.json"), "--db", "league.db")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    errors = [line for line in refused.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and errors[0].startswith(
        "error: shy refused: in its validation game it forfeited (bot failure: crashed: exited with code 1 before "
        "answering; last on its stderr: no hand to play "), refused.stderr
    assert "\x1b" not in refused.stderr and "starting up" not in refused.stderr


FORKER = """
import os, sys, time
children = []
try:
    for _ in range(32):
        pid = os.fork()
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        children.append(pid)
except BlockingIOError as error:
    print(f"refused after {len(children)}: {error}", file=sys.stderr)
"""


@pytest.mark.parametrize(("code", "hit"), [(FORKER, True), ("print('one process')", False)])
def test_the_group_tells_whether_a_bot_hit_its_process_limit(code, hit):
    """Attack: a sandboxed program forking 32 children under --max-processes 8. The fork that goes over is
    refused (EAGAIN, which a bot sees as its own crash), and the sandbox's group says the limit was hit, as it
    says a bot ran out of memory; a program that never forks did not hit it."""
    if cgroups.hierarchy() is None:
        pytest.skip(f"no cgroups here: {cgroups.unavailable()}")
    files = tempfile.mkdtemp(prefix="tourney-cgroup-test-")
    os.chmod(files, 0o755)
    process = sandbox.start([sys.executable, "-I", "-c", code], files, Resources(max_processes=8), subprocess.PIPE)
    try:
        _, said = process.communicate(timeout=60)
        assert process.box is not None and process.box.max_processes == 8
        assert process.box.out_of_processes() is hit, said.decode(errors="replace")
        assert ("refused after" in said.decode()) is hit
    finally:
        process.end()
        process.release()
        os.rmdir(files)
