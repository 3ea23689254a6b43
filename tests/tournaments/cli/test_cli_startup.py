"""`tourney --help`, `--version` and every command's `--help` start without the database or web libraries.

Issue 30.5: the command modules import the library inside the commands, so asking for help
costs the interpreter, Typer and Rich only. Checked in a fresh interpreter, in which each
invocation runs in turn and sys.modules is read after each (the first command whose help pulls
a library in is the one named). bench/startup.py measures what it costs.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests import cli

HEAVY = ("sqlalchemy", "sqlmodel", "alembic", "psycopg", "fastapi", "starlette", "uvicorn", "jinja2", "ray",
         "ledger")
"""Database and web libraries (and tourney's ledger, which brings SQLAlchemy) that help must not import."""

PROBE = """
import json, sys
heavy = %r
from tournaments.cli import app
import typer.main

def paths(command, prefix=()):
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield (*prefix, name)
        yield from paths(sub, (*prefix, name))

found = {}
for args in [["--version"], ["--help"], *[[*path, "--help"] for path in paths(typer.main.get_command(app))]]:
    try:
        app(args, prog_name="tourney", standalone_mode=False)
    except SystemExit:
        pass
    found[" ".join(args)] = sorted(m for m in sys.modules if m.split(".")[0] in heavy)
sys.stdout.flush()
sys.stderr.write(json.dumps(found))
"""


@pytest.mark.slow
def test_help_and_version_import_no_database_or_web_library():
    """Every `--help` (and `--version`) leaves SQLAlchemy, SQLModel, Alembic, psycopg, FastAPI, uvicorn,
    Jinja2, Ray and the ledger unimported."""
    done = subprocess.run([sys.executable, "-c", PROBE % (HEAVY,)], capture_output=True, text=True, timeout=120,
                          check=True)
    found = json.loads(done.stderr)
    assert len(found) > 30 and "ladder work --help" in found  # every command was asked, not only the top
    assert {args: modules for args, modules in found.items() if modules} == {}


def test_help_reads_no_package_metadata_and_version_does():
    """importlib.metadata (email, zipfile, csv: about 15 ms of every start) is imported for `--version` alone."""
    probe = ("import sys\nfrom tournaments.cli import app\n"
             "try:\n    app([%r], prog_name='tourney', standalone_mode=False)\nexcept SystemExit:\n    pass\n"
             "sys.stderr.write(str('importlib.metadata' in sys.modules))")
    found = {flag: subprocess.run([sys.executable, "-c", probe % flag], capture_output=True, text=True, timeout=120,
                                  check=True).stderr for flag in ("--help", "--version")}
    assert found == {"--help": "False", "--version": "True"}


def test_a_command_still_imports_what_it_needs(tmp_path):
    """The lazy imports happen when a command runs: `db current` on a new database reads it through the ledger."""
    done = cli.tourney("db", "current", "--db", str(tmp_path / "x.db"), timeout=120)
    assert done.returncode == 1 and done.stderr.startswith("error: no database at ")
