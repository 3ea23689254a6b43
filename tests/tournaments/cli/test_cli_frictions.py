"""The frictions a new user met (issue 40, item 5): each is fixed, and each has its test here or beside the
command it concerns (tests/tournaments/play/test_match.py: an SPRT's length, blocks in English; test_cli_report.py:
what orders the standings; test_cli_operator.py: the score column; tests/web/: an ELF upload).

Real `tourney` commands in this process against real SQLite files."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.cli import invoke as tourney
from tournaments.play import runner as runner_module
from tournaments.sandbox import sandbox

ROOT = Path(__file__).resolve().parents[3]
BOTS = ROOT / "bots"
NEW_DATABASE = "note: new database {}: there was none at this path (check --db if you meant another)"



def folder(tmp_path: Path) -> Path:
    bots = tmp_path / "cup"
    bots.mkdir()
    shutil.copy(BOTS / "random_bot.py", bots / "random_bot.py")
    shutil.copy(BOTS / "random_bot.py", bots / "other.py")
    return bots


def test_the_same_command_after_an_unfinished_run_says_how_to_go_on(tmp_path, monkeypatch):
    """Ctrl-C during a run with a drawn seed, then the same command without --resume: it used to start a second
    tournament under a new drawn name, orphaning the first; now it refuses in one line naming the first and
    saying how to continue it (--resume) or start another (--name). With --resume it finishes; then the same
    command starts a new tournament, since the first is over."""
    monkeypatch.chdir(tmp_path)
    bots = folder(tmp_path)
    command = ("run", bots, "--game", "lemur-tails", "--games", "1", "--jobs", "0", "--sandbox", "off", "--db", "t.db")
    real = runner_module.execute

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner_module, "execute", interrupted)
    stopped = tourney(*command)
    assert stopped.exit_code == 130, stopped.output
    monkeypatch.setattr(runner_module, "execute", real)
    [first] = json.loads(tourney("list", "--json", "--db", "t.db").stdout)["tournaments"]
    again = tourney(*command)
    assert again.exit_code == 1
    assert again.stderr == (f"error: tournament {first['name']!r}, started by this command, was not finished (0 games "
                            "stored): continue it with the same command plus --resume, or start another beside it with "
                            "--name NAME\n")
    assert len(json.loads(tourney("list", "--json", "--db", "t.db").stdout)["tournaments"]) == 1
    resumed = tourney(*command, "--resume")
    assert resumed.exit_code == 0 and first["name"] in resumed.stdout, resumed.output
    anew = tourney(*command)
    assert anew.exit_code == 0, anew.output
    names = [row["name"] for row in json.loads(tourney("list", "--json", "--db", "t.db").stdout)["tournaments"]]
    assert len(names) == 2 and names[0] == first["name"]


def test_a_writing_command_names_the_database_it_makes(tmp_path, monkeypatch):
    """A typo in --db (tourny.db) made a new ledger silently; the command now says, once, on stderr, that it made a
    new database there. Writing to the same file again says nothing of the kind."""
    monkeypatch.chdir(tmp_path)
    bots = folder(tmp_path)
    command = ("run", bots, "--game", "lemur-tails", "--games", "1", "--jobs", "0", "--sandbox", "off", "--seed",
               "1", "--db", "tourny.db")
    made = tourney(*command)
    assert made.exit_code == 0, made.output
    assert made.stderr.splitlines().count(NEW_DATABASE.format("tourny.db")) == 1, made.stderr
    assert (tmp_path / "tourny.db").exists()
    again = tourney(*command[:-2], "--name", "second", "--db", "tourny.db")
    assert again.exit_code == 0 and "new database" not in again.stderr, again.output
    created = tourney("ladder", "create", "spring", "--game", "lemur-tails", "--db", "league.db")
    assert created.exit_code == 0 and NEW_DATABASE.format("league.db") in created.stderr, created.output


def test_tournaments_and_ladders_have_ids_that_cannot_be_confused(tmp_path, monkeypatch):
    """`tourney list` gave tournament 1 and ladder 1 the same id; a ladder's id is now L1 (in `tourney list` and
    `ladder list`), which every ladder command takes (as it still takes the plain number), and which no tournament
    command mistakes for its own."""
    monkeypatch.chdir(tmp_path)
    bots = folder(tmp_path)
    assert tourney("run", bots, "--game", "lemur-tails", "--games", "1", "--jobs", "0", "--sandbox", "off", "--seed",
                   "1", "--db", "t.db").exit_code == 0
    assert tourney("ladder", "create", "spring", "--game", "lemur-tails", "--db", "t.db").exit_code == 0
    listed = json.loads(tourney("list", "--json", "--db", "t.db").stdout)
    assert [row["ref"] for row in listed["tournaments"]] == ["1"]
    assert [(row["ref"], row["id"]) for row in listed["ladders"]] == [("L1", 1)]
    table = tourney("list", "--db", "t.db").stdout.splitlines()
    assert any(line.split()[:2] == ["L1", "spring"] for line in table), table
    assert any(line.split()[:2] == ["1", "cup-lemur-tails-seed1"] for line in table), table
    ladders = tourney("ladder", "list", "--db", "t.db").stdout.splitlines()
    assert any(line.split()[:2] == ["L1", "spring"] for line in ladders), ladders
    for ref in ("L1", "l1", "1", "spring"):
        shown = tourney("ladder", "standings", ref, "--json", "--db", "t.db")
        assert shown.exit_code == 0 and json.loads(shown.stdout) == [], shown.output
    refused = tourney("standings", "L1", "--db", "t.db")  # never the ladder's, nor "no tournament" as if none were
    assert (refused.exit_code, refused.stderr) == (1, "error: L1 is a ladder: its standings are in `tourney ladder "
                                                      "standings L1`\n")


@pytest.mark.sandbox
@pytest.mark.skipif(sandbox.unavailable() is not None, reason="ladders need a working sandbox")
def test_ladder_submit_and_play_say_what_happens_game_by_game(tmp_path, monkeypatch):
    """`ladder submit` was silent for the seconds its validation takes, and `ladder play` printed hashes and
    `played N games`: now submit says what it validates and each validation game's result as it ends; play prints a
    line per stored game, its result and each seat's rating before and after (the ratings `ladder history` then
    holds), and a drawn seed's commitment and reveal as 16 digits, not 64."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert tourney("ladder", "create", "spring", "--game", "lemur-tails", "--db", "l.db").exit_code == 0
    for bot in ("random_bot", "heuristic_lemur_tails"):
        submitted = tourney("ladder", "submit", "spring", BOTS / f"{bot}.py", "--db", "l.db")
        assert submitted.exit_code == 0, submitted.output
        lines = submitted.stdout.splitlines()
        assert lines[0] == f"validating {bot}: 2 games against random bots, one from each seat"
        for number, line in enumerate(lines[1:3], start=1):
            assert re.fullmatch(rf"validation game {number} of 2: {bot} in seat {number - 1} placed [12] of 2 "
                                r"\{finished\}", line), line
        assert lines[3:] == [f"listed {bot} v1 on spring"]
    played = tourney("ladder", "play", "spring", "--games", "2", "--jobs", "0", "--db", "l.db")
    assert played.exit_code == 0, played.output
    lines = played.stdout.splitlines()
    assert re.fullmatch(r"session 1: seed drawn and secret until the session stops, commitment [0-9a-f]{16}…", lines[0])
    assert re.fullmatch(r"session 1 is over: seed revealed: [0-9a-f]{16}… \(`tourney replay verify --db --ladder` "
                        r"checks it against its commitment\)", lines[-2]), lines
    assert lines[-1] == "played 2 games on spring"
    history = {bot: json.loads(tourney("ladder", "history", "spring", bot, "--json", "--db", "l.db").stdout)
               for bot in ("random_bot", "heuristic_lemur_tails")}
    games = lines[1:-2]
    assert len(games) == 2
    before = {"random_bot": 1500.0, "heuristic_lemur_tails": 1500.0}
    for number, line in enumerate(games, start=1):
        moved = r"(\S+) ([\d.]+) -> ([\d.]+) \(([+-][\d.]+)\)"
        found = re.fullmatch(rf"Finished game (\d+) \((\S+) vs (\S+)\): (1-0|0-1|1/2-1/2) \{{finished\}} ratings: "
                             rf"{moved}, {moved}", line)
        assert found and int(found[1]) == number, line
        for bot, old, new, change in (found.group(5, 6, 7, 8), found.group(9, 10, 11, 12)):
            assert float(old) == pytest.approx(before[bot], abs=0.05)
            assert float(new) == pytest.approx(history[bot][number - 1]["rating"], abs=0.05)
            assert float(change) == pytest.approx(float(new) - float(old), abs=0.11)
            before[bot] = history[bot][number - 1]["rating"]
