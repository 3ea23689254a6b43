"""The one way tests run the `tourney` command: ``tourney`` as a real process (``python -m tournaments``, bounded in
time), ``spawn`` as a real process the test drives (signals, reading as it goes), ``invoke`` in this process through
Typer's CliRunner. Modules pass their own working folder, environment and bound; nothing here changes what a
command does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from click.testing import Result
from typer.testing import CliRunner

TIMEOUT = 300
"""A process's default bound: generous, as a loaded 2-core machine may take minutes (never a timing assertion)."""

COMMAND = (sys.executable, "-m", "tournaments")


def tourney(*args: str | Path, cwd: str | Path | None = None, env: dict[str, str] | None = None,
            timeout: float = TIMEOUT, input: str | None = None) -> subprocess.CompletedProcess:
    """`tourney ARGS` as a real process, its output captured as text; its exit code is the caller's to check."""
    return subprocess.run([*COMMAND, *map(str, args)], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=timeout, input=input)


def spawn(*args: str | Path, **popen: Any) -> subprocess.Popen:
    """`tourney ARGS` started as a real process (``popen``: subprocess.Popen's own options); the caller waits."""
    return subprocess.Popen([*COMMAND, *map(str, args)], **popen)


def invoke(*args: str | Path, width: int | None = None, env: dict[str, str] | None = None, **extra: Any) -> Result:
    """`tourney ARGS` in this process (CliRunner): exit code, output and stdout; ``width`` is the terminal's."""
    from tournaments.cli import app

    if width is not None:
        extra["terminal_width"] = width
    return CliRunner().invoke(app, [str(arg) for arg in args], env=env, **extra)
