"""Confinement: the limits and the sandbox every ladder game runs under (no option relaxes them)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from tournaments.bots.spec import Resources
from tournaments.ladder.ladder_errors import Unavailable
from tournaments.sandbox import sandbox

CPU_SECONDS = Resources().cpu_seconds
"""RLIMIT_CPU of a ladder bot's process, per game."""
MEMORY_MB = Resources().memory_mb
"""RLIMIT_AS of a ladder bot's process."""
MAX_PROCESSES = Resources().max_processes
"""RLIMIT_NPROC of a ladder bot's sandbox."""


@dataclass(frozen=True, slots=True)
class Limits:
    move_time: float = 1.0
    time_bank: float = 5.0
    cpu_seconds: int = CPU_SECONDS
    memory_mb: int = MEMORY_MB
    max_processes: int = MAX_PROCESSES

    @property
    def resources(self) -> Resources:
        return Resources(memory_mb=self.memory_mb, cpu_seconds=self.cpu_seconds, max_processes=self.max_processes)


def confined() -> dict[str, Any]:
    """How a ladder's games are confined (Spec's fields): sandboxed, timed and frozen as strictly as
    this machine allows (the CPU clock and no pondering with cgroups); no option relaxes it."""
    clock, ponder = sandbox.timing()
    return {"sandbox": True, "clock": clock, "ponder": ponder}


def require_sandbox() -> None:
    """Ladders run strangers' bots: without a working sandbox they refuse (one line saying how to get it)."""
    problem = sandbox.unavailable()
    if problem is not None:
        raise Unavailable(f"ladders run every bot in a sandbox, and {problem}")


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
