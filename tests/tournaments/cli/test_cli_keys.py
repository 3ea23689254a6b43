"""`tourney keys new` that cannot write its key, and key files that cannot be keys: one line naming the path the user
gave, exit 1, and nothing left behind (no database, no key, no staged file); a key file that is no regular file, or far
larger than a PEM key, is refused before a byte of it is read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests import cli
from tests.cli import invoke as tourney
from tests.runs import random_pair


@pytest.mark.parametrize(("key", "line"), [
    ("nodir/k.key", "error: ledger key: no folder nodir for the ledger key k.key\n"),
    ("taken.key", "error: taken.key already exists; not overwriting a key (`tourney db upgrade` adopts it)\n"),
])
def test_a_ledger_key_that_cannot_be_made_leaves_no_database(tmp_path, monkeypatch, key, line):
    """`keys new --ledger --db m9.db --ledger-key ...` printed its error but left a migrated m9.db behind."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "taken.key").write_text("mine\n")
    result = tourney("keys", "new", "--ledger", "--db", "m9.db", "--ledger-key", key)
    assert (result.exit_code, result.output) == (1, line)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken.key"]
    assert (tmp_path / "taken.key").read_text() == "mine\n"


def test_a_new_ledger_key_for_a_new_and_an_old_database(tmp_path, monkeypatch):
    """The key is made first for a new database, then adopted by it; a database that has one refuses a second."""
    monkeypatch.chdir(tmp_path)
    made = tourney("keys", "new", "--ledger", "--db", "m9.db", "--ledger-key", "k.key")
    assert made.exit_code == 0 and made.stdout.startswith("wrote k.key (keep it secret"), made.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.key", "k.pub", "m9.db"]
    again = tourney("keys", "new", "--ledger", "--db", "m9.db", "--ledger-key", "k2.key")
    assert again.exit_code == 1 and "m9.db has a ledger key already" in again.output
    assert not (tmp_path / "k2.key").exists()


@pytest.mark.skipif(os.geteuid() != 0 or not os.path.isdir("/proc"), reason="needs a folder no file can be made in "
                    "even by root (/proc)")
@pytest.mark.parametrize("ledger", [False, True])
def test_a_key_that_cannot_be_written_is_named_by_the_path_given(tmp_path, monkeypatch, ledger):
    """`keys new /proc/x` named its staged file (/proc/.x.key.1170.tmp): now the path the user gave."""
    monkeypatch.chdir(tmp_path)
    args = ("--ledger", "--db", "m9.db", "--ledger-key", "/proc/x.key") if ledger else ("/proc/x",)
    result = tourney("keys", "new", *args)
    assert result.exit_code == 1 and len(result.output.splitlines()) == 1
    assert "/proc/x.key: cannot write the key: " in result.output and ".tmp" not in result.output, result.output
    assert list(tmp_path.iterdir()) == []


@pytest.fixture(scope="module")
def cup(tmp_path_factory) -> Path:
    """A folder with a database holding one tournament (cup) and its exported logs (logs/), built once."""
    folder = tmp_path_factory.mktemp("cup")
    bots = random_pair(folder / "pair")
    assert tourney("run", bots, "--game", "lemur-tails", "--games", "1", "--sandbox", "off", "--jobs", "0",
                   "--name", "cup", "--db", folder / "t.db").exit_code == 0
    assert tourney("replay", "export", "--tournament", "cup", "--out", folder / "logs", "--db",
                   folder / "t.db").exit_code == 0
    return folder


def key_commands(cup: Path, key: str | Path) -> dict[str, tuple]:
    return {"verify": ("replay", "verify", cup / "logs", "--key", key, "--jobs", "0"),
            "export": ("replay", "export", "--tournament", "cup", "--out", cup / "signed", "--sign", key,
                       "--db", cup / "t.db")}


@pytest.mark.parametrize(("command", "special"), [("verify", "/dev/zero"), ("export", "fifo")])
def test_a_key_file_that_is_no_regular_file_is_refused_unread(cup, tmp_path, command, special):
    """`--key /dev/zero` read without end (MemoryError under a ulimit); a FIFO waited for a writer forever. One line,
    exit 1 (a real process, bounded in time: reverted, this test fails rather than hangs)."""
    key = Path(special)
    if special == "fifo":
        key = tmp_path / "key.pub"
        os.mkfifo(key)
    result = cli.tourney(*key_commands(cup, key)[command], timeout=120)
    assert result.returncode == 1 and result.stderr == f"error: {key}: not a regular file: a key is a PEM file\n", \
        result.stderr
    assert not (cup / "signed").exists()


def test_a_key_file_far_larger_than_a_pem_key_is_refused_unread(cup, tmp_path):
    """A key file of a hundred KiB was read whole: refused by its size, one line, exit 1, nothing exported."""
    big = tmp_path / "big.pub"
    big.write_bytes(b"-" * 100_000)
    for args in key_commands(cup, big).values():
        result = tourney(*args)
        assert (result.exit_code, result.output) == (
            1, f"error: {big}: 100000 bytes, larger than a PEM key file (64 KiB at most)\n")
    assert not (cup / "signed").exists()


def test_a_ledger_key_that_is_no_regular_file_is_refused_unread(cup):
    """`--ledger-key /dev/zero` (any command that signs with the ledger's key) was read without end: the same
    check as every key file (ledger.signing_keys.key_bytes), one line, exit 1, in a real process bounded in time."""
    result = cli.tourney("db", "sign", "--db", cup / "t.db", "--ledger-key", "/dev/zero", timeout=120)
    assert (result.returncode, result.stderr) == (1, "error: ledger key: /dev/zero: not a regular file: a key is a "
                                                     "PEM file\n")


def test_a_missing_public_key_file_is_named_in_plain_words(cup, tmp_path):
    result = tourney("replay", "verify", cup / "logs", "--key", tmp_path / "nope.pub", "--jobs", "0")
    assert (result.exit_code, result.output) == (1, f"error: {tmp_path / 'nope.pub'}: no such key file\n")
