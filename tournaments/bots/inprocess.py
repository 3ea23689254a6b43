"""Python bots in the playing process: loading a bot file, its agent, and the move-time alarm.

Only a process that plays games (a worker, or ``--jobs 0``'s own process) loads a bot
file; ``load_module`` keeps one module per file per process.
"""

from __future__ import annotations

import hashlib
import importlib.util
import random
import signal
import sys
import threading
import time
from types import ModuleType
from typing import Any

from engines.driver import BotFailure, Turn
from tournaments.bots.spec import BotError, BotSpec, Limits

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
