"""`tourney replay import --tournament NAME` holds NAME to a new tournament's rule, `run --name`'s
(tournaments.play.naming.check_new_name): a usage error (exit 2, one line) before any log is read, nothing
imported, no database made and an existing one unchanged. A name `run` makes from its folder and seed is one
line of printable text too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli import invoke

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = ROOT / "tests" / "golden" / "lemur-tails.json"


def imported(db: Path, name: str):
    return invoke("replay", "import", GOLDEN, "--tournament", name, "--db", db)


def refused(result, name: str) -> str:
    """The one line a refused name gets (exit 2), which names it (or says it is empty)."""
    lines = result.stderr.splitlines()
    assert (result.exit_code, len(lines), result.stdout) == (2, 1, ""), result.output
    said = f"--tournament {name!r}" if name else "it is empty"
    assert lines[0].startswith("error: Invalid value") and said in lines[0], lines[0]
    return lines[0]


BAD_NAMES = ["cup\x1b[31m", "a\nb", "\x00", "cup\t", "1", "L1", ""]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_name_run_would_refuse_is_refused_and_no_database_is_made(tmp_path, name):
    """A name `run --name` refuses (a control character, a short id's shape, nothing) was stored as given, or read
    as no name at all; now it is a usage error, and the database the import would have made is not made."""
    db = tmp_path / "new.db"
    refused(imported(db, name), name)
    assert sorted(path.name for path in tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_name_run_would_refuse_leaves_an_existing_database_as_it_was(tmp_path, name):
    """Into a database that holds games already, a refused name imports nothing and changes no byte of it."""
    db = tmp_path / "league.db"
    assert imported(db, "imports").exit_code == 0
    before = db.read_bytes()
    refused(imported(db, name), name)
    assert db.read_bytes() == before
    tournaments = json.loads(invoke("list", "--json", "--db", db).stdout)["tournaments"]
    assert [row["name"] for row in tournaments] == ["imports"]


def test_a_name_of_printable_words_is_still_taken(tmp_path):
    """The rule refuses no more than run's does: spaces, punctuation and letters beyond ASCII are a name."""
    db = tmp_path / "league.db"
    result = imported(db, "Cup d'été 2026/spring")
    assert result.exit_code == 0, result.output
    assert "stored in Cup d'été 2026/spring" in result.stdout


def test_a_default_name_made_of_a_folder_and_a_seed_with_control_characters_is_printable(tmp_path):
    """`run` names a tournament from its folder and seed when --name is not given: an ESC in the folder's name or a
    newline in the seed reached the name (and every list and page) as given; each is a `_` there now."""
    folder = tmp_path / "bots\x1b[31m"
    folder.mkdir()
    for bot in ("random_bot.py", "heuristic_lemur_tails.py"):
        (folder / bot).write_bytes((ROOT / "bots" / bot).read_bytes())
    db = tmp_path / "t.db"
    result = invoke("run", folder, "--game", "lemur-tails", "--games", "1", "--jobs", "0", "--sandbox", "off",
                    "--seed", "7\n", "--db", db)
    assert result.exit_code == 0, result.output
    tournaments = json.loads(invoke("list", "--json", "--db", db).stdout)["tournaments"]
    assert [row["name"] for row in tournaments] == ["bots_[31m-lemur-tails-seed7_"]
