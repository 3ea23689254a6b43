"""The `tourney` CLI: every command documented with an example; bad input is one clear line."""

from __future__ import annotations

import random

import pytest

from engines.driver import play
from ledger.store import Ledger
from replays import archive
from replays import log as logfmt
from replays.record import SeatInfo, record
from tests import cli
from tests.toy import ENGINE as TOY
from tournaments.cli import app


def all_commands(group=None, prefix=()):
    import typer.main

    command = group or typer.main.get_command(app)
    for name, sub in getattr(command, "commands", {}).items():
        path = (*prefix, name)
        if getattr(sub, "commands", None):
            yield path, sub
            yield from all_commands(sub, path)
        else:
            yield path, sub


def test_top_level_help_lists_the_command_groups():
    """`tourney --help` names its command groups."""
    result = cli.invoke("--help")
    assert result.exit_code == 0
    for group in ("db", "replay"):
        assert group in result.output


@pytest.mark.parametrize("path", [p for p, c in all_commands() if not getattr(c, "commands", None)],
                         ids=lambda p: " ".join(p))
def test_every_command_has_help_with_an_example(path):
    """Each command's help text shows an example invocation."""
    result = cli.invoke(*path, "--help", width=200)
    assert result.exit_code == 0
    assert "Example: tourney " + " ".join(path) in result.output


def test_db_upgrade_and_current(tmp_path):
    """`db upgrade` creates the schema; `db current` reports it up to date."""
    db = str(tmp_path / "x.db")
    assert cli.invoke("db", "upgrade", "--db", db).exit_code == 0
    result = cli.invoke("db", "current", "--db", db)
    assert result.exit_code == 0 and f"revision {Ledger.head()}," in result.output and "up to date" in result.output


def test_db_from_environment(tmp_path, monkeypatch):
    """TOURNEY_DB names the database when --db is absent."""
    monkeypatch.setenv("TOURNEY_DB", str(tmp_path / "env.db"))
    result = cli.invoke("db", "upgrade")
    assert result.exit_code == 0 and "env.db" in result.output


def test_unreadable_db_path_is_one_line(tmp_path):
    """A --db in a missing directory: one error line, exit 1, no traceback, and no folder made."""
    result = cli.invoke("db", "upgrade", "--db", str(tmp_path / "no" / "such" / "x.db"))
    assert result.exit_code == 1
    assert result.output == f"error: no folder {tmp_path / 'no' / 'such'} for the database x.db\n"
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"{oops", "not JSON"), (b'{"format": "tourney-log", "format_version": 7}', "format version 7 is newer")],
)
def test_bad_logs_are_one_line(tmp_path, content, message):
    """Importing a log that is not JSON, or of an unknown version: one line, exit 1."""
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    result = cli.invoke("replay", "import", str(path), "--db", str(tmp_path / "x.db"))
    assert result.exit_code == 1
    assert message in result.output and "Traceback" not in result.output


def test_missing_log_file_is_one_line(tmp_path):
    """A log path that does not exist: one line, exit 1."""
    result = cli.invoke("replay", "import", str(tmp_path / "none.json"), "--db", str(tmp_path / "x.db"))
    assert result.exit_code == 1 and "no such file or directory" in result.output


def test_export_then_import_through_the_cli(tmp_path, ledger):
    """A stored game exported with the CLI imports into another database; again is a no-op."""
    config = TOY.configure(2)
    rng = random.Random(0)

    class Agent:
        def act(self, turn):
            return rng.choice(turn.legal)

    recorded = record(TOY, config, "cli", play(TOY, config, "cli", [Agent(), Agent()]),
                      [SeatInfo("a", "0" * 64), SeatInfo("b", "1" * 64)])
    archive.store_recorded(ledger, recorded, [ledger.ensure_bot("a", "0" * 64, "python"),
                                              ledger.ensure_bot("b", "1" * 64, "python")])
    out = tmp_path / "logs"
    result = cli.invoke("replay", "export", recorded.game_id[:8], "--out", str(out), "--db", ledger.url)
    assert result.exit_code == 0, result.output
    exported = out / f"{recorded.game_id}.json"
    assert logfmt.read(exported)["head"] == recorded.head
    target = str(tmp_path / "other.db")
    first = cli.invoke("replay", "import", str(out), "--db", target)
    again = cli.invoke("replay", "import", str(exported), "--db", target)
    assert first.exit_code == again.exit_code == 0
    assert "1 new game stored" in first.output and "0 new games stored" in again.output


def test_export_of_unknown_game_is_one_line(tmp_path, ledger):
    """Exporting a game id that is not stored: one line, exit 1."""
    result = cli.invoke("replay", "export", "nope", "--out", str(tmp_path), "--db", ledger.url)
    assert result.exit_code == 1 and "no game 'nope'" in result.output
