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
import importlib.util
import os
import random
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson

from engines.driver import BotFailure, Turn

PYTHON = "python"
PROGRAM = "program"
BUILTIN = "builtin"
"""A bot that ships inside tourney (the ladder's validation opponent): BuiltinRandom."""
MANIFEST_SUFFIX = ".bot.json"


class BotError(ValueError):
    """A bots folder or bot file that cannot be used; the message is one clear line."""


@dataclass(frozen=True, slots=True)
class BotSpec:
    """Everything needed to start a bot in any process: picklable, no live objects."""

    name: str
    kind: str
    path: str
    content_hash: str
    games: tuple[str, ...] | None = None
    """Games the bot declares ("*" as a one-item tuple means all); None: ask at the handshake."""
    command: tuple[str, ...] = ()
    cwd: str = "."
    cpu_seconds: int | None = None
    """A program's CPU-time limit (RLIMIT_CPU) per game process; None: no limit (ladders set one)."""
    memory_mb: int | None = None
    """A program's address-space limit (RLIMIT_AS) in MiB; None: no limit."""

    def plays(self, game: str) -> bool | None:
        if self.games is None:
            return None
        return "*" in self.games or game in self.games


@dataclass(slots=True)
class Limits:
    """Time limits: each move may take ``move_time``; overage is paid from a per-game bank."""

    move_time: float = 1.0
    time_bank: float = 5.0
    bank_left: float = field(default=-1.0)

    def __post_init__(self) -> None:
        if self.bank_left < 0:
            self.bank_left = self.time_bank

    @property
    def allowed(self) -> float:
        """The longest the next move may take before the bot forfeits."""
        return self.move_time + self.bank_left

    def charge(self, took: float) -> None:
        """Take a move's overage from the bank; BotFailure when it runs out."""
        if took > self.move_time:
            self.bank_left -= took - self.move_time
        if self.bank_left < 0:
            raise BotFailure(
                f"timed out: took {took:.2f} s with move time {self.move_time:g} s and the time bank spent"
            )


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


_modules: dict[str, ModuleType] = {}


def load_module(path: str) -> ModuleType:
    """Import a bot file once per process (under a private module name)."""
    module = _modules.get(path)
    if module is not None:
        return module
    name = "tourney_bot_" + hashlib.sha256(path.encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise BotError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # a broken bot file must not take the tournament down
        raise BotError(f"import failed: {type(error).__name__}: {error}") from None
    sys.modules[name] = module
    _modules[path] = module
    return module


class _Timeout(BaseException):
    """Raised inside a Python bot's act() by the alarm; BaseException so bots cannot swallow it easily."""


class Terminated(SystemExit):
    """The worker process is told to stop (SIGTERM): unwinds through a bot's act(), never a forfeit."""


def _ring(_signum, _frame) -> None:
    raise _Timeout


def _alarm_ready() -> bool:
    """Whether moves can be interrupted here: the main thread of a system with setitimer.

    The handler is installed once per process (not per move: signal.signal costs more than
    a whole move of a fast bot); elsewhere a move's time is only measured.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return False
    if signal.getsignal(signal.SIGALRM) is not _ring:
        signal.signal(signal.SIGALRM, _ring)
    return True


class BuiltinRandom:
    """Chooses uniformly among the legal actions with its seeded RNG (bots/random_bot.py's rule)."""

    def __init__(self, seed: int) -> None:
        self.choice = random.Random(seed).choice

    def act(self, turn: Turn) -> str:
        return self.choice(turn.legal)

    def close(self) -> None:
        pass


class PythonAgent:
    """An in-process Python bot, with its own seeded RNG and the same time limits."""

    def __init__(self, spec: BotSpec, game: str, seat: int, seed: int, limits: Limits) -> None:
        self.spec = spec
        self.limits = limits
        self.timer = _alarm_ready()
        try:
            self.bot: Any = load_module(spec.path).Bot(game, seat, random.Random(seed))
            self.failure = None
        except Exception as error:  # reported at its first turn, as a forfeit
            self.bot = None
            self.failure = f"crashed while starting: {type(error).__name__}: {error}"

    def act(self, turn: Turn) -> str:
        if self.failure:
            raise BotFailure(self.failure)
        timer = self.timer
        began = time.perf_counter()
        try:
            if timer:
                signal.setitimer(signal.ITIMER_REAL, max(self.limits.allowed, 0.001))
            try:
                action = self.bot.act(turn)
            finally:
                if timer:
                    signal.setitimer(signal.ITIMER_REAL, 0)
        except _Timeout:
            raise BotFailure(f"timed out after {time.perf_counter() - began:.2f} s") from None
        except (BotFailure, Terminated):
            raise
        except (Exception, SystemExit) as error:  # sys.exit() in a bot must not end the tournament
            raise BotFailure(f"crashed: {type(error).__name__}: {error}") from None
        self.limits.charge(time.perf_counter() - began)
        return action

    def close(self) -> None:
        pass
