"""Why a bot lost, in its own terms (issue 40, item 1): a crashing Python bot's traceback and a program's last
stderr lines, kept with its forfeit: in its --bot-logs file (by bot, then game key and seat), one line under
`tourney games --forfeits` with that file's path, and stored beside the game for its owner alone; bounded, and
shown escaped. Real `tourney` runs, real sandboxes where the machine has them, real SQLite files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ledger.rows import ladder_rows, owner_rows, submission_rows
from ledger.store import Ledger
from tests import cli
from tests.tournaments.play.test_protocol import GAME, SHIPPED, stored_games
from tournaments.bots import diagnosis
from tournaments.ladder import league, owner_tokens
from tournaments.sandbox import sandbox

TIMEOUT = 300
HAS_SANDBOX = sandbox.unavailable() is None
CRASHY = '''"""Crashes in a helper at its third turn, after printing."""
GAMES = "*"


def hand_of(view):
    return view["no such field"]


class Bot:
    def __init__(self, game, seat, rng):
        self.rng = rng
        self.turns = 0

    def act(self, turn):
        self.turns += 1
        print("turn", self.turns, flush=True)
        if self.turns == 3:
            hand_of(turn.view)
        return self.rng.choice(turn.legal)
'''
PROGRAM = '''#!/bin/sh
# Shakes hands, says why it gives up on stderr, and exits without answering.
read hello
printf '{"type": "ready"}\\n'
read act
echo "loading my opening book" >&2
echo "fatal: book.bin not found" >&2
exit 3
'''


def tourney(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return cli.tourney(*args, timeout=TIMEOUT, cwd=cwd)


def folder_of(tmp_path: Path, **bots: str) -> Path:
    folder = tmp_path / "bots"
    folder.mkdir()
    shutil.copy(SHIPPED / "random_bot.py", folder / "random_bot.py")
    for name, text in bots.items():
        path = folder / name
        path.write_text(text)
        if not name.endswith(".py"):
            path.chmod(0o755)
    return folder


def run(tmp_path: Path, folder: Path, *extra: str) -> subprocess.CompletedProcess:
    done = tourney(tmp_path, "run", str(folder), "--game", GAME, "--games", "1", "--seed", "4", "--db", "t.db",
                   "--bot-logs", "logs", *extra)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    return done


SANDBOXED = pytest.param(("--sandbox", "on", "--jobs", "1"), id="sandboxed", marks=[
    pytest.mark.sandbox, pytest.mark.skipif(not HAS_SANDBOX, reason="no working sandbox here")])
"""A run's options that play a Python bot in its sandbox, through pyhost."""


@pytest.mark.slow
@pytest.mark.parametrize("where", [SANDBOXED, pytest.param(("--sandbox", "off", "--jobs", "2"), id="in-a-worker")])
def test_a_crashing_python_bots_traceback_is_in_its_log_its_forfeit_line_and_the_json(tmp_path, where):
    """A Python bot raising KeyError in a helper at its third turn (in its sandbox through pyhost, or in process in
    a worker): the game's hashed forfeit says only `crashed: KeyError: ...`; its traceback, from the bot's own
    `act` frame to the helper's line and no frame of tourney's, is stored with the game, shown as one line
    under the forfeit by `tourney games --forfeits` with the path of the bot's log, and, in the sandbox, written
    in that log (logs/crashy/KEY-seatN.log, the old name logs/KEY-seatN.log still readable) after its prints."""
    folder = folder_of(tmp_path, **{"crashy.py": CRASHY})
    run(tmp_path, folder, *where)
    games = stored_games(tmp_path / "t.db")
    assert len(games) == 2
    listed = tourney(tmp_path, "games", "--forfeits", "--db", "t.db")
    assert listed.returncode == 0, listed.stderr
    as_json = json.loads(tourney(tmp_path, "games", "--forfeits", "--json", "--db", "t.db").stdout)
    assert len(as_json) == 2
    for game in as_json:
        forfeit = game["forfeit"]
        key, seat = game["key"], forfeit["seat"]
        assert forfeit["reason"] == "bot failure: crashed: KeyError: 'no such field'"
        told = forfeit["diagnosis"]
        assert told["kind"] == "traceback"
        assert told["summary"] == "KeyError: 'no such field' at crashy.py line 6, in hand_of"
        detail = told["detail"]
        assert detail.startswith("Traceback (most recent call last):\n  File ") and ", line 18, in act\n" in detail
        assert detail.rstrip().endswith("KeyError: 'no such field'")
        assert "tournaments" not in detail and "pyhost" not in detail and "inprocess" not in detail, detail
        log = tmp_path / "logs" / "crashy" / f"{key}-seat{seat}.log"
        line = f"{key} seat {seat} crashy: {told['summary']} (log: {log.relative_to(tmp_path)})"
        # In its sandbox and in a worker alike, its log holds its prints, then its traceback.
        assert told["log"] == str(log)
        text = log.read_text()
        assert text.startswith("turn 1\nturn 2\nturn 3\nTraceback (most recent call last):\n"), text
        assert text.rstrip().endswith("KeyError: 'no such field'")
        assert (tmp_path / "logs" / f"{key}-seat{seat}.log").read_text() == text  # the name it had before
        assert line in [row.strip() for row in listed.stdout.splitlines()], listed.stdout
    for game in games.values():  # the hashed events hold the public reason, never the traceback
        ledger = Ledger(str(tmp_path / "t.db"), read_only=True)
        try:
            assert not any(b"Traceback" in record.body or b"hand_of" in record.body
                           for record in ledger.records(game.game_id))
        finally:
            ledger.close()


@pytest.mark.sandbox
@pytest.mark.skipif(not HAS_SANDBOX, reason="no working sandbox here")
def test_a_program_bots_last_stderr_lines_are_its_diagnosis(tmp_path):
    """A program that writes two lines on stderr and exits without answering forfeits `crashed: exited with code
    3`; its diagnosis is its last stderr lines, summed up by the last one, beside its whole log's path."""
    folder = folder_of(tmp_path, **{"bookish": PROGRAM})
    run(tmp_path, folder, "--sandbox", "on", "--jobs", "1")
    as_json = json.loads(tourney(tmp_path, "games", "--forfeits", "--json", "--db", "t.db").stdout)
    assert len(as_json) == 2
    for game in as_json:
        told = game["forfeit"]["diagnosis"]
        assert game["forfeit"]["reason"] == "bot failure: crashed: exited with code 3 before answering"
        assert told["kind"] == "stderr" and told["summary"] == "last on its stderr: fatal: book.bin not found"
        assert told["detail"] == "loading my opening book\nfatal: book.bin not found"
        assert told["log"] == str(tmp_path / "logs" / "bookish" / f"{game['key']}-seat{game['forfeit']['seat']}.log")


def test_a_traceback_keeps_the_bots_frames_and_is_bounded(tmp_path):
    """Unit: of_exception cuts the frames before the bot file's first (the caller's) and keeps what the bot
    called; a summary is one line of at most SUMMARY_CHARS, a detail at most DETAIL_CHARS with its end kept."""
    bot = tmp_path / "deep.py"
    bot.write_text("def act(n, message):\n    if n == 0:\n        raise ValueError(message)\n"
                   "    return act(n - 1, message)\n")
    namespace: dict = {}
    exec(compile(bot.read_text(), str(bot), "exec"), namespace)
    for depth, message in ((2, "short"), (150, "x\n" * 20_000)):
        try:
            namespace["act"](depth, message)
        except ValueError as error:
            told = diagnosis.of_exception(error, str(bot))
        assert told.kind == diagnosis.TRACEBACK and "\n" not in told.summary
        assert len(told.summary) <= diagnosis.SUMMARY_CHARS and len(told.detail) <= diagnosis.DETAIL_CHARS
        assert told.summary.endswith("at deep.py line 3, in act") and told.where == "at deep.py line 3, in act"
        assert __file__ not in told.detail  # this test's frame, the caller's, is cut
        assert told.detail.startswith("Traceback (most recent call last):\n")
        assert told.detail.rstrip().endswith("x" if depth > 2 else "ValueError: short")
    assert "characters cut" in told.detail


@pytest.mark.slow
def test_a_diagnosis_is_shown_escaped(tmp_path):
    """A bot whose exception carries terminal escapes (clear the screen, set the title) gets them shown as
    `\\u001b` in `tourney games --forfeits`, never obeyed."""
    hostile = CRASHY.replace('return view["no such field"]', 'raise RuntimeError("\\x1b[2J\\x1b]0;owned\\x07")')
    folder = folder_of(tmp_path, **{"escaper.py": hostile})
    run(tmp_path, folder, "--sandbox", "off", "--jobs", "0")
    listed = tourney(tmp_path, "games", "--forfeits", "--db", "t.db")
    assert "\x1b" not in listed.stdout and "\x07" not in listed.stdout
    # ESC shown as its escape; BEL, which Rich drops from text as it does every bell, is gone either way.
    assert "RuntimeError: \\u001b[2J\\u001b]0;owned at escaper.py line 6, in hand_of" in listed.stdout


@pytest.mark.sandbox
@pytest.mark.skipif(not HAS_SANDBOX, reason="ladders need a working sandbox")
def test_a_ladder_keeps_diagnoses_for_their_owner_only(tmp_path, monkeypatch):
    """On a ladder: alice's bot that crashes (listed without validation) forfeits its games; their tracebacks
    are stored with the games and written under --bot-logs by bot; alice reads them for that game and for her
    bot, bob and nobody else read nothing. A submission of hers that crashes in its validation game is refused
    naming the line, and its traceback is kept for her alone."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    db = tmp_path / "league.db"
    ledger = Ledger(str(db))
    ladder = ladder_rows.create(ledger, "spring", GAME, 2)
    alice = owner_rows.add(ledger, "alice", owner_tokens.token_hash(owner_tokens.new_token()))
    bob = owner_rows.add(ledger, "bob", owner_tokens.token_hash(owner_tokens.new_token()))
    folder = folder_of(tmp_path, **{"crashy.py": CRASHY})
    for path, owner in ((folder / "crashy.py", alice), (folder / "random_bot.py", None)):
        spec, entry_point, files = league.package(path)
        ladder_rows.submit(ledger, ladder, spec.name, spec.content_hash, spec.kind, entry_point, files, owner_id=owner)
    queued = submission_rows.add(ledger, ladder, alice, "crashy2", "crashy2.py", "crashy2.py", CRASHY.encode())
    ledger.close()
    played = tourney(tmp_path, "ladder", "play", "spring", "--games", "2", "--jobs", "0", "--seed", "1",
                     "--bot-logs", "logs", "--db", str(db))
    assert played.returncode == 0, played.stdout + played.stderr
    worked = tourney(tmp_path, "ladder", "work", "spring", "--rounds", "1", "--games", "2", "--jobs", "0",
                     "--idle", "0.1", "--bot-logs", "logs", "--db", str(db))
    assert worked.returncode == 0, worked.stdout + worked.stderr
    assert (f"submission {queued}: refused crashy2 (owner alice): crashy2 refused: in its validation game it forfeited "
            "(bot failure: crashed: KeyError: 'no such field' at crashy2.py line 6, in hand_of)") in worked.stdout

    ledger = Ledger(str(db), read_only=True)
    try:
        alice_row, bob_row = {"id": alice, "name": "alice"}, {"id": bob, "name": "bob"}  # as the web's owner rows
        forfeited = 0
        for game_id in _ladder_games(ledger):
            mine = owner_tokens.game_diagnoses(ledger, alice_row, game_id)
            assert owner_tokens.game_diagnoses(ledger, bob_row, game_id) == []
            assert owner_tokens.game_diagnoses(ledger, None, game_id) == []
            if mine:
                forfeited += 1
                (told,) = mine
                assert told["bot"] == "crashy" and told["kind"] == "traceback"
                assert told["summary"] == "KeyError: 'no such field' at crashy.py line 6, in hand_of"
                log = tmp_path / "logs" / "crashy" / f"{game_id}-seat{told['seat']}.log"
                assert "Traceback (most recent call last):" in log.read_text()
        assert forfeited >= 2
        page, total = owner_tokens.bot_diagnoses(ledger, alice_row, "crashy", 10, 0)
        assert total == forfeited and {row["kind"] for row in page} == {"traceback"}
        assert owner_tokens.bot_diagnoses(ledger, bob_row, "crashy", 10, 0) is None
        assert owner_tokens.bot_diagnoses(ledger, None, "crashy", 10, 0) is None
        refused = owner_tokens.submission_diagnosis(ledger, alice_row, queued)
        assert refused is not None and refused.startswith("Traceback (most recent call last):\n")
        assert refused.rstrip().endswith("KeyError: 'no such field'")
        assert owner_tokens.submission_diagnosis(ledger, bob_row, queued) is None
        assert "Traceback" not in submission_rows.get(ledger, queued)["reason"]
    finally:
        ledger.close()


def _ladder_games(ledger: Ledger) -> list[str]:
    with ledger.read() as connection:
        return [row[0] for row in connection.exec_driver_sql("SELECT game_id FROM ladder_games")]


def test_log_folders_are_safe_names():
    """A bot's --bot-logs folder is its name, with anything but letters, digits and ._#+- as _, never . or .."""
    assert diagnosis.log_folder("mybot") == "mybot" and diagnosis.log_folder("new#2") == "new#2"
    assert diagnosis.log_folder("a b/c\x1b") == "a_b_c_"
    assert diagnosis.log_folder("..") == "__" and diagnosis.log_folder(".") == "_"
    assert os.sep not in diagnosis.log_folder("../../etc")
