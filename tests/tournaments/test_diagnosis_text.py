"""What a bot wrote, as tourney shows it back: a multi-line exception summed up by its type and first line, a
`Finished game` line kept whole, a flooded stderr log marked where it was cut, a garbage answer quoted as text.
Real `tourney` runs of real bots, real SQLite files."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests import cli
from tests.tournaments.play.test_protocol import GAME, SHIPPED
from tests.tournaments.test_diagnoses import SANDBOXED
from tournaments.sandbox import sandbox

TIMEOUT = 300
HAS_SANDBOX = sandbox.unavailable() is None
RAISES = '''GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        pass

    def act(self, turn):
        raise {error}
'''
CHAINED = '''GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        pass

    def act(self, turn):
        try:
            return {}["hand"]
        except KeyError as cause:
            error = ValueError("bad hand: W7\\nexpected one of W1, W2")
            error.add_note("seen at turn 1")
            raise error from cause
'''
FLOOD = '''#!/bin/sh
# Shakes hands, writes 20 MiB on stderr and a last line, and exits without answering.
read hello
printf '{"type": "ready"}\\n'
read act
yes 'DEBUG: thinking' | head -c 20971520 >&2
echo "the end" >&2
exit 3
'''
GARBAGE = "DEBUG: my legal moves are \x1b[31m" + "W1 " * 40
CHATTY = f'''#!/bin/sh
# Shakes hands, then answers its first request with a long debug line.
read hello
printf '{{"type": "ready"}}\\n'
read act
printf '{GARBAGE.replace(chr(27), chr(92) + "033")}\\n'
read more
'''


def tourney(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return cli.tourney(*args, timeout=TIMEOUT, cwd=cwd)


def played(tmp_path: Path, bot: str, text: str, *extra: str) -> subprocess.CompletedProcess:
    """`tourney run` of random_bot and ``bot`` (a program unless it ends in .py), its output piped."""
    folder = tmp_path / "bots"
    folder.mkdir()
    shutil.copy(SHIPPED / "random_bot.py", folder / "random_bot.py")
    (folder / bot).write_text(text)
    if not bot.endswith(".py"):
        (folder / bot).chmod(0o755)
    done = tourney(tmp_path, "run", str(folder), "--game", GAME, "--games", "1", "--seed", "4", "--db", "t.db", *extra)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    return done


def forfeits(tmp_path: Path) -> list[dict]:
    listed = tourney(tmp_path, "games", "--forfeits", "--json", "--db", "t.db")
    assert listed.returncode == 0, listed.stderr
    found = [game["forfeit"] | {"key": game["key"]} for game in json.loads(listed.stdout)]
    assert len(found) == 2
    return found


@pytest.mark.slow
@pytest.mark.parametrize("where", [SANDBOXED, pytest.param(("--sandbox", "off", "--jobs", "0"), id="in-process")])
def test_a_multi_line_exception_is_summed_up_by_its_type_and_first_line(tmp_path, where):
    """A bot raising ValueError("bad hand: W7\\nexpected one of W1, W2") with a note, from a KeyError, is summed up
    as `ValueError: bad hand: W7 (and 2 more lines) at crashy.py line 14, in act`, not by its note; its detail
    keeps every line, the note and the KeyError it came from."""
    played(tmp_path, "crashy.py", CHAINED, *where)
    for forfeit in forfeits(tmp_path):
        told = forfeit["diagnosis"]
        assert told["summary"] == "ValueError: bad hand: W7 (and 2 more lines) at crashy.py line 14, in act", told
        for kept in ("KeyError: 'hand'", "direct cause", "expected one of W1, W2\nseen at turn 1"):
            assert kept in told["detail"], told["detail"]


@pytest.mark.slow
@pytest.mark.parametrize("where", [SANDBOXED, pytest.param(("--sandbox", "off", "--jobs", "0"), id="in-process")])
def test_a_signature_that_takes_other_arguments_is_placed_at_its_def_line(tmp_path, where):
    """`def act(self)` (the protocol passes the turn): its TypeError, raised by tourney's call before any line of the
    bot ran, has no frame of the bot's, and is placed at the def's line, in the bot's file; so is a Bot.__init__
    that takes no rng, which leaves its bot out at the handshake."""
    played(tmp_path, "crashy.py", RAISES.format(error="ValueError").replace("def act(self, turn):", "def act(self):"),
           *where)
    for forfeit in forfeits(tmp_path):
        assert forfeit["diagnosis"]["summary"] == (
            "TypeError: Bot.act() takes 1 positional argument but 2 were given at crashy.py line 8, in act"), forfeit
    (tmp_path / "bots" / "crashy.py").write_text(RAISES.format(error="ValueError").replace(
        "def __init__(self, game, seat, rng):", "def __init__(self, game, seat):"))
    done = tourney(tmp_path, "run", "bots", "--game", GAME, "--games", "1", "--db", "u.db", *where)
    assert done.returncode == 1 and done.stderr.rstrip().endswith(
        "(left out crashy: crashed while starting: TypeError: Bot.__init__() takes 3 positional arguments but 4 were "
        "given at crashy.py line 5, in __init__)"), done.stderr


@pytest.mark.slow
def test_a_line_break_in_a_bots_exception_keeps_each_finished_game_on_one_line(tmp_path):
    """A bot whose exception message holds a line feed and a line separator gets one `Finished game ...` line per
    game in a pipe, each ending with its closing brace, the breaks shown escaped as `\\u000a` and `\\u2028`."""
    done = played(tmp_path, "crashy.py", RAISES.format(error='ValueError("first\\nsecond\\u2028third")'),
                  "--sandbox", "off", "--jobs", "0")
    finished = [line for line in done.stdout.splitlines() if line.startswith("Finished game ")]
    assert len(finished) == 2 and all(line.endswith("}") for line in finished), done.stdout
    assert all("crashed: ValueError: first\\u000asecond\\u2028third}" in line for line in finished), done.stdout


@pytest.mark.slow
def test_a_flooded_stderr_log_says_how_much_of_it_was_cut(tmp_path):
    """A program writing 20 MiB and a last line on stderr has the last 64 KiB in its --bot-logs file, after a line
    `[… N bytes cut …]` counting the bytes before them."""
    played(tmp_path, "flood", FLOOD, "--sandbox", "off", "--bot-logs", "logs", "--move-time", "60")
    wrote = 20 * 1024 * 1024 + len(b"the end\n")
    for forfeit in forfeits(tmp_path):
        log = (tmp_path / "logs" / "flood" / f"{forfeit['key']}-seat{forfeit['seat']}.log").read_bytes()
        marker, _, kept = log.partition(b"\n")
        assert marker.decode() == f"[… {wrote - 64 * 1024} bytes cut …]", log[:200]
        assert len(kept) == 64 * 1024 and kept.endswith(b"DEBUG: thinking\nthe end\n")


@pytest.mark.slow
def test_a_garbage_answer_is_quoted_as_escaped_text_with_a_cut_marker(tmp_path):
    """A program answering a long debug line (an ESC in it) forfeits `answered garbage: "DEBUG: ..." [… N characters
    cut …] is not JSON`: its first 60 characters as JSON text, the ESC escaped, and how many more there were."""
    played(tmp_path, "chatty", CHATTY, "--sandbox", "off")
    shown = GARBAGE[:60].replace("\x1b", "\\u001b")
    for forfeit in forfeits(tmp_path):
        assert forfeit["reason"] == (f'bot failure: answered garbage: "{shown}" [… {len(GARBAGE) - 60} characters cut '
                                     '…] is not JSON (its stdout is for its answers, a JSON line each: anything '
                                     'else goes to stderr)'), forfeit


FORKS = '''import os
import time

GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        pass

    def act(self, turn):
        for _ in range(32):  # past --max-processes 8: a fork is refused (EAGAIN), the bot's own crash
            if os.fork() == 0:
                time.sleep(30)
                os._exit(0)
        return turn.legal[0]
'''


@pytest.mark.slow
@pytest.mark.sandbox
@pytest.mark.skipif(not HAS_SANDBOX, reason="no working sandbox here")
def test_a_bot_that_forks_past_its_process_limit_is_told_the_limit_it_reached(tmp_path):
    """A Python bot forking 32 children under --max-processes 8 crashed with `BlockingIOError: [Errno 11] Resource
    temporarily unavailable` and no word of the limit, where running out of memory names --memory-mb: its reason
    names the limit its sandbox's group refused the fork at."""
    played(tmp_path, "forker.py", FORKS, "--sandbox", "on", "--jobs", "1", "--max-processes", "8")
    for forfeit in forfeits(tmp_path):  # the forker's, in each of the deal's two games
        assert "BlockingIOError" in forfeit["reason"], forfeit
        assert forfeit["reason"].endswith("(a fork refused: its processes reached 8, its --max-processes)"), forfeit
