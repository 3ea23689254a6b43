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
import io
import random
import resource
import signal
import sys
import threading
import time
from dataclasses import replace
from types import ModuleType
from typing import Any

from engines.driver import BotFailure, Turn
from tournaments.bots import diagnosis
from tournaments.bots.spec import BotSpec, Limits, Resources

STARTUP_SECONDS = 10.0
"""How long an in-process bot may take to import and construct (as a program's handshake)."""
PRINTED_TAIL = 64 * 1024
"""The end of what an in-process bot printed in a game that its agent keeps (as of a program's stderr)."""

_modules: dict[str, ModuleType] = {}


class _Timeout(BaseException):
    """Raised inside a Python bot's code by the alarm; BaseException so bots cannot swallow it easily."""


def crash(error: BaseException, starting: bool = False) -> str:
    """How a bot's exception is reported: ``crashed: RuntimeError: the bot tripped over its tail`` (one with no
    message by its type alone, ``crashed: ValueError``; ``crashed while starting: ...`` while it starts)."""
    said = str(error)
    return f"crashed{' while starting' if starting else ''}: {type(error).__name__}{': ' + said if said else ''}"


class BotCrash(BotFailure):
    """A Python bot's own exception as its failure: the reason (public, in the game's forfeit) and
    its traceback (private: a diagnosis.Diagnosis)."""

    def __init__(self, reason: str, told: diagnosis.Diagnosis) -> None:
        super().__init__(reason)
        self.diagnosis = told

    def __reduce__(self):
        return BotCrash, (str(self), self.diagnosis)


def crashed(error: BaseException, path: str, starting: bool = False, called: object = None) -> BotCrash:
    """A bot's exception as a BotCrash: ``crash``'s words (``crashed while starting: ...`` while its file is
    imported or its Bot constructed) and the traceback from its file's first frame on (``called``: what tourney
    called, to place a TypeError of the call itself at its ``def``: diagnosis.of_exception)."""
    return BotCrash(crash(error, starting), diagnosis.of_exception(error, path, called))


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
        raise crashed(error, path, starting=True,
                      called=diagnosis.attribute(diagnosis.attribute(module, "Bot"), "__init__")) from None


def _ring(_signum, _frame) -> None:
    raise _Timeout("the move's time ran out here")


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


@contextlib.contextmanager
def _held(size: int) -> Any:
    """This process's address space held to ``size`` bytes (RLIMIT_AS's soft limit, as pyhost's whole process is
    held without the sandbox: tournaments.sandbox.supervisor), then given back what it had."""
    before = resource.getrlimit(resource.RLIMIT_AS)
    hard = before[1]
    resource.setrlimit(resource.RLIMIT_AS, (size if hard == resource.RLIM_INFINITY else min(size, hard), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, before)


def _stuck(error: _Timeout, path: str) -> diagnosis.Diagnosis:
    """Where a bot was when its time ran out: the alarm's traceback from the bot's first frame on, as
    ``timed out at mybot.py line 12, in act`` (the alarm's own frame, tourney's, cut from its end)."""
    frame = error.__traceback__
    while frame is not None and frame.tb_next is not None:
        if frame.tb_next.tb_frame.f_code is _ring.__code__:
            frame.tb_next = None
        else:
            frame = frame.tb_next
    told = diagnosis.of_exception(error, path)
    return diagnosis.bounded(diagnosis.TRACEBACK, "timed out", told.detail, where=told.where)


class _Printed(io.TextIOBase):
    """An in-process bot's sys.stdout and sys.stderr while its code runs: what it writes is kept (its end) and passed
    on to the worker's stderr, where a closed pipe (`tourney run ... 2>&1 | head`) is not the bot's failure."""

    def __init__(self) -> None:
        super().__init__()
        self.tail = bytearray()
        self.on: Any = None

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.keep(text)
        with contextlib.suppress(OSError, ValueError):
            self.on.write(text)
        return len(text)

    def flush(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.on.flush()

    def keep(self, text: str) -> None:
        self.tail += text.encode("utf-8", "replace")
        if len(self.tail) > 2 * PRINTED_TAIL:
            del self.tail[:-PRINTED_TAIL]


class BuiltinRandom:
    """Chooses uniformly among the legal actions with its seeded RNG (bots/random_bot.py's rule)."""

    def __init__(self, seed: int) -> None:
        self.choice = random.Random(seed).choice

    def act(self, turn: Turn) -> str:
        return self.choice(turn.legal)

    def close(self) -> None:
        pass


class PythonAgent:
    """An in-process Python bot (only in a worker, with the sandbox off), with the same limits as pyhost's.

    The bot is imported and constructed at its first turn, under an alarm of
    ``STARTUP_SECONDS``, so that a worker that dies while it starts knows which seat it was.
    While its code runs (and only then: the worker's own code is tourney's, as pyhost's parent is),
    the worker's address space is held to ``resources.memory_mb`` (``_held``), pyhost's RLIMIT_AS.
    """

    def __init__(self, spec: BotSpec, game: str, seat: int, seed: int, limits: Limits,
                 resources: Resources | None = None) -> None:
        self.spec = spec
        self.limits = limits
        self.memory = (resources or Resources()).memory_mb * 1024 * 1024
        self.timer = _alarm_ready()
        self.start = (spec.path, game, seat, seed)
        self.bot: Any = None
        self.told: diagnosis.Diagnosis | None = None
        """The traceback of the bot's exception (or where it was when its time ran out), once it has failed."""
        self.printed = _Printed()

    def act(self, turn: Turn) -> str:
        if self.bot is None:
            began = time.perf_counter()
            try:
                self.bot = self._run(start_bot, self.start, STARTUP_SECONDS)
            except BotCrash as failure:
                self.told = failure.diagnosis
                raise
            except _Timeout as error:
                self.told = _stuck(error, self.spec.path)
                raise BotFailure(f"timed out while starting after {time.perf_counter() - began:.2f} s") from None
        began = time.perf_counter()
        try:
            action = self._run(self.bot.act, (turn,), max(self.limits.allowed, 0.001))
        except _Timeout as error:
            self.told = _stuck(error, self.spec.path)
            made_of = f" ({allowance})" if (allowance := self.limits.allowance()) else ""
            raise BotFailure(f"timed out after {time.perf_counter() - began:.2f} s{made_of}{self.limits.told()}"
                             ) from None
        except BotFailure:
            raise
        except BaseException as error:  # sys.exit() in a bot must not end the tournament
            failure = crashed(error, self.spec.path, called=diagnosis.attribute(self.bot, "act"))
            self.told = failure.diagnosis
            raise failure from None
        self.limits.charge(time.perf_counter() - began)
        return action

    def _run(self, call: Any, args: tuple, seconds: float) -> Any:
        """``call(*args)``: the bot's code, under the alarm (``seconds``) and its memory limit, its prints kept."""
        printed, streams = self.printed, (sys.stdout, sys.stderr)
        printed.on = sys.stderr
        sys.stdout = sys.stderr = printed
        try:
            with _held(self.memory):
                if self.timer:
                    signal.setitimer(signal.ITIMER_REAL, seconds)
                try:
                    return call(*args)
                finally:
                    if self.timer:
                        signal.setitimer(signal.ITIMER_REAL, 0)
        finally:
            sys.stdout, sys.stderr = streams

    def stderr(self) -> bytes:
        """The end of what the bot printed in this game, then its traceback if it failed with one (as pyhost's
        stderr has them)."""
        if self.told is None:
            return bytes(self.printed.tail)
        return bytes(self.printed.tail) + f"{self.told.detail.rstrip()}\n".encode("utf-8", "replace")

    def diagnosed(self, seat: int) -> diagnosis.Diagnosis | None:
        """The traceback of the bot's exception or timeout, if it failed so (its prints are in ``stderr()``)."""
        return None if self.told is None else replace(self.told, seat=seat)

    def close(self) -> None:
        pass
