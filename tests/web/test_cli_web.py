"""The commands around the web server: `tourney serve`, `tourney users`, `ladder work`, `ladder publish`."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys

import pytest

from ledger.rows import ladder_rows, owner_rows, submission_rows
from ledger.store import Ledger
from tests import cli
from tests.cli import invoke as tourney
from tests.web.league import LADDER, ROOT


@pytest.mark.slow
def test_serve_without_the_web_extra_says_how_to_install_it(league):
    """Without FastAPI importable, `tourney serve` is one error line naming the pip install that adds the web
    extra: from inside the clone tourney runs from, pip install '.[web]'."""
    code = ("import sys; sys.modules['fastapi'] = None; sys.argv = ['tourney', 'serve', '--db', sys.argv[1]]; "
            "from tournaments.__main__ import main; main()")
    done = subprocess.run([sys.executable, "-c", code, str(league.path)], capture_output=True, text=True, timeout=60,
                          cwd=ROOT)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == "error: tourney serve needs the web extra (fastapi missing): pip install '.[web]'\n"


def test_serve_refuses_a_port_in_use_in_one_line(league):
    """A port another program listens on is one error line, before any server starts."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = tourney("serve", "--db", league.path, "--port", port)
    assert result.exit_code == 1 and result.output.startswith(f"error: cannot listen on 127.0.0.1:{port}: ")
    assert len(result.output.splitlines()) == 1


def test_serve_needs_an_existing_database_unless_it_writes(tmp_path):
    """A read-only server refuses a missing database (never creating one); bad settings are usage errors."""
    result = tourney("serve", "--db", tmp_path / "none.db")
    assert result.exit_code == 1 and "no database at" in result.output and not (tmp_path / "none.db").exists()
    assert tourney("serve", "--db", tmp_path / "none.db", "--tournament-logs", "all").exit_code == 2
    assert tourney("serve", "--db", tmp_path / "none.db", "--port", "70000").exit_code == 2


def test_users_add_prints_a_token_once_and_list_never_shows_it(league):
    """`users add` prints the token; `users list` shows owners and their bots, never a token; a name twice fails."""
    added = tourney("users", "add", "carol", "--db", league.path)
    token = added.output.strip().splitlines()[-1]
    assert added.exit_code == 0 and token.startswith("tourney_")
    listed = tourney("users", "list", "--db", league.path)
    assert "carol" in listed.output and "tourney_" not in listed.output
    again = tourney("users", "add", "carol", "--db", league.path)
    assert again.exit_code == 1 and "already exists" in again.output
    assert tourney("users", "add", "no spaces", "--db", league.path).exit_code == 2
    assert tourney("users", "token", "nobody", "--db", league.path).exit_code == 1
    assert {row["name"] for row in owner_rows.all_owners(Ledger(str(league.path)))} == {"alice", "bob", "carol"}


def test_ladder_publish_and_work_refuse_what_does_not_exist(league):
    """`ladder publish` takes spectator or full; both commands name an unknown ladder in one line."""
    assert tourney("ladder", "publish", LADDER, "everything", "--db", league.path).exit_code == 2
    assert tourney("ladder", "publish", "nope", "full", "--db", league.path).exit_code == 1
    result = tourney("ladder", "work", "nope", "--rounds", "1", "--db", league.path)
    assert result.exit_code == 1 and result.output.startswith("error: no ladder 'nope'")
    published = tourney("ladder", "publish", LADDER, "full", "--db", league.path)
    assert published.output == f"{LADDER} publishes full logs of its finished games\n"


@pytest.mark.slow
def test_ladder_work_without_a_sandbox_refuses_and_leaves_submissions_waiting(league, tmp_path):
    """With no bwrap on PATH, `ladder work` stops in one line before claiming anything: a waiting submission
    stays pending (never refused for the machine's fault)."""
    ledger = Ledger(str(league.path))
    ladder = ladder_rows.get(ledger, LADDER)["id"]
    alice = next(row["id"] for row in owner_rows.all_owners(ledger) if row["name"] == "alice")
    waiting = submission_rows.add(ledger, ladder, alice, "alices", "alices.py", "alices.py",
                        (ROOT / "bots" / "random_bot.py").read_bytes())
    ledger.close()
    env = {**os.environ, "PATH": str(tmp_path / "no-such-folder")}
    done = cli.tourney("ladder", "work", LADDER, "--rounds", "1",
                       "--db", str(league.path), timeout=120, env=env)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == ("error: ladders run every bot in a sandbox, and bwrap (bubblewrap) is not installed; "
                           "install it with `apt-get install bubblewrap`\n")
    assert submission_rows.get(Ledger(str(league.path), read_only=True), waiting)["status"] == submission_rows.PENDING


def test_serve_defaults_to_the_loopback_and_port_8000():
    """`tourney serve --help` documents the issue's defaults: --host 127.0.0.1, --port 8000, --db as every command."""
    shown = " ".join(tourney("serve", "--help", width=200).output.split())
    assert re.search(r"--host <str> .*? \[default: 127\.0\.0\.1\]", shown)
    assert re.search(r"--port <int> .*? \[default: 8000\]", shown) and "--db <str>" in shown
