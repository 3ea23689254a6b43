"""Every command in the docs runs (issue 31 item 4): the shell examples of README.md and docs/*.md.

An example is a fenced block marked for this test:

* ```` ```sh ````: run here, in the order of its file, in a fresh folder of that file's own that
  holds a copy of the repository's bots/ (the docs are read from a clone), as one ``bash -e``
  script per block with this interpreter's ``tourney`` first on PATH; it must exit 0. The blocks
  of one file share the folder, so a later block uses what an earlier one made;
* ```` ```sh not-run: REASON ````: shown, never run here; the reason, required, says why (a server,
  a cluster, a benchmark of minutes, the test suite itself).

A block of commands left indented, unmarked, is refused, so that an example cannot slip out of
the test. Transcripts (indented blocks whose first line is ``$ command``, followed by its
output) show output, not steps: the steps are in a marked block above them. The examples keep
their game counts small where that keeps them honest, so the whole runs in a few minutes on two
cores: marked slow, CI runs it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\S*)(.*)$")
COMMAND = re.compile(r"^(tourney|pip|python3?|tox|\.ci/\S+|cd|mkdir|cp|git|export) ")


def blocks(path: Path) -> list[tuple[int, str, str, str]]:
    """(line, language, the rest of the info string, body) of every fenced block."""
    found, lines, at = [], path.read_text().splitlines(), 0
    while at < len(lines):
        opened = FENCE.match(lines[at])
        if opened is None:
            at += 1
            continue
        end = next(i for i in range(at + 1, len(lines)) if lines[i].startswith("```"))
        found.append((at + 1, opened.group(1), opened.group(2).strip(), "\n".join(lines[at + 1:end])))
        at = end + 1
    return found


def unmarked(path: Path) -> list[int]:
    """Lines where an indented block of commands starts outside any fence."""
    lines, inside, starts = path.read_text().splitlines(), False, []
    for number, line in enumerate(lines):
        if line.startswith("```"):
            inside = not inside
            continue
        opens = line.startswith("    ") and (number == 0 or not lines[number - 1].strip())
        if not inside and opens and COMMAND.match(line[4:]):
            starts.append(number + 1)
    return starts


def examples(path: Path) -> list[tuple[int, str]]:
    return [(line, body) for line, language, rest, body in blocks(path) if language == "sh" and not rest]


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_every_example_is_marked_run_or_not_run_with_a_reason(path):
    """A shell example is a fenced `sh` block, run, or marked `not-run:` with its reason; no command block is left
    indented and unmarked (pages other work converts aside)."""
    for line, language, rest, _ in blocks(path):
        if language == "sh" and rest:
            assert re.fullmatch(r"not-run: \S.{9,}", rest), f"{path.name}:{line}: `sh {rest}`: say `not-run: why`"
    assert unmarked(path) == [], f"{path.name}: unmarked command blocks at lines {unmarked(path)}"


RUN = [path for path in DOCS if examples(path)]


@pytest.mark.slow
@pytest.mark.parametrize("path", RUN, ids=lambda p: p.name)
def test_the_examples_of_a_page_run_in_order_in_a_fresh_folder(path, tmp_path):
    """Each `sh` block of the page, in order, exits 0 in a fresh folder holding a copy of bots/."""
    folder = tmp_path / path.stem
    shutil.copytree(ROOT / "bots", folder / "bots", ignore=shutil.ignore_patterns("__pycache__"))
    environment = {key: value for key, value in os.environ.items() if not key.startswith("TOURNEY_")}
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment.get('PATH', '')}"
    environment["COLUMNS"] = "80"
    for line, body in examples(path):
        done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", body], cwd=folder, env=environment,
                              capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, (f"{path.name}:{line}: exit {done.returncode}\n{body}\n--- stdout\n"
                                      f"{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}")
