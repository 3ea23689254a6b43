"""Why a program bot was left out or timed out, in words its author can act on: a program that fails its handshake
is left out with the last line it wrote on stderr (as a ladder's refusal quotes it), which --bot-logs keeps whole in
the bot's handshake.log; a CPU-clock timeout says its allowance is the move time and what was left of the bank.
Real `tourney` processes, real sandboxes where the machine has them, real SQLite files."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests import cli
from tests.tournaments.play.test_protocol import GAME, SHIPPED, stored_games
from tournaments.sandbox import cgroups, sandbox

TIMEOUT = 300
HAS_SANDBOX = sandbox.unavailable() is None
SANDBOXED = pytest.param("on", marks=[pytest.mark.sandbox,
                                      pytest.mark.skipif(not HAS_SANDBOX, reason="no working sandbox here")])
SHCRASH = '#!/bin/sh\necho "bad usage: need --level" >&2\nprintf "and \\033[2J no more\\n" >&2\nexit 3\n'
STARTCRASH = "#!/usr/bin/env python3\nimport numpyy\n"
BURNER = '''"""Burns 2.5 s of CPU every move."""
import time

GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        self.rng = rng

    def act(self, turn):
        end = time.process_time() + 2.5
        while time.process_time() < end:
            pass
        return self.rng.choice(turn.legal)
'''
LEFT_OUT = {
    "shcrash": r"left out shcrash: crashed: exited with code 3 before (reading its input|answering); last on its "
               r"stderr: and \\u001b\[2J no more",
    "startcrash": r"left out startcrash: crashed: exited with code 1 before (reading its input|answering); last on "
                  r"its stderr: ModuleNotFoundError: No module named 'numpyy'",
}


def folder_of(tmp_path: Path, **bots: str) -> Path:
    """random_bot and the heuristic bot, which play, and ``bots`` (executable but for .py files)."""
    folder = tmp_path / "bots"
    folder.mkdir()
    for shipped in ("random_bot.py", "heuristic_lemur_tails.py"):
        shutil.copy(SHIPPED / shipped, folder / shipped)
    for name, text in bots.items():
        (folder / name).write_text(text)
        if not name.endswith(".py"):
            (folder / name).chmod(0o755)
    return folder


def run(tmp_path: Path, folder: Path, *extra: str) -> subprocess.CompletedProcess:
    done = cli.tourney("run", folder, "--game", GAME, "--games", "1", "--seed", "9", "--db", "t.db", *extra,
                       timeout=TIMEOUT, cwd=tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    return done


@pytest.mark.parametrize("mode", [SANDBOXED, "off"])
def test_a_program_left_out_at_its_handshake_is_told_by_the_last_line_of_its_stderr(tmp_path, mode):
    """A shell bot that exits at once and a Python script that fails to import are left out with their exit and the
    last line each wrote on stderr (escaped), in the sandbox or not; the others play."""
    folder = folder_of(tmp_path, shcrash=SHCRASH, startcrash=STARTCRASH)
    done = run(tmp_path, folder, "--sandbox", mode)
    said = [line for line in done.stderr.splitlines() if line.startswith("left out ")]
    assert len(said) == 2 and all(re.fullmatch(LEFT_OUT[line.split()[2][:-1]], line) for line in said), done.stderr
    assert "\x1b" not in done.stderr
    assert {bot for game in stored_games(tmp_path / "t.db").values() for bot in game.bots} == {
        "heuristic_lemur_tails", "random_bot"}


@pytest.mark.sandbox
@pytest.mark.skipif(not HAS_SANDBOX, reason="no working sandbox here")
def test_a_manifest_whose_command_does_not_name_its_program_is_left_out_with_the_programs_own_error(tmp_path):
    """The trap docs/bot-protocol.md warns of: a manifest whose command runs a file through `sh -c`, so that the
    file is not among the bot's, is left out in its sandbox with the interpreter's own words for what is missing."""
    folder = folder_of(tmp_path)
    (folder / "sub").mkdir()
    shutil.copy(SHIPPED / "programs" / "random_player.py", folder / "sub" / "player.py")
    (folder / "trap.bot.json").write_text(json.dumps({"name": "trap", "command": ["sh", "-c", "python3 sub/player.py"],
                                                      "games": ["*"]}))
    done = run(tmp_path, folder, "--sandbox", "on")
    assert re.search(r"^left out trap: crashed: exited with code 2 before (reading its input|answering); last on its "
                     r"stderr: python3: can't open file '/bot/sub/player\.py': \[Errno 2\] No such file or directory$",
                     done.stderr, re.MULTILINE), done.stderr


@pytest.mark.parametrize("mode", [SANDBOXED, "off"])
def test_bot_logs_keep_what_a_bot_left_out_at_its_handshake_wrote_in_its_handshake_log(tmp_path, mode):
    """With --bot-logs, each bot left out at its handshake has all it wrote on stderr in <bot>/handshake.log (a
    traceback whole, where the left-out line quotes its last line); the bots that are ready get none."""
    folder = folder_of(tmp_path, shcrash=SHCRASH, startcrash=STARTCRASH)
    logs = tmp_path / "logs"
    run(tmp_path, folder, "--sandbox", mode, "--bot-logs", "logs")
    assert sorted(str(path.relative_to(logs)) for path in logs.rglob("handshake.log")) == [
        "shcrash/handshake.log", "startcrash/handshake.log"]
    assert (logs / "shcrash" / "handshake.log").read_bytes() == b"bad usage: need --level\nand \x1b[2J no more\n"
    traceback = (logs / "startcrash" / "handshake.log").read_text()
    assert traceback.startswith("Traceback (most recent call last):\n") and "    import numpyy\n" in traceback
    assert traceback.endswith("ModuleNotFoundError: No module named 'numpyy'\n")


@pytest.mark.sandbox
@pytest.mark.skipif(not HAS_SANDBOX or cgroups.unavailable() is not None, reason="no sandbox with cgroups here")
def test_a_cpu_clock_timeout_says_its_allowance_is_the_move_time_and_what_was_left_of_the_bank(tmp_path):
    """A bot burning 2.5 s of CPU a move under the CPU clock, --move-time 0.3 and a 0.1 s bank, forfeits for using
    its 0.40 s, which the reason says is its move time and what was left of its bank (or, on a machine too busy to
    give it a third of a core, for passing three times that in wall-clock time, said the same way)."""
    folder = folder_of(tmp_path, **{"burner.py": BURNER})
    run(tmp_path, folder, "--sandbox", "on", "--clock", "cpu", "--move-time", "0.3", "--time-bank", "0.1")
    allowance = r"0\.40 s allowed{}move time 0\.3 s and 0\.10 s left of its time bank"
    reason = (r"bot failure: timed out: (used \d\.\d\d s of CPU without answering, with " + allowance.format(r" \(")
              + r"\)|no answer within 1\.20 s of wall-clock time \(the CPU clock charges 1/3 of the wall-clock time "
              r"when that is more than the CPU time; " + allowance.format(": ") + r"\))")
    forfeits = [game.forfeit for game in stored_games(tmp_path / "t.db").values() if "burner" in game.bots]
    assert len(forfeits) == 4
    assert all(re.fullmatch(reason, forfeit["reason"]) for forfeit in forfeits), forfeits
