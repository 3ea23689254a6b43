"""Bots whose failure text is a megabyte long, played by a real `tourney run` process in the sandbox: the
reason stored in each game's seat_forfeited event is at most 1 KiB, cut with a marker, and the run goes on."""

from __future__ import annotations

import json
import os
import shutil
import sys

import pytest

from engines.driver import MAX_REASON_BYTES
from tests import cli
from tests.tournaments.play.test_protocol import GAME, SHIPPED, stored_games

pytestmark = pytest.mark.sandbox

HUGE_ACTION = '''"""Answers its first act with a megabyte of action: not legal, about as long as a protocol line
may be."""

GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        pass

    def act(self, turn):
        return "x" * 1_000_000
'''

LONG_DECLINE = '''"""Shakes hands at seat 0 (as tourney's first check does), then declines every other seat's
game with a megabyte of reason; plays the first legal action where it played."""
import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        answer = {"type": "ready"} if message["seat"] == 0 else {"type": "decline", "reason": "y" * 1_000_000}
    elif message["type"] == "act":
        answer = {"type": "action", "action": message["legal"][0]}
    else:
        break
    sys.stdout.write(json.dumps(answer) + "\\n")
    sys.stdout.flush()
'''


def test_a_megabyte_of_failure_is_stored_as_1_kib(tmp_path):
    """Attack: a bot answers a ~1 MB illegal action, which was stored whole in its forfeit reason (the engine's
    message quotes the action), and another declines its game with a ~1 MB reason. Each forfeits; each reason
    is stored cut to at most 1 KiB with a marker giving its full length; the other games are played."""
    folder = tmp_path / "bots"
    folder.mkdir()
    shutil.copy(SHIPPED / "random_bot.py", folder / "random_bot.py")
    (folder / "huge_action.py").write_text(HUGE_ACTION)
    (folder / "_long_decline.py").write_text(LONG_DECLINE)
    (folder / "long_decline.bot.json").write_text(json.dumps({"command": [sys.executable, "-I", "_long_decline.py"]}))
    db = tmp_path / "t.db"
    done = cli.tourney("run", str(folder), "--game", GAME, "--games", "1",
                       "--jobs", "0", "--sandbox", "on", "--db", str(db), timeout=180, cwd=tmp_path,
                       env={**os.environ, "COLUMNS": "500"})
    assert done.returncode == 0, done.stderr
    forfeits = {game.bots[game.forfeit["seat"]]: game.forfeit["reason"]
                for game in stored_games(db).values() if game.forfeit is not None}
    assert set(forfeits) == {"huge_action", "long_decline"}
    for reason in forfeits.values():
        assert len(reason.encode()) <= MAX_REASON_BYTES and reason.endswith(" bytes in all]"), reason[-80:]
    assert forfeits["huge_action"].startswith("illegal action: ") and "x" * 500 in forfeits["huge_action"]
    assert forfeits["long_decline"].startswith("bot failure: declined: " + "y" * 500)
    assert " ... [cut: 1000023 bytes in all]" in forfeits["long_decline"]


def test_a_long_decline_at_the_first_handshake_is_shown_cut(tmp_path):
    """Attack: a bot declines tourney's first handshake (before any game) with a ~1 MB reason, which the run
    shows as the notice leaving it out: the notice is cut to the length of a stored reason, with the marker."""
    folder = tmp_path / "bots"
    folder.mkdir()
    shutil.copy(SHIPPED / "random_bot.py", folder / "random_bot.py")
    shutil.copy(SHIPPED / "random_bot.py", folder / "random_b.py")
    (folder / "_decline.py").write_text(
        "import json, sys\nfor line in sys.stdin:\n"
        "    print(json.dumps({'type': 'decline', 'reason': 'z' * 1_000_000}), flush=True)\n")
    (folder / "decliner.bot.json").write_text(json.dumps({"command": [sys.executable, "-I", "_decline.py"]}))
    done = cli.tourney("run", str(folder), "--game", GAME,
                       "--games", "1", "--jobs", "1", "--db", str(tmp_path / "t.db"), timeout=240, cwd=tmp_path,
                       env={**os.environ, "COLUMNS": "100000"})
    assert done.returncode == 0, done.stderr[-2000:]
    notice = next(line for line in done.stderr.splitlines() if line.startswith("left out decliner: declined: z"))
    assert len(notice.encode()) <= MAX_REASON_BYTES and notice.endswith("bytes in all]"), notice[-100:]
