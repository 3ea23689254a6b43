"""`tourney run` given values that would mislead or corrupt: an empty text option, a run that fails before it plays
(no database left behind), --json with progress lines (stdout stays JSON), a closed stdout. Every case is the real
`tourney` process (tests/cli.py), its whole stderr and exit code checked, and the files it leaves."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path

import pytest

from tests import cli

ROOT = Path(__file__).resolve().parents[3]
BOTS = ROOT / "bots"
GAME = "lemur-tails"


@pytest.fixture
def duo(tmp_path) -> Path:
    """A folder of two bots."""
    folder = tmp_path / "duo"
    folder.mkdir()
    for name in ("random_bot.py", "heuristic_lemur_tails.py"):
        shutil.copy(BOTS / name, folder / name)
    return folder


def tourney(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("TOURNEY_")}
    return cli.tourney(*args, cwd=cwd, env={**environment, **(env or {})}, timeout=180)


def run(duo: Path, *more: str, db: str | None = "t.db", seed: str | None = "1") -> tuple[str, ...]:
    return ("run", str(duo), "--game", GAME, "--games", "1", "--jobs", "1", *(() if seed is None else ("--seed", seed)),
            *(() if db is None else ("--db", db)), *more)


# -- an empty value is a bad value, not "left out" --------------------------------------------------------------


def empty(option: str, command: str = "run") -> str:
    quoted = option if option.endswith(")") else f"{option}'"
    return (f"error: Invalid value for '{quoted}: it is empty: give a value, or leave the option out for its default "
            f"(see `tourney {command} --help`)\n")


@pytest.mark.parametrize(("option", "value", "shown"), [
    ("--seed", "", "--seed"), ("--name", "", "--name"), ("--name", "  ", "--name"),
    ("--db", "", "--db' (env var: 'TOURNEY_DB')"),
    ("--ledger-key", "", "--ledger-key' (env var: 'TOURNEY_LEDGER_KEY')"),
    ("--bot-logs", "", "--bot-logs"), ("--deals", "", "--deals"), ("--ray-address", "", "--ray-address"),
])
def test_an_empty_text_option_is_a_bad_value(tmp_path, duo, option, value, shown):
    """`--seed ''` named the tournament `duo-lemur-tails-seed`, played a fixed "secret" seed and broke its seed
    commitment; `--name ''` took the default name, `--db ''` tourney.db, `--bot-logs ''` the working folder: each is
    refused, one line, exit 2, and no database is made (neither the one named nor tourney.db)."""
    args = run(duo, db=None if option == "--db" else "t.db", seed=None if option == "--seed" else "1")
    result = tourney(*args, option, value, cwd=tmp_path)
    assert (result.returncode, result.stderr, result.stdout) == (2, empty(shown), "")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["duo"]


def test_an_empty_folder_argument_is_a_bad_value(tmp_path, duo):
    """`tourney run ''` played the bots of the working folder."""
    result = tourney("run", "", "--game", GAME, "--db", "t.db", cwd=duo)
    assert result.returncode == 2
    assert result.stderr == "error: Invalid value for 'folder': it is empty: give a value (see `tourney run --help`)\n"


def match(duo: Path, *more: str, db: str = "m.db") -> tuple[str, ...]:
    return ("match", str(duo / "random_bot.py"), str(duo / "heuristic_lemur_tails.py"), "--game", GAME, "--games",
            "1", "--jobs", "1", "--db", db, *more)


@pytest.mark.parametrize("option", ["--seed", "--name"])
def test_an_empty_seed_or_name_of_a_match_is_a_bad_value(tmp_path, duo, option):
    """`tourney match` takes --seed and --name as run does: empty, one line, exit 2, no database made."""
    result = tourney(*match(duo, option, ""), cwd=tmp_path)
    assert (result.returncode, result.stderr, result.stdout) == (2, empty(option, "match"), "")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["duo"]


def test_an_empty_seed_or_name_given_to_the_library_is_refused():
    """The library refuses them too (tournaments.play.naming.known_name), past any command line."""
    from tournaments.play import naming
    from tournaments.play.play_errors import TournamentError

    for seed, name, flag in (("", None, "--seed"), ("1", " ", "--name")):
        with pytest.raises(TournamentError, match=f"^{flag} is empty: give a value, or leave {flag} out"):
            naming.known_name(None, name, seed, False, lambda label: f"duo-{label}", GAME)


# -- a run that fails before it plays leaves no database ---------------------------------------------------------


MANIFEST = json.dumps({"name": "random_bot", "command": ["true"], "games": ["*"]})
"""A manifest named as random_bot.py's bot."""
NOTE = "note: new database {db}: there was none at this path (check --db if you meant another)\n"


@pytest.mark.parametrize("where", ["missing-folder", "a-folder"])
def test_a_ledger_key_that_cannot_be_made_leaves_no_database(tmp_path, duo, where):
    """--ledger-key in a folder that does not exist, or naming a folder: the new database made for the run is removed
    with the error (it held no tournament), and a folder given as the key is left as it was."""
    (tmp_path / "keys").mkdir()
    key = tmp_path / "no" / "such" / "k.key" if where == "missing-folder" else tmp_path / "keys"
    result = tourney(*run(duo, "--ledger-key", str(key), db="n.db"), cwd=tmp_path)
    assert result.returncode == 1
    reason = (f"no folder {key.parent} for the ledger key k.key" if where == "missing-folder"
              else f"{key}: not a regular file: a key is a PEM file")
    # A key with no folder is refused before the database is made (no note), one naming a folder once it is read.
    note = "" if where == "missing-folder" else NOTE.format(db="n.db")
    assert result.stderr == note + f"error: ledger key: {reason}\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["duo", "keys"]
    assert list((tmp_path / "keys").iterdir()) == []


def test_a_database_another_connection_opened_since_it_was_made_is_kept(tmp_path):
    """A failed command removes the database it made only if nothing else has it open: a connection made to it in
    the meantime (another process's `tourney run` on the same --db) would lose the file under it, its games too."""
    from tournaments.cli.options import writing

    path = tmp_path / "new.db"
    made = writing(str(path))
    assert made.current() is not None  # first use: the database is made
    with closing(sqlite3.connect(path)) as other:
        other.execute("SELECT COUNT(*) FROM games").fetchall()  # opens it, as SQLite does, with its -wal
        assert made.discard() is False
        assert path.exists() and other.execute("SELECT COUNT(*) FROM games").fetchone() == (0,)


def test_two_bots_of_one_name_are_named_with_their_files_and_leave_no_database(tmp_path, duo):
    """A manifest whose "name" is a Python bot's: the message names the bot and both files, and nothing is made."""
    (duo / "heuristic_lemur_tails.py").unlink()
    (duo / "random_program.bot.json").write_text(MANIFEST)
    result = tourney(*run(duo, db="dup.db"), cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr == (f"error: two bots are named 'random_bot': {duo / 'random_bot.py'} and "
                             f"{duo / 'random_program.bot.json'}; rename one\n")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["duo"]


def test_a_failed_run_keeps_an_existing_database_and_a_key_given(tmp_path, duo):
    """Only what the failed command made is removed: a database there before, and a ledger key given that was there
    before, are kept whole."""
    first = tourney(*run(duo, db="t.db"), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    before = {path.name: path.read_bytes() for path in tmp_path.iterdir() if path.is_file()}
    (duo / "random_program.bot.json").write_text(MANIFEST)
    again = tourney(*run(duo, "--name", "other", db="t.db"), cwd=tmp_path)
    assert again.returncode == 1 and "two bots are named 'random_bot'" in again.stderr
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir() if path.is_file()} == before
    (duo / "random_program.bot.json").unlink()
    (tmp_path / "garbage.key").write_text("not a key\n")
    broken = tourney(*run(duo, "--ledger-key", "garbage.key", db="n.db"), cwd=tmp_path)
    assert broken.returncode == 1 and broken.stderr.startswith(NOTE.format(db="n.db") + "error: "), broken.stderr
    assert not (tmp_path / "n.db").exists()
    assert (tmp_path / "garbage.key").read_text() == "not a key\n"


# -- --json: stdout is the JSON alone ------------------------------------------------------------------------------


def test_json_with_progress_lines_keeps_stdout_json(tmp_path, duo):
    """`run --json --progress lines` wrote its "Finished game" lines and reports into stdout before the JSON: they go
    to stderr, and stdout parses whole."""
    result = tourney(*run(duo, "--json", "--progress", "lines", "--report-every", "1"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert [row["bot"] for row in json.loads(result.stdout)["standings"]]
    assert "Finished game 1 (" in result.stderr and "standings after 1 game of 2" in result.stderr


def test_match_json_with_progress_lines_keeps_stdout_json_and_a_failed_match_leaves_no_database(tmp_path, duo):
    """`match` as `run`: --json's stdout parses whole with progress lines on stderr; a ledger key that cannot be made
    removes the database the match made."""
    result = tourney(*match(duo, "--seed", "1", "--json", "--progress", "lines", "--sandbox", "off"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) and "Finished game 1 (" in result.stderr
    failed = tourney(*match(duo, "--seed", "1", "--ledger-key", str(tmp_path / "no" / "k.key"), db="n.db"),
                     cwd=tmp_path)
    assert failed.returncode == 1 and failed.stderr.endswith(f"no folder {tmp_path / 'no'} for the ledger key k.key\n")
    assert not (tmp_path / "n.db").exists()


# -- a closed stdout stops the run as Ctrl-C does ----------------------------------------------------------------


@pytest.mark.slow
def test_a_closed_stdout_stops_the_run_with_its_line_and_loses_nothing(tmp_path, duo):
    """`tourney run ... | head -3` ended with exit 1 and nothing on stderr (Rich's own exit on a broken pipe): the run
    stops as on Ctrl-C, says on stderr how many games are stored and how to go on, and --resume plays the rest."""
    args = ("run", duo, "--game", GAME, "--games", "10", "--jobs", "1", "--seed", "6", "--db", "p.db", "--progress",
            "lines")
    process = cli.spawn(*args, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = [process.stdout.readline() for _ in range(3)]
        process.stdout.close()  # as `head -3` does
        err = process.stderr.read()
        code = process.wait(timeout=180)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stderr.close()
    assert lines[2].startswith("Finished game 1 (")
    assert code == 1
    assert "Traceback" not in err
    *note, line = err.splitlines()
    assert note == [NOTE.format(db="p.db").strip()]
    stored = int(line.removeprefix("stdout was closed: ").split(" of 20 games stored")[0])
    assert line == f"stdout was closed: {stored} of 20 games stored; continue with the same command plus --resume"
    resumed = tourney(*args, "--resume", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert f"20 games ({stored} already stored)" in resumed.stdout
    verified = tourney("replay", "verify", "--db", "p.db", cwd=tmp_path)
    assert verified.returncode == 0 and "verified 20 games" in verified.stdout, verified.stdout + verified.stderr


# -- a new tournament's --name is never a short id ----------------------------------------------------------------


@pytest.mark.slow
def test_a_new_name_shaped_like_a_short_id_is_refused(tmp_path, duo):
    """`run --name 1` (no --resume) in a database whose tournament 1 is another was read as that tournament's id
    ("cannot resume 'duo-lemur-tails-seed5': it was started with --seed 5, not 6"): a new name of a short id's
    shape (the one rule `ladder create` holds a ladder's name to) is refused, exit 2, the database as it was."""
    assert tourney(*run(duo, seed="5"), cwd=tmp_path).returncode == 0
    before = (tmp_path / "t.db").read_bytes()
    for name in ("1", "L1", "42"):
        result = tourney(*run(duo, "--name", name, seed="6"), cwd=tmp_path)
        assert (result.returncode, result.stderr) == (2, (
            f"error: Invalid value: --name '{name}' reads as a short id (`tourney list` prints a tournament's as 3, a "
            "ladder's as L1): pick another name (see `tourney run --help`)\n"))
    assert (tmp_path / "t.db").read_bytes() == before
    named = tourney(*run(duo, "--name", "cup1", seed="6"), cwd=tmp_path)
    assert named.returncode == 0, named.stderr


# -- options that contradict each other, and --rounds: usage errors ------------------------------------------------


def usage(reason: str, option: str | None = None) -> str:
    where = f" for '{option}'" if option else ""
    return f"error: Invalid value{where}: {reason} (see `tourney run --help`)\n"


@pytest.mark.parametrize(("options", "line"), [
    (("--format", "swiss", "--rounds", "-1"), usage("-1 is out of range: rounds from 1 to 1,000,000", "--rounds")),
    (("--format", "swiss", "--rounds", "0"), usage("0 is out of range: rounds from 1 to 1,000,000", "--rounds")),
    (("--format", "swiss", "--rounds", "100000000"),
     usage("100000000 is out of range: rounds from 1 to 1,000,000", "--rounds")),
    (("--ray-address", "127.0.0.1:6379"), usage("--ray-address is for --executor ray only")),
    (("--sandbox", "off", "--clock", "cpu"),
     usage("--clock cpu and --no-ponder need the sandbox (its cgroups): not with --sandbox off")),
    (("--sandbox", "off", "--no-ponder"),
     usage("--clock cpu and --no-ponder need the sandbox (its cgroups): not with --sandbox off")),
])
def test_contradicting_options_and_rounds_out_of_range_are_usage_errors(tmp_path, duo, options, line):
    """`--rounds -1` was exit 1, `--rounds 0` played the default rounds, `--rounds 100000000` planned 400,000,000
    games; --ray-address without Ray and --clock cpu without the sandbox were exit 1: each is now exit 2 in the
    standard form, before any database is made."""
    result = tourney(*run(duo), *options, cwd=tmp_path)
    assert (result.returncode, result.stderr) == (2, line)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["duo"]
