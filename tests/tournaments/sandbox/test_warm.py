"""Warm sandboxes (tournaments.sandbox.warm): a bot's sandbox is kept from one game to the next, and
nothing of one game is in the next.

Real `tourney run` processes, real bwrap and cgroups. The attack bot of
tests/tournaments/bots/hostile/rememberer.py leaves files, a process, a System V segment and a
module global behind in each game and looks for them in the next, across the seat rotations of
one deal and across deals, all played by one worker (so by one warm sandbox).
"""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tournaments.sandbox.test_sandbox import (
    GAME,
    TIMEOUT,
    assert_nothing_left,
    hostile_folder,
    logs_of,
    play,
    stored_games,
    tourney,
)
from tests.tournaments.sandbox.test_sealed_games import CANNOT_LEAVE, CHANNELS
from tournaments.sandbox import cgroups

pytestmark = pytest.mark.sandbox

PROGRAMS = Path(__file__).resolve().parents[3] / "bots" / "programs"


@pytest.fixture(autouse=True)
def _cgroups():
    problem = cgroups.unavailable()
    if problem is not None:
        pytest.fail(f"warm sandboxes need cgroups: {problem}")


@pytest.mark.parametrize("ponder", [False, True], ids=["frozen", "pondering"])
def test_nothing_of_one_game_is_in_the_next(tmp_path, ponder):
    """Attack: in every game the bot leaves a note through every channel it can write (files in its home, /tmp
    and /dev/shm, a process holding an abstract socket, System V and POSIX IPC, a loopback connection and the
    loopback's counters, a module global: tests/tournaments/sandbox/test_sealed_games.py has one test per channel)
    and looks for them at its first act. Six games in one warm sandbox (one worker; three deals, each from
    both seats), frozen or pondering: it finds nothing, every time, though each time it left all of them;
    and the games are played to the end."""
    folder, tag = hostile_folder(tmp_path, "rememberer")
    play(tmp_path, folder, "--games", "3", *(["--ponder"] if ponder else []))
    logs = logs_of(tmp_path, f"rememberer_{tag}")
    assert len(logs) == 6
    writable = [channel for channel in CHANNELS if channel not in CANNOT_LEAVE["root"]]
    for log in logs:
        assert "found: []" in log, log
        assert f"left: {writable}" in log, log
    assert {game.reason for game in stored_games(tmp_path / "t.db").values()} == {"finished"}
    assert_nothing_left(tag)


def test_a_bot_is_imported_only_when_its_game_begins(tmp_path):
    """A game's bot is prepared (forked, set up) while the bot's previous game is still being played, but its
    code runs only once its own game has begun: each game's import comes after the previous game's last move
    (--ponder, so that nothing is frozen that could hide it)."""
    folder, tag = hostile_folder(tmp_path, "rememberer")
    play(tmp_path, folder, "--games", "3", "--ponder")
    games = sorted(stored_games(tmp_path / "t.db").values(), key=lambda game: game.key)
    spans = []
    for game in games:
        log = (tmp_path / "logs" / f"{game.key}-seat{game.bots.index(f'rememberer_{tag}')}.log").read_text()
        imported = float(re.search(r"imported (\d+\.\d+)", log).group(1))
        last = max(float(t) for t in re.findall(r"acted (\d+\.\d+)", log))
        spans.append((imported, last))
    spans.sort()
    for (_, last), (imported, _) in itertools.pairwise(spans):
        assert imported > last, spans
    assert len(spans) == 6


def test_a_warm_sandbox_plays_the_games_a_bot_plays_anywhere(tmp_path):
    """The same seed gives the same games in warm sandboxes as without any (random bots, whose moves follow
    the seed the hello gives them)."""
    folder, _ = hostile_folder(tmp_path, good=2)
    runs = {}
    for mode in ("on", "off"):
        db = tmp_path / f"{mode}.db"
        done = tourney(tmp_path, "run", str(folder), "--game", GAME, "--games", "2", "--seed", "4", "--jobs", "1",
                       "--sandbox", mode, "--db", str(db))
        assert done.returncode == 0, done.stderr
        runs[mode] = {key: (game.bots, game.ranking) for key, game in stored_games(db).items()}
    assert runs["on"] == runs["off"] and len(runs["on"]) == 4


def test_tourneys_python_under_tmp_is_there_in_every_game(tmp_path):
    """tourney's Python may live under /tmp (a clone there and its tox environment), which each game's fresh
    /tmp covers: the zygote binds it again. A run whose interpreter is a virtual environment under /tmp
    (pytest's tmp_path) plays, in warm sandboxes, a program that interpreter starts and a Python bot
    (whose game imports more of it): nobody is left out, every game is played to its end."""
    assert str(tmp_path).startswith("/tmp/")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=TIMEOUT)
    site = next((venv / "lib").glob("python*/site-packages"))
    # What this interpreter imports from (tourney, its dependencies), for the one under /tmp.
    (site / "under_test.pth").write_text("".join(f"{path}\n" for path in sys.path if path and Path(path).is_dir()))
    python = str(venv / "bin" / "python")
    folder, _ = hostile_folder(tmp_path, good=1)
    # bots/programs/random_player.py, which first tries to write into the environment it runs from: bound
    # again, and still read-only.
    (folder / "_player.py").write_text(
        "import sys\n"
        "try:\n    open(sys.prefix + '/written', 'w')\nexcept OSError as error:\n"
        "    print('write:', error.strerror, file=sys.stderr, flush=True)\n"
        + (PROGRAMS / "random_player.py").read_text())
    (folder / "player.bot.json").write_text(json.dumps({"name": "player", "command": [python, "-I", "_player.py"]}))
    done = subprocess.run([python, "-m", "tournaments", "run", str(folder), "--game", GAME, "--games", "1",
                           "--jobs", "1", "--sandbox", "on", "--db", str(tmp_path / "t.db"),
                           "--bot-logs", str(tmp_path / "logs")],
                          capture_output=True, text=True, timeout=TIMEOUT, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "left out" not in done.stdout + done.stderr, done.stdout + done.stderr
    games = stored_games(tmp_path / "t.db").values()
    assert {game.reason for game in games} == {"finished"} and len(games) == 2
    assert {bot for game in games for bot in game.bots} == {"player", "random_bot"}
    for log in logs_of(tmp_path, "player"):
        assert "write: Read-only file system" in log, log
    assert not (venv / "written").exists()
