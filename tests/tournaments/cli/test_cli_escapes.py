"""Nothing a bot or a submitter wrote drives the organiser's terminal: control characters are shown escaped.

The attacks (issue 29, item 4): a manifest whose ``name`` holds escape sequences, a program bot
that declines with them as its reason, a Python bot whose exception message carries them. The
sequences are ones Rich never writes itself: clear the screen (``ESC[2J``), write the clipboard
(OSC 52), set the window title (OSC 0), and a C1 CSI (U+009B). Every command runs as a real
`tourney` process, on a pseudo-terminal (where Rich writes its own colours) and piped.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import cli
from tests.runs import on_terminal
from tests.tournaments.play.test_protocol import SHIPPED
from tournaments.cli.escapes import printable

pytestmark = pytest.mark.sandbox

HOSTILE = "\x1b[2J\x1b]52;c;SGFja2Vk\x07\x1b]0;owned\x07\u009b31m\r"
"""What the bots write: clear screen, clipboard, title, C1 CSI, a carriage return."""
RAW = [b"\x1b[2J", b"\x1b]52;", b"\x1b]0;", "\u009b".encode(), b"\r"]
"""Byte sequences of HOSTILE none of which may reach the terminal."""
SHOWN = "\\u001b[2J\\u001b]52;c;SGFja2Vk\\u0007\\u001b]0;owned\\u0007\\u009b31m\\u000d"


def hostile_folder(tmp_path: Path) -> Path:
    """A good bot and three hostile ones: a manifest name, a decline reason, an exception message."""
    folder = tmp_path / "bots"
    folder.mkdir()
    (folder / "random_bot.py").write_bytes((SHIPPED / "random_bot.py").read_bytes())
    (folder / "_named.py").write_bytes((SHIPPED / "random_bot.py").read_bytes())
    (folder / "named.bot.json").write_text(json.dumps({
        "name": f"evil{HOSTILE}name", "command": [sys.executable, "-I", "-m", "tournaments.bots.pyhost", "_named.py"]}))
    (folder / "_decliner.py").write_text(
        "import sys, json\n"
        "for line in sys.stdin:\n"
        f"    print(json.dumps({{'type': 'decline', 'reason': {HOSTILE!r}}}), flush=True)\n")
    (folder / "decliner.bot.json").write_text(json.dumps({"command": [sys.executable, "-I", "_decliner.py"]}))
    (folder / "raiser.py").write_text(
        'GAMES = "*"\n\n\nclass Bot:\n    def __init__(self, game, seat, rng):\n        pass\n\n'
        f"    def act(self, turn):\n        raise RuntimeError({HOSTILE!r})\n")
    return folder


def tourney(*args: str, cwd: Path, terminal: bool) -> tuple[int, bytes]:
    """Run `tourney ARGS` (the console script's entry point) with stdout and stderr on a pseudo-terminal
    or on a pipe; its exit status and every byte it wrote."""
    argv = [*cli.COMMAND, *args]
    if not terminal:
        done = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=240,
                              env={**os.environ, "COLUMNS": "1000"})
        return done.returncode, done.stdout
    return on_terminal(argv, cwd=cwd, env={**os.environ, "COLUMNS": "1000"})


def assert_escaped(shown: bytes) -> None:
    for raw in RAW[:-1]:
        assert raw not in shown, (raw, shown)
    assert SHOWN.encode() in shown


@pytest.fixture(scope="module")
def league(tmp_path_factory) -> Path:
    """A tournament of the hostile folder, played once (sandboxed), for every command below to show."""
    tmp_path = tmp_path_factory.mktemp("escapes")
    code, shown = tourney("run", str(hostile_folder(tmp_path)), "--game", "lemur-tails", "--games", "1",
                          "--jobs", "1", "--sandbox", "on", "--name", "evil", "--db", "t.db", cwd=tmp_path,
                          terminal=False)
    assert code == 0, shown
    return tmp_path


@pytest.mark.parametrize("terminal", [True, False], ids=["terminal", "piped"])
def test_a_decline_reason_and_a_manifest_name_are_shown_escaped_by_tourney_run(tmp_path, terminal):
    """`tourney run` prints the decliner's "left out" notice and the hostile name in its standings with
    every control character escaped; piped, no control character but the line feed is written at all."""
    code, shown = tourney("run", str(hostile_folder(tmp_path)), "--game", "lemur-tails", "--games", "1",
                          "--jobs", "1", "--sandbox", "on", "--db", "t.db", cwd=tmp_path, terminal=terminal)
    assert code == 0, shown
    assert_escaped(shown)
    assert b"left out decliner: declined: " + SHOWN.encode() in shown
    if not terminal:
        assert not {byte for byte in shown if byte < 0x20 and byte not in b"\n\t"}, shown


@pytest.mark.parametrize("terminal", [True, False], ids=["terminal", "piped"])
@pytest.mark.parametrize("command", [
    ("games", "evil"), ("standings", "evil"), ("replay", "show"),
], ids=["games", "standings", "replay-show"])
def test_stored_bot_text_is_shown_escaped_by_every_command(league, command, terminal):
    """The stored tournament holds the bots' text unchanged; `games` (the exception as a forfeit reason),
    `standings` and `replay show` show it escaped."""
    if command[0] == "replay":
        games = subprocess.run([*cli.COMMAND, "games", "evil", "--json", "--db", "t.db"],
                               cwd=league, capture_output=True, check=True, timeout=60)
        raiser = next(g for g in json.loads(games.stdout) if any(s["bot"] == "raiser" for s in g["seats"]))
        command = ("replay", "show", raiser["game_id"])
    code, shown = tourney(*command, "--db", "t.db", cwd=league, terminal=terminal)
    assert code == 0, shown
    for raw in RAW[:-1]:
        assert raw not in shown, (raw, shown)
    assert b"\\u001b[2J" in shown or b"\\u001b]52" in shown, shown


def test_json_output_keeps_the_bots_text_exactly(league):
    """`--json` output, escaped on its way out, still parses to the exact text the bot wrote (the escapes are
    JSON's own)."""
    code, shown = tourney("games", "evil", "--json", "--db", "t.db", cwd=league, terminal=False)
    assert code == 0
    games = json.loads(shown)
    reasons = [game["forfeit"]["reason"] for game in games if game.get("forfeit")]
    assert any(reason.endswith(f"RuntimeError: {HOSTILE}") for reason in reasons), reasons
    assert f"evil{HOSTILE}name" in {seat["bot"] for game in games for seat in game["seats"]}
    assert b"\x1b" not in shown and "\u009b".encode() not in shown


def test_an_error_line_shows_a_hostile_path_escaped(tmp_path):
    """An error about a file whose name holds escape sequences (a bots folder that is not one) is one
    escaped line, also on stderr."""
    code, shown = tourney("run", f"no{HOSTILE}such", "--game", "lemur-tails", "--db", "t.db", cwd=tmp_path,
                          terminal=False)
    assert code != 0 and shown.startswith(b"error: no\\u001b")
    for raw in RAW:
        assert raw not in shown, (raw, shown)


def test_printable_escapes_each_control_class_and_keeps_text():
    """C0 (but tab and line feed), DEL, C1, the bidirectional overrides and the line and paragraph separators are
    escaped; printable text, tabs, line feeds and non-Latin letters are kept."""
    assert printable("a\tb\nc") == "a\tb\nc"
    assert printable("\x00\x1b\x7f\x85\x9f") == "\\u0000\\u001b\\u007f\\u0085\\u009f"
    assert printable("abc\u202edcba") == "abc\\u202edcba"
    assert printable("one\u2028two\u2029three") == "one\\u2028two\\u2029three"
    assert printable("Ümläut ✓ 狐") == "Ümläut ✓ 狐"
