"""Where a ledger key cannot be made: under a file, the error says which file stands in the way, as it does for a
database (docs/cli.md, "Before any command opens a database"); `keys new --ledger` makes nothing."""

from __future__ import annotations

import pytest

from tests import cli


@pytest.mark.parametrize(("args", "line"), [
    (("--db", "x.db", "--ledger-key", "afile/k.key"), "no folder afile for the ledger key k.key"),
    (("--db", "x.db", "--ledger-key", "afile/sub/k.key"), "no folder afile/sub for the ledger key k.key"),
    (("--db", "afile/x.db"), "no folder afile for the ledger key x.db.key"),
], ids=["key-in-a-file", "key-below-a-file", "database-in-a-file"])
def test_a_ledger_key_under_a_file_is_refused_naming_the_file(tmp_path, monkeypatch, args, line):
    """`keys new --ledger` with the key's folder (or one above it) a regular file: the error says it is a file, not a
    folder, where it said only that there was no folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("notes\n")
    result = cli.invoke("keys", "new", "--ledger", *args)
    assert (result.exit_code, result.output) == (1, f"error: ledger key: {line}: afile is a file, not a folder\n")
    assert [path.name for path in tmp_path.iterdir()] == ["afile"]
    assert (tmp_path / "afile").read_text() == "notes\n"


def test_a_command_that_stores_says_its_ledger_key_is_under_a_file(tmp_path, monkeypatch):
    """--ledger-key afile/k.key on a command that signs what it stores (`db upgrade` makes the key): the same line."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("notes\n")
    result = cli.invoke("db", "upgrade", "--db", "x.db", "--ledger-key", "afile/k.key")
    assert (result.exit_code, result.output) == (
        1, "error: ledger key: no folder afile for the ledger key k.key: afile is a file, not a folder\n")
    assert (tmp_path / "afile").read_text() == "notes\n"
