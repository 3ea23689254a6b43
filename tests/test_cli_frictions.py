"""The frictions a new user met (issue 40, item 5): each is fixed, and each has its test here or beside the
command it concerns (tests/tournaments/test_match.py: an SPRT's length, blocks in English; test_cli_report.py:
what orders the standings; test_cli_operator.py: the score column; tests/web/: an ELF upload).

Real `tourney` commands in this process against real SQLite files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from tournaments.cli import app
from tournaments.play import runner as runner_module

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "bots"
cli = CliRunner()
NEW_DATABASE = "note: new database {}: there was none at this path (check --db if you meant another)"


def tourney(*args):
    return cli.invoke(app, [str(arg) for arg in args])


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
    """`tourney list` gave tournament 1 and ladder 1 the same id; a ladder's id is now L1, which every ladder command
    takes (as it still takes the plain number), and which no tournament command mistakes for its own."""
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
    for ref in ("L1", "l1", "1", "spring"):
        shown = tourney("ladder", "standings", ref, "--json", "--db", "t.db")
        assert shown.exit_code == 0 and json.loads(shown.stdout) == [], shown.output
    refused = tourney("standings", "L1", "--db", "t.db")
    assert refused.exit_code == 1 and "no tournament 'L1'" in refused.stderr
