"""Bots that try to stop a tournament (issue 16): exits at import, a process ended mid-act, a worker
killed, an import slower than the handshake. Real `tourney run` processes and real SQLite files.

The tournament always goes on: a bot that fails to import is left out before the schedule (issue 40);
an in-process bot that ends its worker forfeits the game it was
playing (rebuilt move by move from the worker's flight record), the worker is replaced; a death
that cannot be pinned on a bot replays the game, a few times at most; no game is lost or stored
twice; and where the bots ran (--jobs 0 or 2, sandbox on or off) changes no standing.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from ledger.canonical import loads
from ledger.store import Ledger
from tests import cli
from tests.tournaments.play.test_protocol import GAME, SHIPPED, run, stored_games
from tournaments.play import protocol
from tournaments.play.schedule import schedule

HOSTILE = Path(__file__).resolve().parents[1] / "bots" / "hostile"
TIMEOUT = 300


def folder_with(tmp_path: Path, *hostile: str, shipped: tuple[str, ...] = ("random_bot.py",)) -> Path:
    folder = tmp_path / "bots"
    folder.mkdir()
    for name in shipped:
        shutil.copy(SHIPPED / name, folder / name)
    for name in hostile:
        shutil.copy(HOSTILE / f"{name}.py", folder / f"{name}.py")
    return folder


def tourney_run(tmp_path: Path, folder: Path, db: Path, *extra: str) -> subprocess.CompletedProcess:
    """`tourney run` of one deal with the seed "1" (every run the same games), as a real process."""
    return cli.tourney("run", folder, "--game", GAME, "--games", "1", "--seed", "1", "--db", db, *extra,
                       timeout=TIMEOUT, cwd=tmp_path)


def events_without_reasons(db: Path) -> dict[str, list]:
    """Per game key, every event's type and data, the forfeit's reason left out (it names where
    the bot ran)."""
    ledger = Ledger(str(db))
    try:
        out = {}
        for key, game in stored_games(db).items():
            events = []
            for record in ledger.records(game.game_id):
                data = dict(loads(record.body)["data"])
                data.pop("reason", None) if record.type == "seat_forfeited" else None
                data.pop("seed", None)
                data.pop("opening", None)  # the hash of game_started, which covers the game's own (random) id
                events.append((record.type, data))
            out[key] = events
        return out
    finally:
        ledger.close()


@pytest.mark.slow
@pytest.mark.sandbox
def test_exits_at_import_are_left_out_and_in_act_forfeit_and_where_bots_run_changes_no_standing(tmp_path):
    """A bot folder with an import-time sys.exit(3) bot, an os._exit(7)-in-act bot and two good bots:
    `tourney run` with --jobs 0 and --jobs 2, with the sandbox on and off, completes; the bot that exits
    at import is left out before the schedule, naming the line, and plays no game; the other bad bot's
    games are its forfeits with the reason recorded; the four runs store the same games move for move and
    give the same standings. Without the sandbox, --jobs 2 runs Python bots in workers: the os._exit ends a
    worker, which is replaced, and the game is that bot's forfeit, told in a notice."""
    folder = folder_with(tmp_path, "exit_at_import", "exit_in_act",
                         shipped=("random_bot.py", "heuristic_lemur_tails.py"))
    bots = ["exit_in_act", "heuristic_lemur_tails", "random_bot"]
    runs = {}
    for sandbox in ("on", "off"):
        for jobs in ("0", "2"):
            db = tmp_path / f"{sandbox}-{jobs}.db"
            done = tourney_run(tmp_path, folder, db, "--jobs", jobs, "--sandbox", sandbox, "--json")
            assert done.returncode == 0, done.stderr
            assert "Traceback" not in done.stderr, done.stderr
            assert ("left out exit_at_import: crashed while starting: SystemExit: 3 at exit_at_import.py line 5, "
                    "in <module>") in done.stderr.splitlines(), done.stderr
            died = re.findall(r"^notice: a worker process died \(exit code 7\) while playing game (\S+): the bot that "
                              r"ended it forfeits the game$", done.stderr, re.MULTILINE)
            games = stored_games(db)
            assert sorted(games) == sorted(g.key for g in schedule(bots, 2, 1, "1"))
            in_worker = (sandbox, jobs) == ("off", "2")
            reason = ("bot failure: crashed: ended its worker process (exit code 7)" if in_worker else
                      "bot failure: crashed: exited with code 7 before answering")
            forfeits = dict.fromkeys(bots, 0)
            for game in games.values():
                assert "exit_at_import" not in game.bots
                if "exit_in_act" not in game.bots:
                    assert game.reason == "finished" and game.forfeit is None, game
                    continue
                assert game.reason == "forfeit", game
                offender = game.bots[game.forfeit["seat"]]
                assert (offender, game.forfeit["reason"]) == ("exit_in_act", reason), game.forfeit
                forfeits[offender] += 1
            # It forfeits all four of its games against the good bots.
            assert forfeits == {"exit_in_act": 4, "heuristic_lemur_tails": 0, "random_bot": 0}
            assert len(died) == (forfeits["exit_in_act"] if in_worker else 0), done.stderr
            standings = json.loads(done.stdout)
            assert standings["sandboxed"] is (sandbox == "on")
            assert {row["bot"]: row["forfeits"] for row in standings["standings"]} == forfeits
            runs[sandbox, jobs] = (standings["standings"], events_without_reasons(db))
            verified = cli.tourney("replay", "verify", "--db", str(db), "-q", timeout=TIMEOUT, cwd=tmp_path)
            assert verified.returncode == 0, verified.stdout + verified.stderr
    first = runs["on", "0"]
    assert all(other == first for other in runs.values())


@pytest.mark.parametrize("sandbox", [pytest.param("on", marks=pytest.mark.sandbox), "off"])
def test_a_bot_raising_base_exception_at_import_is_left_out(tmp_path, sandbox):
    """A bot raising a bare BaseException when imported (in pyhost, in its sandbox or not) is left out before
    the schedule, with the exception and the line of its file that raised it; the others play every game."""
    folder = folder_with(tmp_path, "base_exception_at_import", shipped=("random_bot.py", "heuristic_lemur_tails.py"))
    result = run(folder, tmp_path / "t.db", sandbox=sandbox)
    assert result.exit_code == 0, result.output
    assert ("left out base_exception_at_import: crashed while starting: BaseException: no tournament today at "
            "base_exception_at_import.py line 3, in <module>") in result.stderr.splitlines(), result.stderr
    games = stored_games(tmp_path / "t.db")
    assert len(games) == 2
    assert all(game.forfeit is None and "base_exception_at_import" not in game.bots for game in games.values())


@pytest.mark.slow
@pytest.mark.parametrize(("sandbox", "jobs"), [pytest.param("on", 1, marks=pytest.mark.sandbox), ("off", 0)])
def test_a_bot_whose_import_outlasts_the_handshake_is_left_out(tmp_path, monkeypatch, sandbox, jobs):
    """A Python bot that takes a minute to import is left out before the first game, with the reason (its import
    and Bot() took longer than the handshake: not a program's unflushed answer), like a program that does not shake
    hands in time; the others play the whole tournament."""
    monkeypatch.setattr(protocol, "HANDSHAKE_SECONDS", 2.0)
    folder = folder_with(tmp_path, "slow_import", shipped=("random_bot.py", "heuristic_lemur_tails.py"))
    result = run(folder, tmp_path / "t.db", sandbox=sandbox, jobs=jobs)
    assert result.exit_code == 0, result.output
    assert ("left out slow_import: timed out: no answer within 2.00 s to hello: importing its file and constructing "
            "its Bot took longer (the handshake's time: docs/bot-protocol.md)") in result.stderr.splitlines(), \
        result.stderr
    assert {bot for game in stored_games(tmp_path / "t.db").values() for bot in game.bots} == {
        "heuristic_lemur_tails", "random_bot"}


@pytest.mark.slow
def test_a_worker_killed_by_its_in_process_bot_is_that_bots_forfeit(tmp_path):
    """Without the sandbox, a Python bot that sends SIGKILL to its own worker at its second act
    forfeits that game ("ended its worker process (killed by SIGKILL)"); the worker is replaced and
    every game is stored once."""
    folder = folder_with(tmp_path, "kill_own_process")
    done = tourney_run(tmp_path, folder, tmp_path / "t.db", "--jobs", "2", "--sandbox", "off")
    assert done.returncode == 0, done.stderr
    games = stored_games(tmp_path / "t.db")
    assert sorted(games) == ["t0-d0-r0", "t0-d0-r1"]
    for game in games.values():
        assert game.bots[game.forfeit["seat"]] == "kill_own_process"
        assert game.forfeit["reason"] == "bot failure: crashed: ended its worker process (killed by SIGKILL)"


@pytest.mark.slow
def test_a_worker_death_no_bot_can_be_blamed_for_is_replayed_then_stops_the_run(tmp_path):
    """Without the sandbox, a worker killed by a signal while a program bot sits at the table could
    have been killed by that program: the game is played again, twice, then the run stops with one
    line naming it. Nothing is stored twice, and the game is not stored at all."""
    folder = folder_with(tmp_path, "kill_own_process", shipped=("random_program.bot.json",))
    (folder / "programs").mkdir()
    shutil.copy(SHIPPED / "programs" / "random_player.py", folder / "programs" / "random_player.py")
    done = tourney_run(tmp_path, folder, tmp_path / "t.db", "--jobs", "2", "--sandbox", "off")
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    stopped = re.fullmatch(r"error: a worker process died \(killed by SIGKILL\) each of the 3 times it played game "
                           r"(t0-d0-r[01]), and no bot could be blamed; run with the sandbox on \(--sandbox on\) to "
                           r"find the bot", lines[-1])
    assert stopped, lines[-1]
    replays = re.findall(r"^notice: a worker process died \(killed by SIGKILL\) while playing game (t0-d0-r[01]): "
                         r"the game is played again$", done.stderr, re.MULTILINE)
    assert replays.count(stopped.group(1)) == 3, done.stderr
    with closing(sqlite3.connect(tmp_path / "t.db")) as db:
        counts = dict(db.execute("SELECT game_key, count(*) FROM games GROUP BY game_key").fetchall())
    assert set(counts.values()) <= {1} and len(counts) <= 1


def test_through_the_cli_in_this_process_nothing_is_imported_here(tmp_path):
    """`tourney run` with --jobs 0 plays in its own process, with the sandbox off too: Python bots
    then play through pyhost as processes, so a bot's os._exit(7) cannot end tourney."""
    folder = folder_with(tmp_path, "exit_in_act")
    result = cli.invoke("run", folder, "--game", GAME, "--games", "1", "--jobs", "0", "--sandbox", "off",
                        "--db", tmp_path / "t.db")
    assert result.exit_code == 0, result.output
    games = stored_games(tmp_path / "t.db")
    assert [game.forfeit["reason"] for game in games.values()] == [
        "bot failure: crashed: exited with code 7 before answering"] * 2
    assert not [module for module in list(sys.modules.values())
                if str(getattr(module, "__file__", None) or "").startswith(str(tmp_path))]
