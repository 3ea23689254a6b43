"""What a bot is written in, as the leaderboard shows it (issue 41: a language per bot): tournaments.bots.discovery
.language, told from the bot's own files when it is listed; the author never has to say."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tournaments.bots.discovery import describe, language

ROOT = Path(__file__).resolve().parents[2]


def program(folder: Path, name: str, content: bytes) -> Path:
    path = folder / name
    path.write_bytes(content)
    path.chmod(0o755)
    return path


def manifest(folder: Path, command: list[str]) -> Path:
    path = folder / "bot.bot.json"
    path.write_text(json.dumps({"command": command}))
    return path


def test_the_shipped_bots_languages():
    """A Python bot file is Python; the shipped shell program (#!/bin/sh) is shell; the shipped manifest starts
    python3 on a script of its own: Python."""
    assert language(describe(ROOT / "bots" / "random_bot.py")) == "Python"
    assert language(describe(ROOT / "bots" / "first_legal.sh")) == "shell"
    assert language(describe(ROOT / "bots" / "random_program.bot.json")) == "Python"


@pytest.mark.parametrize(("first_line", "told"), [
    (b"#!/bin/sh", "shell"), (b"#!/usr/bin/env python3", "Python"), (b"#!/usr/bin/env -S python3.11 -u", "Python"),
    (b"#!/usr/bin/node", "JavaScript"), (b"#!/usr/bin/env ruby", "Ruby"), (b"#!/opt/some/interpreter", "program"),
])
def test_a_program_is_told_by_its_first_line(tmp_path, first_line, told):
    """An executable without a suffix: its #! line names the interpreter (through env too, flags skipped, version
    numbers dropped); an interpreter tourney does not know leaves it a "program"."""
    assert language(describe(program(tmp_path, "bot", first_line + b"\necho\n"))) == told


def test_a_compiled_program_and_a_manifests_interpreter(tmp_path):
    """An ELF executable is "compiled"; a manifest's command names its interpreter (`node bot.js`: JavaScript,
    whatever the script holds), else the file it starts is read; a file of no known kind is a "program"."""
    shutil.copy("/bin/true", tmp_path / "solver")
    assert language(describe(tmp_path / "solver")) == "compiled"
    (tmp_path / "bot.js").write_text("// a bot\n")
    assert language(describe(manifest(tmp_path, ["node", "bot.js"]))) == "JavaScript"
    program(tmp_path, "run", b"just bytes\n")
    assert language(describe(manifest(tmp_path, ["./run"]))) == "program"
    program(tmp_path, "play.sh", b"echo\n")
    assert language(describe(manifest(tmp_path, ["./play.sh"]))) == "shell"
