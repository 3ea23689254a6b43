"""Python bots in process in a worker (--sandbox off, --jobs 2) are held and reported as in pyhost (--jobs 0): the
same memory limit, the same forfeit reasons, a log under --bot-logs and where a bot was stuck when its time ran out.
Real `tourney` processes, real SQLite files."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests import cli
from tests.tournaments.play.test_protocol import GAME, SHIPPED

TIMEOUT = 300
WHERE = [pytest.param(("--jobs", "0"), id="in-pyhost"), pytest.param(("--jobs", "2"), id="in-a-worker")]
GREEDY = '''GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        pass

    def act(self, turn):
        self.ballast = bytearray(1536 * 1024 * 1024)
        return turn.legal[0]
'''
BARE = GREEDY.replace("self.ballast = bytearray(1536 * 1024 * 1024)", "raise ValueError()")
STUCK = GREEDY.replace("self.ballast = bytearray(1536 * 1024 * 1024)", "while True:\n            pass")


def tourney(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return cli.tourney(*args, timeout=TIMEOUT, cwd=cwd)


def played(tmp_path: Path, bot: str, *extra: str) -> list[dict]:
    """`tourney run` (--sandbox off) of random_bot and ``bot`` (as failing.py), two games; their forfeits as
    `tourney games --forfeits --json` lists them."""
    folder = tmp_path / "bots"
    folder.mkdir()
    shutil.copy(SHIPPED / "random_bot.py", folder / "random_bot.py")
    (folder / "failing.py").write_text(bot)
    done = tourney(tmp_path, "run", str(folder), "--game", GAME, "--games", "1", "--seed", "4", "--db", "t.db",
                   "--sandbox", "off", *extra)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    listed = tourney(tmp_path, "games", "--forfeits", "--json", "--db", "t.db")
    assert listed.returncode == 0, listed.stderr
    forfeits = [game["forfeit"] for game in json.loads(listed.stdout)]
    assert len(forfeits) == 2, forfeits
    return forfeits


@pytest.mark.slow
@pytest.mark.parametrize("where", WHERE)
def test_a_python_bot_past_its_memory_limit_forfeits_alike_in_a_worker_and_in_pyhost(tmp_path, where):
    """A bot asking for 1.5 GiB under the default --memory-mb (1024) is refused it, in a worker as in pyhost's
    process, and forfeits in the same words."""
    for forfeit in played(tmp_path, GREEDY, *where):
        assert forfeit["reason"] == "bot failure: crashed: MemoryError", forfeit


TELLS_ITS_LIMIT = GREEDY.replace("self.ballast = bytearray(1536 * 1024 * 1024)", "import resource\n        "
                                 "raise RuntimeError(resource.getrlimit(resource.RLIMIT_AS)[0])")


@pytest.mark.slow
@pytest.mark.parametrize("where", WHERE)
def test_a_python_bot_is_held_to_the_runs_memory_mb_in_a_worker_as_in_pyhost(tmp_path, where):
    """The run's --memory-mb, not the default, is the address space a bot's code runs in, in a worker too (the
    worker's agent was given the default limits): the bot reads its own limit and raises it as its message."""
    for forfeit in played(tmp_path, TELLS_ITS_LIMIT, *where, "--memory-mb", "512"):
        assert forfeit["reason"] == f"bot failure: crashed: RuntimeError: {512 * 1024 * 1024}", forfeit


@pytest.mark.slow
@pytest.mark.parametrize("where", WHERE)
def test_an_exception_without_a_message_is_named_by_its_type_alone(tmp_path, where):
    for forfeit in played(tmp_path, BARE, *where):
        assert forfeit["reason"] == "bot failure: crashed: ValueError", forfeit


@pytest.mark.slow
def test_a_python_bot_that_crashes_in_a_worker_of_a_run_with_bot_logs_has_its_traceback_as_its_log(tmp_path):
    """Its prints went to the worker's stderr, but what tourney has of it, its traceback, is its log, and
    `tourney games --forfeits` points there instead of asking for the --bot-logs the run was given."""
    forfeits = played(tmp_path, BARE, "--jobs", "2", "--bot-logs", "logs")
    for forfeit in forfeits:
        log = Path(forfeit["diagnosis"]["log"])
        assert log.parent == tmp_path / "logs" / "failing", forfeit
        text = log.read_text()
        assert text.startswith("Traceback (most recent call last):\n") and text.rstrip().endswith("ValueError"), text
    listed = tourney(tmp_path, "games", "--forfeits", "--db", "t.db")
    assert "run with --bot-logs" not in listed.stdout and "(log: logs/failing/" in listed.stdout, listed.stdout


@pytest.mark.slow
def test_a_python_bot_out_of_time_in_a_worker_is_told_the_line_it_was_stuck_on(tmp_path):
    # The bank is random_bot's margin for a loaded machine's pause in its own move (a CI run saw 0.24 s of one with
    # 0.2 s allowed and no bank); the stuck bot spends it all before its alarm rings.
    for forfeit in played(tmp_path, STUCK, "--jobs", "2", "--move-time", "0.2", "--time-bank", "0.8"):
        assert forfeit["reason"].startswith("bot failure: timed out after "), forfeit
        told = forfeit["diagnosis"]
        assert told["kind"] == "traceback" and told["summary"] == "timed out at failing.py line 9, in act", told
        # the bot's frame last, tourney's alarm handler cut
        assert told["detail"].endswith("line 9, in act\n    while True:\n"
                                       "tournaments.bots.inprocess._Timeout: the move's time ran out here\n"), told


@pytest.mark.slow
def test_a_python_bot_in_a_worker_printing_after_tourneys_stderr_closed_does_not_forfeit(tmp_path):
    """`tourney run ... 2>&1 | head`: the reader of tourney's stderr goes away mid-game, and a bot's later prints in a
    worker fail to reach it; that is not the bot's failure: its games end without a forfeit."""
    folder = tmp_path / "bots"
    folder.mkdir()
    shutil.copy(SHIPPED / "random_bot.py", folder / "random_bot.py")
    (folder / "chatty.py").write_text(CHATTY.replace("GO", str(tmp_path / "go")))
    running = cli.spawn("run", folder, "--game", GAME, "--games", "1", "--seed", "4", "--db", "t.db", "--sandbox",
                        "off", "--jobs", "2", "--move-time", "60", cwd=tmp_path, stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE)
    said = b""
    for line in running.stderr:  # the bot's first print: it waits for "go"
        said += line
        if b"waiting" in line:
            break
    assert b"waiting" in said, said
    running.stderr.close()
    (tmp_path / "go").touch()
    out, _ = running.communicate(timeout=TIMEOUT)
    assert running.returncode == 0 and out.count(b"Finished game ") == 2, out
    listed = tourney(tmp_path, "games", "--forfeits", "--json", "--db", "t.db")
    assert listed.returncode == 0 and json.loads(listed.stdout) == [], listed.stdout


CHATTY = """import os
import sys
import time

GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        pass

    def act(self, turn):
        print("waiting", file=sys.stderr, flush=True)
        while not os.path.exists("GO"):
            time.sleep(0.01)
        print("thinking")
        print("still thinking", file=sys.stderr)
        return turn.legal[0]
"""
