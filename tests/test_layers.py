"""The import rule of docs/architecture.md ("Allowed imports"), checked on every module.

The table is read from the document itself, so the rule and its description cannot drift
apart. Every import counts, at the top of a module or inside a function (a lazy import
breaks a layer just as much).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

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
    """Whether layer ``source`` may import layer ``target`` (a listed layer admits its sublayers)."""
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
            if target_layer is None or not may_import(source, target_layer, table):
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
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    broken = violations(tmp_path)
    assert any(b.startswith("engines/base.py:2 (engines) imports ledger.store") for b in broken), broken
    assert any(b.startswith("ledger/store.py:1 (ledger) imports tournaments.play") for b in broken), broken
    assert any(b.startswith("tournaments/play/runner.py:1 (tournaments.play) imports web.app") for b in broken), broken
    assert any(b.startswith("adapters/pettingzoo.py:1 (adapters) imports tournaments.play") for b in broken), broken
    assert not any(b.startswith("web/") for b in broken), broken
    assert len(broken) == 4, broken


@pytest.mark.parametrize("game", sorted(p.name for p in (ROOT / "engines").iterdir() if (p / "__init__.py").is_file()))
def test_no_import_circle_inside_a_game_package(game):
    """The modules of one game package import each other without a circle (the package's __init__ aside)."""
    package = f"engines.{game}"
    graph = {}
    for path in sorted((ROOT / "engines" / game).glob("*.py")):
        if path.name == "__init__.py":
            continue
        inside = {t for _, t in imports_of(path) if t.startswith(package + ".") and existing_module(t)}
        graph[module_name(path)] = inside
    state: dict[str, int] = {}  # 1 visiting, 2 done

    def visit(module: str, trail: list[str]) -> None:
        if state.get(module) == 2:
            return
        assert state.get(module) != 1, "import circle: " + " -> ".join([*trail, module])
        state[module] = 1
        for target in sorted(graph.get(module, ())):
            visit(target, [*trail, module])
        state[module] = 2

    for module in graph:
        visit(module, [])
