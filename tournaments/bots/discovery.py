"""Bots from a folder: in-process Python files and programs in any language.

What counts as a bot (docs/bot-protocol.md has the whole contract):

* ``NAME.py`` (not starting with ``_``) defining ``GAMES`` ("*" or a tuple of game names)
  and ``class Bot`` with ``__init__(self, game, seat, rng)`` and ``act(self, turn) -> str``:
  an in-process Python bot. Python files without them are skipped with a notice.
* ``NAME.bot.json``, a manifest ``{"command": [...], "games": [...]}`` (games optional;
  the command runs in the folder): a program speaking the JSON-lines bot protocol.
* any other executable file: a program speaking the protocol, run as is.

A bot's identity is its name (the file name without suffix) and the SHA-256 of its
content (the file, or the manifest plus every file its command names).

Discovery never runs a bot: a Python bot's GAMES and Bot are found by parsing its source
(GAMES must be a literal), so a file with side effects at import does nothing here.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import shutil
from dataclasses import replace
from pathlib import Path

import orjson

from tournaments.bots.spec import MANIFEST_SUFFIX, PROGRAM, PYTHON, BotError, BotSpec


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def discover(folder: str | Path, game: str) -> tuple[list[BotSpec], list[str]]:
    """The bots in ``folder`` that play ``game``, and one notice per file left out."""
    root = Path(folder)
    if not root.is_dir():
        raise BotError(f"{folder}: not a directory of bots")
    specs: list[BotSpec] = []
    notices: list[str] = []
    for path in sorted(root.iterdir()):
        if path.name.startswith((".", "_")) or path.is_dir():
            continue
        try:
            spec = describe(path)
        except BotError as error:
            notices.append(f"skipped {path.name}: {error}")
            continue
        if spec is None:
            continue
        if spec.plays(game) is False:
            notices.append(f"skipped {path.name}: plays {', '.join(spec.games or ())}, not {game}")
            continue
        specs.append(spec)
    return specs, notices


def describe(path: Path) -> BotSpec | None:
    """The BotSpec of one file, None if it is not meant as a bot; BotError if it is broken.

    A Python file is read, never run: its GAMES must be a literal, found by parsing the file.
    """
    if path.suffix == ".py":
        games = _declared_games(path)
        games = ("*",) if games == "*" else tuple(games)
        return BotSpec(path.stem, PYTHON, str(path), sha256_file(path), games, (), str(path.parent.resolve()),
                       (path.name,))
    if path.name.endswith(MANIFEST_SUFFIX):
        return _manifest(path)
    if os.access(path, os.X_OK):
        return BotSpec(path.name.split(".")[0], PROGRAM, str(path), sha256_file(path), None, (f"./{path.name}",),
                       str(path.parent.resolve()), (path.name,))
    return None


def staged_copy(spec: BotSpec, root: Path) -> BotSpec:
    """The bot with its own files copied into a folder of their own under ``root``, readable by
    any user (a sandboxed bot runs as a uid of its own) and safe from changes during the run."""
    target = root / f"{re.sub(r'[^A-Za-z0-9._-]', '_', spec.name)}-{spec.content_hash[:12]}"
    target.mkdir(mode=0o755)
    target.chmod(0o755)
    for name in spec.files:
        source, copy = Path(spec.cwd) / name, target / name
        copy.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        shutil.copyfile(source, copy)
        copy.chmod(0o755 if os.access(source, os.X_OK) else 0o644)
    staged = describe(target / Path(spec.path).name)
    if staged is None or staged.content_hash != spec.content_hash:
        raise BotError(f"{spec.name}: its files changed while tourney read them")
    return replace(staged, name=spec.name)


def _declared_games(path: Path):
    """GAMES and class Bot found by parsing the file, without running any of it."""
    try:
        tree = ast.parse(path.read_bytes(), str(path))
    except (SyntaxError, ValueError) as error:
        raise BotError(f"not valid Python: {error}") from None
    games = None
    has_bot = False
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Bot":
            has_bot = True
        if isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == "Bot" for a in node.names):
            has_bot = True
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) and node.value is not None else []
        if any(isinstance(target, ast.Name) and target.id == "Bot" for target in targets):
            has_bot = True
        if any(isinstance(target, ast.Name) and target.id == "GAMES" for target in targets):
            try:
                games = ast.literal_eval(node.value)
            except ValueError:
                raise BotError('GAMES must be written as a literal ("*" or a tuple of game names)') from None
    if games is None or not has_bot:
        raise BotError("a Python bot defines GAMES and class Bot (see docs/bot-protocol.md)")
    if games != "*" and not (isinstance(games, list | tuple) and all(isinstance(g, str) for g in games)):
        raise BotError('GAMES is "*" or a tuple of game names')
    return games


def _manifest(path: Path) -> BotSpec:
    try:
        manifest = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as error:
        raise BotError(f"manifest is not JSON ({error})") from None
    command = manifest.get("command") if isinstance(manifest, dict) else None
    if isinstance(command, str):
        command = command.split()
    if not (isinstance(command, list) and command and all(isinstance(part, str) for part in command)):
        raise BotError('a manifest names its "command" as a list of strings')
    games = manifest.get("games")
    if games is not None and not (isinstance(games, list) and all(isinstance(g, str) for g in games)):
        raise BotError('"games" must be a list of game names')
    digest = hashlib.sha256(path.read_bytes())
    folder = path.parent.resolve()
    files = [path.name]
    for part in command:
        named = path.parent / part
        if named.is_file():
            digest.update(named.read_bytes())
            inside = named.resolve()
            if inside.is_relative_to(folder) and str(inside.relative_to(folder)) not in files:
                files.append(str(inside.relative_to(folder)))
    name = manifest.get("name") or path.name[: -len(MANIFEST_SUFFIX)]
    return BotSpec(str(name), PROGRAM, str(path), digest.hexdigest(), tuple(games) if games else None,
                   tuple(command), str(folder), tuple(files))


