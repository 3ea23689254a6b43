"""Python bots in the playing process: loading a bot file, its agent, and the move-time alarm.

A Python bot's code runs only in a process that plays games: tourney's host for one bot
(``pyhost``, in the sandbox or not) or, with ``--sandbox off``, a worker process. Never in
the organiser's process (discovery reads a bot's GAMES from its source). ``load_module``
keeps one module per file per process.

The words a failing bot gets (``start_bot``, ``crash``) are the same in process and in
pyhost, so that a tournament's results do not depend on where its Python bots ran.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import random
import signal
import sys
import threading
import time
from dataclasses import replace
from types import ModuleType
from typing import Any

from engines.driver import BotFailure, Turn
from tournaments.bots import diagnosis
from tournaments.bots.spec import BotSpec, Limits

STARTUP_SECONDS = 10.0
"""How long an in-process bot may take to import and construct (as a program's handshake)."""

_modules: dict[str, ModuleType] = {}


class _Timeout(BaseException):
    """Raised inside a Python bot's code by the alarm; BaseException so bots cannot swallow it easily."""


def crash(error: BaseException) -> str:
    """How a bot's exception is reported: ``crashed: RuntimeError: the bot tripped over its tail``."""
    return f"crashed: {type(error).__name__}: {error}"


class BotCrash(BotFailure):
    """A Python bot's own exception as its failure: the reason (public, in the game's forfeit) and
    its traceback (private: a diagnosis.Diagnosis)."""

    def __init__(self, reason: str, told: diagnosis.Diagnosis) -> None:
        super().__init__(reason)
        self.diagnosis = told

    def __reduce__(self):
        return BotCrash, (str(self), self.diagnosis)


def crashed(error: BaseException, path: str, starting: bool = False) -> BotCrash:
    """A bot's exception as a BotCrash: ``crash``'s words (``crashed while starting: ...`` while its file is
    imported or its Bot constructed) and the traceback from its file's first frame on."""
    reason = f"crashed while starting: {type(error).__name__}: {error}" if starting else crash(error)
    return BotCrash(reason, diagnosis.of_exception(error, path))


_compiled: dict[str, Any] = {}


def compile_module(path: str) -> None:
    """Read and compile a bot file ahead of its import (nothing of it runs): a warm sandbox's bot
    does this while it waits for its game (tournaments.sandbox.zygote). A file that does not compile
    fails, as before, when it is imported."""
    name = "tourney_bot_" + hashlib.sha256(path.encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is not None and spec.loader is not None:
        with contextlib.suppress(BaseException):  # the import says why, in the bot's words
            _compiled[path] = spec.loader.get_code(name)


def load_module(path: str) -> ModuleType:
    """Import a bot file once per process (under a private module name); BotFailure if that fails.

    Anything it raises, SystemExit and BaseException included, is the bot's failure.
    """
    module = _modules.get(path)
    if module is not None:
        return module
    name = "tourney_bot_" + hashlib.sha256(path.encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise BotFailure(f"crashed while starting: cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    code = _compiled.pop(path, None)
    try:
        if code is not None:
            sys.modules[name] = module
            exec(code, module.__dict__)
        else:
            spec.loader.exec_module(module)
    except _Timeout:
        raise
    except BaseException as error:  # a broken bot file must not take its process down
        raise crashed(error, path, starting=True) from None
    sys.modules[name] = module
    _modules[path] = module
    return module


def start_bot(path: str, game: str, seat: int, seed: int) -> Any:
    """Import a bot file and construct its Bot for one game; BotFailure with the reason if either fails."""
    module = load_module(path)
    try:
        return module.Bot(game, seat, random.Random(seed))
    except _Timeout:
        raise
    except BaseException as error:
        raise crashed(error, path, starting=True) from None


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
    """An in-process Python bot (only in a worker, with the sandbox off), with the same time limits.

    The bot is imported and constructed at its first turn, under an alarm of
    ``STARTUP_SECONDS``, so that a worker that dies while it starts knows which seat it was.
    """

    def __init__(self, spec: BotSpec, game: str, seat: int, seed: int, limits: Limits) -> None:
        self.spec = spec
        self.limits = limits
        self.timer = _alarm_ready()
        self.start = (spec.path, game, seat, seed)
        self.bot: Any = None
        self.told: diagnosis.Diagnosis | None = None
        """The traceback of the bot's exception, once it has failed with one."""

    def act(self, turn: Turn) -> str:
        timer = self.timer
        if self.bot is None:
            began = time.perf_counter()
            try:
                if timer:
                    signal.setitimer(signal.ITIMER_REAL, STARTUP_SECONDS)
                try:
                    self.bot = start_bot(*self.start)
                finally:
                    if timer:
                        signal.setitimer(signal.ITIMER_REAL, 0)
            except BotCrash as failure:
                self.told = failure.diagnosis
                raise
            except _Timeout:
                raise BotFailure(f"timed out while starting after {time.perf_counter() - began:.2f} s") from None
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
            raise BotFailure(f"timed out after {time.perf_counter() - began:.2f} s{self.limits.told()}") from None
        except BotFailure:
            raise
        except BaseException as error:  # sys.exit() in a bot must not end the tournament
            failure = crashed(error, self.spec.path)
            self.told = failure.diagnosis
            raise failure from None
        self.limits.charge(time.perf_counter() - began)
        return action

    def diagnosed(self, seat: int) -> diagnosis.Diagnosis | None:
        """The traceback of the bot's exception, if it failed with one (its prints went to the worker's stderr)."""
        return None if self.told is None else replace(self.told, seat=seat)

    def close(self) -> None:
        pass
