"""The import rule of docs/architecture.md ("Allowed imports"), checked on every module.

The table is read from the document itself, so the rule and its description cannot drift
apart. Every import counts, at the top of a module or inside a function (a lazy import
breaks a layer just as much).
"""

from __future__ import annotations

import ast
import re
from collections import deque
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE = ROOT / "docs" / "architecture.md"
CHECKED = ("engines", "ledger", "migrations", "replays", "tournaments", "web", "adapters", "bots")
"""The folders whose modules obey the table (bench/ and tests/ may import anything)."""
PROJECT = (*CHECKED, "bench", "tests")
"""Top-level names that are the project's own (any other import is a library)."""


def allowed_imports() -> dict[str, set[str]]:
    """The table under "## Allowed imports": layer -> the layers it may import."""
    text = ARCHITECTURE.read_text()
    section = text.split("## Allowed imports", 1)[1].split("\n## ", 1)[0]
    table: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 2 or not cells[0].startswith("`"):
            continue
        table[cells[0].strip("`")] = set(re.findall(r"`([\w.]+)`", cells[1]))
    return table


def layer_of(module: str, layers: set[str]) -> str | None:
    """The most specific layer a dotted module name belongs to."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in layers:
            return candidate
    return None


def may_import(source: str, target: str, table: dict[str, set[str]]) -> bool:
    """Whether layer ``source`` may import module ``target``: a listed layer admits its modules and sublayers, a
    listed module (``tournaments.bots.spec``) itself only."""
    return any(target == allowed or target.startswith(allowed + ".") for allowed in (source, *table[source]))


def module_name(path: Path, root: Path = ROOT) -> str:
    relative = path.relative_to(root).with_suffix("")
    parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
    return ".".join(parts)


def imports_of(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, module) for every import in a file, relative ones resolved."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.append((node.lineno, target))
            # `from package import module` imports that module too
            found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
    return found


def project_modules(root: Path = ROOT) -> list[Path]:
    return sorted(path for folder in CHECKED if (root / folder).is_dir() for path in (root / folder).rglob("*.py"))


def existing_module(name: str, root: Path = ROOT) -> bool:
    path = root.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def write_tree(root: Path, files: dict[str, str]) -> None:
    """A synthetic project: each file (a path under ``root``) with its text."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_the_table_names_every_checked_layer():
    """The document's table has a row for every folder whose imports are checked."""
    table = allowed_imports()
    assert set(CHECKED) <= set(table), f"rows missing from docs/architecture.md: {set(CHECKED) - set(table)}"
    assert "web" not in set().union(*(targets for layer, targets in table.items() if layer != "web"))


def violations(root: Path = ROOT) -> list[str]:
    """Every import under ``root`` that breaks the table, as "file:line (layer) imports module (layer)"."""
    table = allowed_imports()
    layers = set(table)
    broken: list[str] = []
    for path in project_modules(root):
        source = layer_of(module_name(path, root), layers)
        if source is None:
            broken.append(f"{path.relative_to(root)} is in no layer of docs/architecture.md")
            continue
        for line, target in imports_of(path, root):
            if target.split(".")[0] not in PROJECT or not existing_module(target, root):
                continue  # a library, or a name imported from a module (not a module itself)
            target_layer = layer_of(target, layers)
            if target_layer is None or not may_import(source, target, table):
                where = f"{path.relative_to(root)}:{line} ({source}) imports "
                if not any(b.startswith(where) for b in broken):  # one line per import statement
                    broken.append(f"{where}{target} ({target_layer})")
    return broken


def test_no_import_breaks_the_table():
    """Every project import in every module goes to a layer its own layer may import."""
    broken = violations()
    assert not broken, "imports that break docs/architecture.md's table:\n" + "\n".join(broken)


def test_the_checker_catches_each_kind_of_broken_import(tmp_path):
    """Lazy and top-level imports across a forbidden edge are all reported (the rule cannot pass vacuously)."""
    files = {
        "engines/__init__.py": "",
        "engines/base.py": "def f():\n    from ledger.store import Ledger\n",
        "ledger/__init__.py": "",
        "ledger/store.py": "from tournaments.play import runner\n",
        "tournaments/__init__.py": "",
        "tournaments/play/__init__.py": "",
        "tournaments/play/runner.py": "import web.app\n",
        "web/__init__.py": "",
        "web/app.py": "from engines import base\n",
        "adapters/__init__.py": "",
        "adapters/pettingzoo.py": "from ..tournaments.play import runner\n",
    }
    write_tree(tmp_path, files)
    broken = violations(tmp_path)
    assert any(b.startswith("engines/base.py:2 (engines) imports ledger.store") for b in broken), broken
    assert any(b.startswith("ledger/store.py:1 (ledger) imports tournaments.play") for b in broken), broken
    assert any(b.startswith("tournaments/play/runner.py:1 (tournaments.play) imports web.app") for b in broken), broken
    assert any(b.startswith("adapters/pettingzoo.py:1 (adapters) imports tournaments.play") for b in broken), broken
    assert not any(b.startswith("web/") for b in broken), broken
    assert len(broken) == 4, broken



def test_the_sandbox_and_the_bots_keep_to_their_rows(tmp_path):
    """tournaments/sandbox/ may import the modules of tournaments/bots/ its row names (spec, and the hosts it runs
    inside a sandbox), never the rest of bots/ nor play/ or ladder/; no module of tournaments/bots/ imports the
    sandbox, and tournaments/play/protocol.py (the agent of a bot process) imports the supervisor and bots/, never the
    rest of play/."""
    files = {
        "tournaments/__init__.py": "",
        "tournaments/bots/__init__.py": "",
        "tournaments/bots/spec.py": "",
        "tournaments/bots/pyhost.py": "",
        "tournaments/bots/discovery.py": "from tournaments.sandbox.sandbox import start\n",
        "tournaments/bots/hosts.py": "from tournaments.sandbox.supervisor import BotProcess\n",
        "tournaments/sandbox/__init__.py": "",
        "tournaments/sandbox/sandbox.py": "from tournaments.bots.spec import BotSpec\n",
        "tournaments/sandbox/supervisor.py": "def f():\n    from tournaments.bots import discovery\n",
        "tournaments/sandbox/inside.py": ("from tournaments.bots.pyhost import serve\n"
                                          "from tournaments.play import runner\n"),
        "tournaments/sandbox/warm.py": "from tournaments.bots import spec\n",
        "tournaments/play/__init__.py": "",
        "tournaments/play/runner.py": "from tournaments.sandbox import sandbox\n",
        "tournaments/play/protocol.py": ("from tournaments.sandbox.supervisor import BotProcess\n"
                                         "from tournaments.bots.spec import BotSpec\n"
                                         "from tournaments.play import runner\n"),
    }
    write_tree(tmp_path, files)
    broken = violations(tmp_path)
    assert any(b.startswith("tournaments/bots/discovery.py:1 (tournaments.bots) imports tournaments.sandbox")
               for b in broken), broken
    assert any(b.startswith("tournaments/bots/hosts.py:1 (tournaments.bots) imports tournaments.sandbox")
               for b in broken), broken
    assert any(b.startswith("tournaments/play/protocol.py:3 (tournaments.play.protocol) imports tournaments.play")
               for b in broken), broken
    assert any(b.startswith("tournaments/sandbox/supervisor.py:2 (tournaments.sandbox) imports tournaments.bots")
               for b in broken), broken
    assert any(b.startswith("tournaments/sandbox/inside.py:2 (tournaments.sandbox) imports tournaments.play")
               for b in broken), broken
    # `from tournaments.bots import spec` imports the package bots/ too: write `from tournaments.bots.spec import`
    assert any(b.startswith("tournaments/sandbox/warm.py:1 (tournaments.sandbox) imports tournaments.bots")
               for b in broken), broken
    assert len(broken) == 6, broken

def import_graph(root: Path = ROOT) -> dict[str, dict[str, int]]:
    """Per checked module, the project modules it imports and the line of the first import of each.

    ``from package import module`` imports the package (its ``__init__`` runs, and the name is read
    from it) as well as the module; ``from package.module import name`` imports the module only.
    """
    graph: dict[str, dict[str, int]] = {}
    for path in project_modules(root):
        name = module_name(path, root)
        edges: dict[str, int] = {}
        for line, target in imports_of(path, root):
            if target != name and target.split(".")[0] in PROJECT and existing_module(target, root):
                edges.setdefault(target, line)
        graph[name] = edges
    return graph


def circles(root: Path = ROOT) -> list[str]:
    """Every import circle under ``root``: for each group of modules that import each other round (a strongly
    connected component), its shortest circle through its first module, as "a -> b (b.py:3) -> a (a.py:7)"."""
    graph = import_graph(root)
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's algorithm
        order[module] = low[module] = len(order)
        stack.append(module)
        for target in sorted(graph[module]):
            if target not in graph:
                continue  # bench/ or tests/: not checked
            if target not in order:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], order[target])
        if low[module] == order[module]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(graph):
        if module not in order:
            visit(module)
    return [_shortest_circle(graph, group, root) for group in sorted(groups)]


def _shortest_circle(graph: dict[str, dict[str, int]], group: list[str], root: Path) -> str:
    """The shortest circle through the group's first module (breadth first, inside the group), each module
    shown with the place where it imports the next."""
    first, members = group[0], set(group)
    parent: dict[str, str | None] = {first: None}
    queue = deque([first])
    last = None
    while last is None:
        module = queue.popleft()
        for target in sorted(graph[module]):
            if target == first:
                last = module
                break
            if target in members and target not in parent:
                parent[target] = module
                queue.append(target)
    path: list[str] = []
    at: str | None = last
    while at is not None:
        path.append(at)
        at = parent[at]
    path.reverse()
    path.append(first)
    steps = [f"{a} ({module_path(a, root)}:{graph[a][b]})" for a, b in pairwise(path)]
    return " -> ".join([*steps, first])


def module_path(name: str, root: Path = ROOT) -> str:
    path = root.joinpath(*name.split("."))
    file = path / "__init__.py" if (path / "__init__.py").is_file() else path.with_suffix(".py")
    return str(file.relative_to(root))


def test_no_module_imports_itself_through_a_circle():
    """No import circle anywhere in the checked packages: a lazy import, a TYPE_CHECKING one or ``from package
    import module`` inside the package whose ``__init__`` imports the importer all count."""
    found = circles()
    assert not found, "import circles (docs/architecture.md):\n" + "\n".join(found)


def test_the_checker_finds_each_kind_of_circle(tmp_path):
    """A synthetic tree with a lazy circle, a TYPE_CHECKING circle, a module reading its own package and a
    three-module ring: each is reported once, with where each import is; the acyclic rest is not."""
    files = {
        "engines/__init__.py": "",
        "engines/game/__init__.py": "from engines.game.rules import ENGINE\n",
        "engines/game/rules.py": "from engines.game import cards\nENGINE = 1\n",
        "engines/game/cards.py": "",
        "engines/other/__init__.py": "",
        "engines/other/rules.py": "from engines.other.cards import X\n",
        "engines/other/cards.py": "import engines.other.base as base\n",
        "engines/other/base.py": "",
        "tournaments/__init__.py": "",
        "tournaments/play/__init__.py": "",
        "tournaments/play/executors.py": "def open_executor():\n    from tournaments.play import remote\n",
        "tournaments/play/remote.py": "from tournaments.play.executors import open_executor\n",
        "tournaments/play/runner.py": "from tournaments.play import seeding\n",
        "tournaments/play/seeding.py": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                        "    from tournaments.play.runner import Spec\n"),
        "ledger/__init__.py": "",
        "ledger/a.py": "from ledger import b\n",
        "ledger/b.py": "from ledger.c import x\n",
        "ledger/c.py": "def f():\n    import ledger.a\n",
    }
    write_tree(tmp_path, files)
    assert circles(tmp_path) == [
        "engines.game (engines/game/__init__.py:1) -> engines.game.rules (engines/game/rules.py:1) -> engines.game",
        "ledger.a (ledger/a.py:1) -> ledger.b (ledger/b.py:1) -> ledger.c (ledger/c.py:2) -> ledger.a",
        "tournaments.play.executors (tournaments/play/executors.py:2) -> tournaments.play.remote "
        "(tournaments/play/remote.py:1) -> tournaments.play.executors",
        "tournaments.play.runner (tournaments/play/runner.py:1) -> tournaments.play.seeding "
        "(tournaments/play/seeding.py:3) -> tournaments.play.runner",
    ]


BENCH_ONLY = ("eventsourcing",)
"""Libraries of the `bench` extra (pyproject.toml): bench/ may import them, tourney itself never."""


def bench_only_imports(root: Path = ROOT) -> list[str]:
    """Every import of a bench-only library by a checked module, as "file:line imports module"."""
    return [f"{path.relative_to(root)}:{line} imports {target}" for path in project_modules(root)
            for line, target in imports_of(path, root) if target.split(".")[0] in BENCH_ONLY]


def test_no_checked_module_imports_a_bench_only_library():
    """pyeventsourcing is the peer bench/peer_eventstore.py measures against, never a runtime dependency."""
    found = bench_only_imports()
    assert not found, found


def test_the_bench_only_check_sees_an_import_of_one(tmp_path):
    """The check above reports a lazy import of a bench-only library (it cannot pass vacuously)."""
    write_tree(tmp_path, {"ledger/__init__.py": "", "ledger/store.py": "def f():\n    import eventsourcing.sqlite\n"})
    assert bench_only_imports(tmp_path) == ["ledger/store.py:2 imports eventsourcing.sqlite"]


MAX_LINES = 500
"""The longest a checked module may be (issue 42: one role per module, none over 500 lines)."""
TOO_LONG_YET: tuple[str, ...] = ()
"""Modules over MAX_LINES still waiting for their split (issue 42): none may join them; one split leaves the list."""


def too_long(root: Path = ROOT) -> list[str]:
    """Every checked module over MAX_LINES lines, as "path: lines"."""
    found = ((path, len(path.read_text().splitlines())) for path in project_modules(root))
    return [f"{path.relative_to(root)}: {lines}" for path, lines in found if lines > MAX_LINES]


def test_no_module_is_longer_than_the_limit():
    """No checked module but those still waiting for their split is over MAX_LINES lines, and each of those still is
    (a split takes its module off the list)."""
    found = [entry for entry in too_long() if entry.split(":")[0] not in TOO_LONG_YET]
    assert not found, f"modules over {MAX_LINES} lines (split them by role, docs/architecture.md):\n" + "\n".join(found)
    split = set(TOO_LONG_YET) - {entry.split(":")[0] for entry in too_long()}
    assert not split, f"split already, take them off TOO_LONG_YET: {sorted(split)}"


def test_the_length_check_sees_a_long_module(tmp_path):
    """The check above counts lines (it cannot pass vacuously)."""
    write_tree(tmp_path, {"ledger/__init__.py": "", "ledger/long.py": "x = 1\n" * (MAX_LINES + 1),
                          "ledger/short.py": "x = 1\n" * MAX_LINES})
    assert too_long(tmp_path) == [f"ledger/long.py: {MAX_LINES + 1}"]


SAME_NAME_BY_DESIGN = "engines"
"""Each game's package holds the same modules (docs/games/adding-a-game.md): there, one name is one role."""


def shared_names(root: Path = ROOT) -> dict[str, list[str]]:
    """Module file names used by more than one checked module (``__init__.py`` and each game's own files aside)."""
    by_name: dict[str, list[str]] = {}
    for path in project_modules(root):
        relative = path.relative_to(root)
        in_a_game = relative.parts[0] == SAME_NAME_BY_DESIGN and len(relative.parts) > 2
        if path.name != "__init__.py" and not in_a_game:
            by_name.setdefault(path.name, []).append(str(relative))
    return {name: paths for name, paths in by_name.items() if len(paths) > 1}


def test_no_two_modules_share_a_name():
    """A module is imported by its own name, never renamed to tell it from a namesake (issue 42)."""
    assert not shared_names(), shared_names()


def test_a_second_module_of_the_same_name_is_found(tmp_path):
    write_tree(tmp_path, {"ledger/notes.py": "", "replays/notes.py": "", "engines/a/fold.py": "",
                          "engines/b/fold.py": "", "ledger/__init__.py": "", "replays/__init__.py": ""})
    assert shared_names(tmp_path) == {"notes.py": ["ledger/notes.py", "replays/notes.py"]}


BY_GAME = {("engines",): 2, ("adapters", "games"): 1}
"""Folders of modules per game (a package per game, or a module per game) and how deep those are: drawn once for
every game (docs/games/adding-a-game.md lists their files)."""


def undrawn(root: Path = ROOT) -> list[str]:
    """Checked modules whose file name docs/architecture.md's tree does not name (``__init__.py``, the migrations'
    revisions, the shipped bots and the per-game modules aside)."""
    text = (root / "docs" / "architecture.md").read_text()
    missing = []
    for path in project_modules(root):
        parts = path.relative_to(root).parts
        per_game = any(parts[:len(folder)] == folder and len(parts) == len(folder) + depth
                       for folder, depth in BY_GAME.items())
        if path.name == "__init__.py" or parts[0] in ("migrations", "bots") or per_game:
            continue
        if path.name not in text:
            missing.append("/".join(parts))
    return missing


def test_the_architecture_page_draws_every_module():
    """docs/architecture.md's tree names every module, so a newcomer finds each room's files on one page."""
    assert not undrawn(), "modules docs/architecture.md does not name: " + ", ".join(undrawn())


def test_an_undrawn_module_is_found(tmp_path):
    write_tree(tmp_path, {"ledger/drawn.py": "", "ledger/hidden.py": "", "engines/a/fold.py": "",
                          "docs/architecture.md": "ledger/: drawn.py"})
    assert undrawn(tmp_path) == ["ledger/hidden.py"]
