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
"""

from __future__ import annotations

import ast
import hashlib
import os
from pathlib import Path

import orjson

from tournaments.bots.inprocess import load_module
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


def describe(path: Path, *, untrusted: bool = False) -> BotSpec | None:
    """The BotSpec of one file, None if it is not meant as a bot; BotError if it is broken.

    An ``untrusted`` Python file (a ladder submission) is read, never run: its GAMES must
    then be a literal, found by parsing the file.
    """
    if path.suffix == ".py":
        games = _declared_games(path) if untrusted else _imported_games(path)
        games = ("*",) if games == "*" else tuple(games)
        return BotSpec(path.stem, PYTHON, str(path), sha256_file(path), games)
    if path.name.endswith(MANIFEST_SUFFIX):
        return _manifest(path)
    if os.access(path, os.X_OK):
        return BotSpec(path.name.split(".")[0], PROGRAM, str(path), sha256_file(path), None,
                       (str(path.resolve()),), str(path.parent.resolve()))
    return None


def _imported_games(path: Path):
    module = load_module(str(path))
    games = getattr(module, "GAMES", None)
    if games is None or not hasattr(module, "Bot"):
        raise BotError("a Python bot defines GAMES and class Bot (see docs/bot-protocol.md)")
    return games


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
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) and node.value is not None else []
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
    for part in command:
        named = path.parent / part
        if named.is_file():
            digest.update(named.read_bytes())
    name = manifest.get("name") or path.name[: -len(MANIFEST_SUFFIX)]
    return BotSpec(str(name), PROGRAM, str(path), digest.hexdigest(), tuple(games) if games else None,
                   tuple(command), str(path.parent.resolve()))


