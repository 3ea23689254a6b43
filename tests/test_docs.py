"""Every command in the docs runs (issue 31 item 4): the shell examples of README.md and docs/*.md.

An example is a fenced block marked for this test:

* ```` ```sh ````: run here as a reader follows the pages (issue 40 item 6): README.md, then the
  pages in the order of the README's "Where to read on", then any other page by name, all in one
  fresh folder that holds a copy of the repository's bots/ (the docs are read from a clone), as
  one ``bash -e`` script per block with this interpreter's ``tourney`` first on PATH; each must
  exit 0. A later block uses what an earlier one made, on its page or on a page before it, so no
  two pages may make the same folder, database entry or file for different ends;
* ```` ```python ````: run the same way, in the same folder and turn, as one script of this interpreter
  (``python -c``), so that docs/library.md's calls run where the commands before them ran; each must exit 0;
* ```` ```sh not-run: REASON ```` (or ```` ```python not-run: REASON ````): shown, never run here; the reason,
  required, says why (a server, a cluster, a benchmark of minutes, the test suite itself).

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


RUNNABLE = ("sh", "python")
"""The languages of the blocks that run: shell scripts, and Python scripts (docs/library.md)."""


def examples(path: Path) -> list[tuple[int, str, str]]:
    """(line, language, body) of every block that runs, in the page's order."""
    return [(line, language, body) for line, language, rest, body in blocks(path) if language in RUNNABLE and not rest]


def command(language: str, body: str) -> list[str]:
    """How a block runs: a shell block by ``bash -e``, a Python block by this interpreter."""
    return ["bash", "-e", "-o", "pipefail", "-c", body] if language == "sh" else [sys.executable, "-c", body]


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_every_example_is_marked_run_or_not_run_with_a_reason(path):
    """A shell or Python example is a fenced `sh` or `python` block, run, or marked `not-run:` with its reason; no
    command block is left indented and unmarked (pages other work converts aside)."""
    for line, language, rest, _ in blocks(path):
        if language in RUNNABLE and rest:
            assert re.fullmatch(r"not-run: \S.{9,}", rest), (f"{path.name}:{line}: `{language} {rest}`: say "
                                                              "`not-run: why`")
    assert unmarked(path) == [], f"{path.name}: unmarked command blocks at lines {unmarked(path)}"


def reading_order() -> list[Path]:
    """README.md, the pages its "Where to read on" links in that order, then the other pages by name."""
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Where to read on"):]
    linked = [ROOT / name for name in re.findall(r"\]\((docs/[\w-]+\.md)\)", section)]
    listed = list(dict.fromkeys(path for path in linked if path in DOCS))
    return [ROOT / "README.md", *listed, *(path for path in DOCS[1:] if path not in listed)]


RUN = [path for path in reading_order() if examples(path)]


def test_the_reading_order_is_the_readmes_and_holds_every_page():
    order = reading_order()
    assert sorted(order) == sorted(DOCS) and len(order) == len(DOCS)
    assert order[:3] == [ROOT / "README.md", ROOT / "docs" / "tournaments.md", ROOT / "docs" / "scaling.md"]
    library = ROOT / "docs" / "library.md"
    assert library in order and order.index(library) > order.index(ROOT / "docs" / "replays.md"), (
        "docs/library.md is in the README's reading order, after the commands it calls (replays.md)")


def test_python_blocks_run_with_this_interpreter_and_fail_when_they_fail(tmp_path):
    """The runner of python blocks: a block runs with this interpreter (its packages importable) in the folder
    given; an assertion that fails is a non-zero exit, which the reading-order test reports."""
    page = tmp_path / "page.md"
    page.write_text("```python\nimport tournaments, sys\nprint(sys.executable)\n```\n\n```python not-run: shown "
                    "only, for the test\nraise SystemExit(3)\n```\n\n```python\nassert 1 == 2\n```\n")
    found = examples(page)
    assert [(language, body.splitlines()[0]) for _, language, body in found] == [
        ("python", "import tournaments, sys"), ("python", "assert 1 == 2")]
    runs = [subprocess.run(command(language, body), cwd=tmp_path, capture_output=True, text=True, timeout=120)
            for _, language, body in found]
    assert runs[0].returncode == 0 and runs[0].stdout.strip() == sys.executable
    assert runs[1].returncode != 0 and "AssertionError" in runs[1].stderr


@pytest.mark.slow
def test_the_examples_of_every_page_run_in_reading_order_in_one_folder(tmp_path):
    """Each `sh` and `python` block of each page, page after page in the README's order, exits 0 in one folder
    holding a copy of bots/: a reader can follow the docs from start to end without a fresh folder per page."""
    folder = tmp_path / "reader"
    shutil.copytree(ROOT / "bots", folder / "bots", ignore=shutil.ignore_patterns("__pycache__"))
    environment = {key: value for key, value in os.environ.items() if not key.startswith("TOURNEY_")}
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment.get('PATH', '')}"
    environment["COLUMNS"] = "80"
    for path in RUN:
        for line, language, body in examples(path):
            done = subprocess.run(command(language, body), cwd=folder, env=environment, capture_output=True,
                                  text=True, timeout=900)
            assert done.returncode == 0, (f"{path.name}:{line}: exit {done.returncode}\n{body}\n--- stdout\n"
                                          f"{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}")
