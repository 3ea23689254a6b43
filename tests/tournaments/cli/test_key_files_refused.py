"""Key files that cannot be made, where a regular file stands in the way of their folder: `replay import` refuses in one
line and leaves no database it made, and `keys new` says which file is in the way."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import cli

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = ROOT / "tests" / "golden" / "lemur-tails.json"


@pytest.mark.parametrize(("key", "reason"), [
    ("afile/k.key", "no folder afile for the ledger key k.key: afile is a file, not a folder"),
    ("afile/sub/k.key", "no folder afile/sub for the ledger key k.key: afile is a file, not a folder"),
    ("nodir/k.key", "no folder nodir for the ledger key k.key"),
], ids=["in-a-file", "below-a-file", "missing-folder"])
def test_an_import_whose_ledger_key_cannot_be_made_refuses_in_one_line_and_leaves_no_database(tmp_path, monkeypatch,
                                                                                           key, reason):
    """`replay import LOG --db new.db --ledger-key afile/k.key` failed the log and left new.db behind; now the key's
    folder is checked before the database is made: its refusal is the command's one line, and no database is made
    (nor a note that one was)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("notes\n")
    result = cli.invoke("replay", "import", GOLDEN, "--db", "new.db", "--ledger-key", key)
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", f"error: ledger key: {reason}\n")
    assert [path.name for path in tmp_path.iterdir()] == ["afile"]
    assert (tmp_path / "afile").read_text() == "notes\n"


def test_an_import_of_logs_that_all_fail_leaves_no_database(tmp_path, monkeypatch):
    """The database an import makes for its first game is removed when no log is stored (with its ledger key)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.json").write_text("{}\n")
    result = cli.invoke("replay", "import", "bad.json", "--db", "new.db")
    assert result.exit_code == 1 and result.stderr.endswith("error: 1 of 1 log failed (each named above) and stored "
                                                            "nothing\n"), result.output
    assert [path.name for path in tmp_path.iterdir()] == ["bad.json"]


def test_an_import_that_stores_a_game_keeps_its_new_database(tmp_path, monkeypatch):
    """One log stored and one refused: the new database holds the stored game and is kept, with its key."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.json").write_text("{}\n")
    result = cli.invoke("replay", "import", "bad.json", GOLDEN, "--db", "new.db")
    assert result.exit_code == 1 and "2 logs read, 1 new game stored" in result.stdout, result.output
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bad.json", "new.db", "new.db.key", "new.db.pub"]
    assert cli.invoke("replay", "verify", "--db", "new.db", "--quiet").exit_code == 0


@pytest.mark.parametrize("name", ["afile/league", "afile/sub/league"], ids=["in-a-file", "below-a-file"])
def test_keys_new_under_a_file_says_the_file_is_in_the_way(tmp_path, monkeypatch, name):
    """`keys new afile/league` said only "no folder afile"; now it says afile is a file, and makes nothing."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("notes\n")
    result = cli.invoke("keys", "new", name)
    folder = str(Path(name).parent)
    assert (result.exit_code, result.output) == (
        1, f"error: no folder {folder} for the keys: afile is a file, not a folder\n")
    assert [path.name for path in tmp_path.iterdir()] == ["afile"]
    assert (tmp_path / "afile").read_text() == "notes\n"
