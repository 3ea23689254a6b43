"""The agent factory: what plays one seat of a game, in process or as a (sandboxed) process."""

from __future__ import annotations

from tournaments.bots.inprocess import BuiltinRandom, PythonAgent
from tournaments.bots.spec import BUILTIN, PYTHON, BotSpec, Confinement, Limits
from tournaments.play.protocol import ProgramAgent


def make_agent(spec: BotSpec, game: str, seat: int, seats: int, seed: int, limits: Limits,
               confinement: Confinement, in_worker: bool = False):
    """The agent of one seat: tourney's builtin in process; a Python bot in process only in a worker
    with the sandbox off; every other bot as a process (in its sandbox when it is on)."""
    if spec.kind == BUILTIN:
        return BuiltinRandom(seed)
    if spec.kind == PYTHON and in_worker and not confinement.sandbox:
        return PythonAgent(spec, game, seat, seed, limits, confinement.resources)
    return ProgramAgent(spec, game, seat, seats, seed, limits, confinement)
