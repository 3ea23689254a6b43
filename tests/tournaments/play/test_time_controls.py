"""Time controls (issue 40, item 4): `--tc BASE+INC`, a game clock with an increment as fastchess means it,
beside --move-time and --time-bank. The clock's arithmetic, the option's words, and real runs: a bot that
sleeps longer than its increment runs its clock out and forfeits naming it; one that stays within keeps
playing; a program bot is told the clock in hello and in every act."""

from __future__ import annotations

import json
import shutil

import pytest
import typer

from engines.driver import BotFailure
from tests.tournaments.play.test_protocol import GAME, stored_games
from tests.tournaments.test_diagnoses import folder_of, tourney
from tournaments.bots.spec import Limits
from tournaments.cli.options import parse_tc

SLEEPER = '''import time
GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        self.rng = rng

    def act(self, turn):
        time.sleep(SECONDS)
        return self.rng.choice(turn.legal)
'''
TELLER = '''#!/usr/bin/env python3
"""Writes each message it gets on stderr (kept with --bot-logs) and plays the first legal action."""
import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    print(json.dumps({key: value for key, value in message.items() if key not in ("view", "events", "legal")}),
          file=sys.stderr, flush=True)
    if message["type"] == "hello":
        print('{"type": "ready"}', flush=True)
    elif message["type"] == "act":
        print(json.dumps({"type": "action", "action": message["legal"][0]}), flush=True)
    else:
        break
'''


def test_a_game_clock_takes_each_move_and_adds_the_increment():
    """BASE 1 s + 0.1 s: a move may take all that is left; 0.3 s leaves 0.8 s, 0.05 s then 0.85 s; a move over
    what is left forfeits, naming the clock; each act request says the clock, its increment, and a deadline
    and bank that add up to it."""
    limits = Limits.game_clock(1.0, 0.1)
    assert (limits.tc, limits.allowed, limits.move_time) == ("1+0.1", 1.0, 0.1)
    assert limits.request() == {"deadline_ms": 100, "time_bank_ms": 900, "clock_ms": 1000, "increment_ms": 100}
    limits.charge(0.3)
    assert limits.allowed == pytest.approx(0.8)
    limits.charge(0.05)
    assert limits.allowed == pytest.approx(0.85)
    assert limits.request()["clock_ms"] == 850
    with pytest.raises(BotFailure, match=r"^timed out: took 0\.90 s, more than the 0\.85 s left on its game clock "
                                         r"\(--tc 1\+0\.1\)$"):
        limits.charge(0.9)


def test_move_time_and_bank_are_unchanged_beside_it():
    """Without --tc: move time, then the bank, as before; no clock fields in the requests."""
    limits = Limits(1.0, 2.0)
    assert limits.tc is None and limits.told() == ""
    assert limits.request() == {"deadline_ms": 1000, "time_bank_ms": 2000}
    limits.charge(2.5)
    assert limits.allowed == pytest.approx(1.5)
    with pytest.raises(BotFailure, match=r"^timed out: took 3\.00 s with move time 1 s and the time bank spent$"):
        limits.charge(3.0)


@pytest.mark.parametrize(("text", "seconds"), [("10+0.1", (10.0, 0.1)), ("60", (60.0, 0.0)), ("0.5+0", (0.5, 0.0))])
def test_tc_reads_as_fastchess_writes_it(text, seconds):
    """`--tc` takes BASE+INC or BASE, in seconds."""
    assert parse_tc(text) == seconds


@pytest.mark.parametrize(("text", "said"), [
    ("40/60+0.6", "moves per period"), ("ten", "is not a time control"), ("0+1", "more than 0"),
    ("10+-1", "0 or more"), ("nan", "more than 0"),
])
def test_tc_refuses_what_it_cannot_mean(text, said):
    """Moves per period, words, a clock of 0 and a negative increment are refused in one line."""
    with pytest.raises(typer.BadParameter, match=said):
        parse_tc(text)


@pytest.mark.parametrize("sandbox", [pytest.param("on", marks=pytest.mark.sandbox), "off"])
def test_a_bot_sleeping_past_its_increment_runs_its_clock_out(tmp_path, sandbox):
    """`--tc 0.6+0.05`: a bot sleeping 0.15 s a move loses 0.1 s a move and forfeits within a handful of moves,
    `timed out: ... (all that was left on its game clock, --tc 0.6+0.05)`, whatever the CPU clock would have
    said of a sleeper (the game clock is wall-clock time); the random bot beside it never does."""
    if sandbox == "on" and shutil.which("bwrap") is None:
        pytest.skip("no bwrap here")
    folder = folder_of(tmp_path, **{"sleeper.py": SLEEPER.replace("SECONDS", "0.15")})
    done = tourney(tmp_path, "run", str(folder), "--game", GAME, "--games", "1", "--seed", "2", "--tc", "0.6+0.05",
                   "--sandbox", sandbox, "--jobs", "0", "--db", "t.db")
    assert done.returncode == 0, done.stderr
    games = stored_games(tmp_path / "t.db")
    assert len(games) == 2
    for game in games.values():
        assert game.bots[game.forfeit["seat"]] == "sleeper", game
        assert game.forfeit["reason"].startswith("bot failure: timed out: "), game.forfeit
        assert game.forfeit["reason"].endswith("on its game clock, --tc 0.6+0.05)"), game.forfeit
    spec = json.loads(tourney(tmp_path, "list", "--json", "--db", "t.db").stdout)["tournaments"][0]
    assert spec["games"] == 2


@pytest.mark.slow
def test_a_bot_within_its_increment_keeps_its_clock_and_is_told_it(tmp_path):
    """`--tc 1+0.2`: a bot sleeping 0.05 s a move gains 0.15 s a move and plays every game to its end; a program
    bot is told the clock in hello (`tc`: base and increment, ms) and, in every act, what is left of it
    (`clock_ms`, growing by the increment while it answers at once) with a deadline and bank adding up to it."""
    folder = folder_of(tmp_path, **{"sleeper.py": SLEEPER.replace("SECONDS", "0.05"), "teller": TELLER})
    done = tourney(tmp_path, "run", str(folder), "--game", GAME, "--games", "1", "--seed", "2", "--tc", "1+0.2",
                   "--sandbox", "off", "--jobs", "0", "--db", "t.db", "--bot-logs", "logs")
    assert done.returncode == 0, done.stderr
    games = stored_games(tmp_path / "t.db")
    assert len(games) == 6 and all(game.forfeit is None for game in games.values())
    for log in (tmp_path / "logs" / "teller").iterdir():
        told = [json.loads(line) for line in log.read_text().splitlines()]
        hello, acts = told[0], [message for message in told if message["type"] == "act"]
        assert hello["tc"] == {"base_ms": 1000, "increment_ms": 200}
        assert (hello["move_time_ms"], hello["time_bank_ms"]) == (200, 1000)
        assert acts and acts[0]["clock_ms"] == 1000 and acts[0]["increment_ms"] == 200
        assert all(act["deadline_ms"] + act["time_bank_ms"] == act["clock_ms"] for act in acts)
        assert acts[-1]["clock_ms"] > acts[0]["clock_ms"]  # it answers at once: the increment piles up


@pytest.mark.slow
def test_tc_is_kept_with_the_tournament_and_refused_beside_the_move_clock(tmp_path):
    """A tournament played with --tc keeps it in its spec: a resume with another --tc is refused naming it, one
    with the same plays nothing more; --tc with --move-time, or with --clock cpu, is a usage error."""
    folder = folder_of(tmp_path, **{"sleeper.py": SLEEPER.replace("SECONDS", "0")})
    base = ("run", str(folder), "--game", GAME, "--games", "1", "--seed", "2", "--sandbox", "off", "--jobs", "0",
            "--db", "t.db")
    assert tourney(tmp_path, *base, "--tc", "5+0.1").returncode == 0
    other = tourney(tmp_path, *base, "--tc", "6+0.1", "--resume")
    assert other.returncode == 1 and "its --tc (stored 5+0.1, given 6+0.1) differs" in other.stderr, other.stderr
    moved = tourney(tmp_path, *base, "--resume")
    assert moved.returncode == 1 and "its --tc (stored 5+0.1, given none) differs" in moved.stderr, moved.stderr
    same = tourney(tmp_path, *base, "--tc", "5+0.1", "--resume")
    assert same.returncode == 0 and "(2 already stored)" in same.stdout, same.stderr
    both = tourney(tmp_path, *base, "--tc", "5+0.1", "--move-time", "2", "--name", "x")
    assert both.returncode == 2 and "--tc is a game clock of its own: give it without --move-time" in both.stderr
    cpu = tourney(tmp_path, *base, "--tc", "5+0.1", "--clock", "cpu", "--name", "y")
    assert cpu.returncode == 2 and "--tc counts wall-clock time" in cpu.stderr
