"""What the CLI says, read as a user reads it: every command's examples on lines of their own in its --help, a
negative deal count refused as a count, `standings --csv --los` printing the LOS, one line for a run stopped by
two presses of Ctrl-C, and `db sign` counting its checkpoints in words.

Real `tourney` commands (in this process, or as real processes where signals are sent) against real SQLite files."""

from __future__ import annotations

import csv
import inspect
import io
import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests import cli
from tests.runs import BOTS, random_pair
from tests.tournaments.cli.test_cli import all_commands

GAME = "lemur-tails"

# -- examples in --help ----------------------------------------------------------------------

WIDTH = 80
"""A terminal's usual width: an example rewrapped to it would be cut in two, or run on from the one before."""

def commands() -> list:
    return [pytest.param(path, command, id=" ".join(path))
            for path, command in all_commands() if not getattr(command, "commands", None)]


@pytest.mark.parametrize(("path", "command"), commands())
def test_every_commands_examples_sit_on_lines_of_their_own_in_its_help(path, command):
    """Click rewraps a paragraph: consecutive "Example:" lines ran together ("... --seed 7 Example: tourney run
    ..."), and a long one was cut in two. Each example of the docstring is one whole line of the help."""
    examples = [line for line in inspect.getdoc(command.callback).splitlines() if line.startswith("Example: ")]
    result = cli.invoke(*path, "--help", width=WIDTH)
    assert result.exit_code == 0 and examples, result.output
    shown = [line.strip() for line in result.output.splitlines()]
    assert [example for example in examples if example not in shown] == [], result.output


# -- a negative deal count -------------------------------------------------------------------


@pytest.mark.parametrize("args", [("-3", "--game", GAME), ("--game", GAME, "-3"),
                                  ("--seed", "-7", "-3", "--game", GAME)], ids=" ".join)
def test_a_negative_deal_count_is_refused_as_a_count_out_of_range(tmp_path, args):
    """`deals new -3` said "No such option: -3": a negative count is the count, and out of range (exit 2)."""
    result = cli.invoke("deals", "new", *args, "--out", tmp_path / "book.deals")
    assert (result.exit_code, result.output) == (
        2, "error: Invalid value for 'COUNT': -3 is out of range: deals from 1 to 1,000,000 "
           "(see `tourney deals new --help`)\n")
    assert not (tmp_path / "book.deals").exists()


def test_a_negative_number_after_an_option_is_still_that_options_value(tmp_path):
    """`--seed -7` keeps its value: only a negative number that no option takes is read as the count."""
    for name, seed in (("spaced", ("--seed", "-7")), ("joined", ("--seed=-7",))):
        result = cli.invoke("deals", "new", "2", "--game", GAME, *seed, "--out", tmp_path / f"{name}.deals")
        assert result.exit_code == 0, result.output
    assert (tmp_path / "spaced.deals").read_text() == (tmp_path / "joined.deals").read_text()


# -- standings --csv --los -------------------------------------------------------------------


@pytest.fixture(scope="module")
def cup(tmp_path_factory) -> Path:
    """A folder with t.db holding one tournament, cup, of two random bots (and the ledger key beside it)."""
    folder = tmp_path_factory.mktemp("cup")
    result = cli.invoke("run", random_pair(folder / "pair"), "--game", GAME, "--games", "1", "--sandbox", "off",
                        "--jobs", "0", "--name", "cup", "--db", folder / "t.db")
    assert result.exit_code == 0, result.output
    return folder


def pairs_csv(cup: Path, *flags: str) -> tuple[list[str], list[dict[str, str]]]:
    result = cli.invoke("standings", "cup", "--csv", *flags, "--db", cup / "t.db")
    assert result.exit_code == 0, result.output
    reader = csv.DictReader(io.StringIO(result.stdout))
    return list(reader.fieldnames or ()), list(reader)


def test_standings_csv_with_los_prints_each_pairs_los(cup):
    """`standings --csv --los` dropped --los silently: the CSV is the pairs', as with --head-to-head, with each
    pair's LOS (as --json rounds it), and with both options both."""
    data = json.loads(cli.invoke("standings", "cup", "--json", "--db", cup / "t.db").stdout)
    los = {(a, b): value for a, row in data["los"].items() for b, value in row.items() if value is not None}
    head, rows = pairs_csv(cup, "--los")
    assert head == ["bot", "opponent", "los"]
    assert {(row["bot"], row["opponent"]): float(row["los"]) for row in rows} == los
    head, rows = pairs_csv(cup, "--los", "--head-to-head")
    assert head == ["bot", "opponent", "wins", "draws", "losses", "los"]
    assert {(row["bot"], row["opponent"]): (int(row["wins"]), int(row["draws"]), int(row["losses"]),
                                            float(row["los"])) for row in rows} == {
        (a, b): (counts["wins"], counts["draws"], counts["losses"], los[(a, b)])
        for a, row in data["head_to_head"].items() for b, counts in row.items()}


# -- db sign ---------------------------------------------------------------------------------


def test_db_sign_counts_its_checkpoints_in_words(cup, tmp_path):
    """`db sign` said "checkpointed 1 tournament or ladder", "2 tournament or ladders": now "1 checkpoint",
    "2 checkpoints", one for each tournament and ladder."""
    shutil.copytree(cup, tmp_path / "cup")
    db = tmp_path / "cup" / "t.db"
    signed = cli.invoke("db", "sign", "--db", db)
    assert signed.exit_code == 0 and "wrote 1 checkpoint (one for each tournament and ladder)" in signed.output, \
        signed.output
    assert cli.invoke("ladder", "create", "spring", "--game", GAME, "--db", db).exit_code == 0
    signed = cli.invoke("db", "sign", "--db", db)
    assert signed.exit_code == 0 and "wrote 2 checkpoints (one for each tournament and ladder)" in signed.output, \
        signed.output


# -- Ctrl-C twice ----------------------------------------------------------------------------

SLOW_BOT = ("import time\nGAMES = '*'\n\nclass Bot:\n    def __init__(self, game, seat, rng):\n        pass\n\n"
            "    def act(self, turn):\n        time.sleep(60)\n        return turn.legal[0]\n")


def stopped_lines(err: str, db: Path) -> list[str]:
    """stderr's lines but the note of a new database (tests/tournaments/cli/test_cli_frictions.py)."""
    note = f"note: new database {db}: there was none at this path (check --db if you meant another)"
    return [line for line in err.splitlines() if line != note]


def test_ctrl_c_twice_while_a_run_plays_says_one_line(tmp_path):
    """A second Ctrl-C after the first had stopped `tourney run` added a line ("error: interrupted" under "interrupted:
    0 of 2 games stored; ...") or cut short what the run stored as it stopped: the first press stops the run, the
    next are ignored. Pressed while a bot thinks, and again once the run has said its line (the process may have
    ended by then: the test below places the second press exactly)."""
    folder = tmp_path / "bots"
    folder.mkdir()
    (folder / "slow.py").write_text(SLOW_BOT)
    shutil.copy(BOTS / "random_bot.py", folder / "random_bot.py")
    db = tmp_path / "t.db"
    process = cli.spawn("run", folder, "--game", GAME, "--games", "1", "--jobs", "0",
                        "--move-time", "120", "--db", db, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                        cwd=tmp_path)
    try:
        process.stdout.readline()  # the run's first lines: its bots and its seed; then the slow bot thinks
        process.stdout.readline()
        process.send_signal(signal.SIGINT)
        said = ""
        while not said.startswith(("interrupted", "error")):
            said = process.stderr.readline()
            assert said, process.communicate()
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=cli.TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130, err
    assert err == "", f"after {said!r}: {err!r}"
    # Pressed once the run has said its bots and seed, the tournament is begun: the line says how to resume it
    # (a press while the executor started, before the games, was a bare "error: interrupted").
    assert said.startswith("interrupted: 0 of 2 games stored;"), said


PRESS_AGAIN_AS_IT_STOPS = """
import signal
import sys

from tournaments import __main__ as entry
from tournaments.cli import run
from tournaments.play import runner

def execute(*args, **kwargs):  # Ctrl-C while the games are played
    signal.raise_signal(signal.SIGINT)

played = run._played

def again(*args, **kwargs):  # and again once the run has said what it stored
    try:
        return played(*args, **kwargs)
    finally:
        signal.raise_signal(signal.SIGINT)

runner.execute = execute
run._played = again
sys.argv = ["tourney", *sys.argv[1:]]
entry.main()
"""


def test_ctrl_c_again_after_the_run_said_what_it_stored_adds_nothing(tmp_path):
    """The same, the presses placed exactly: during play, then just after the line (it was followed by "error:
    interrupted")."""
    (tmp_path / "press_again_as_it_stops.py").write_text(PRESS_AGAIN_AS_IT_STOPS)
    random_pair(tmp_path / "bots")
    done = subprocess.run([sys.executable, "-m", "press_again_as_it_stops", "run", "bots", "--game", GAME, "--games",
                           "1", "--jobs", "0", "--sandbox", "off", "--db", tmp_path / "t.db"], capture_output=True,
                          text=True, timeout=cli.TIMEOUT, cwd=tmp_path)
    assert done.returncode == 130, done.stderr
    assert stopped_lines(done.stderr, tmp_path / "t.db") == [
        "interrupted: 0 of 2 games stored; continue with the same command plus --resume"], done.stderr
