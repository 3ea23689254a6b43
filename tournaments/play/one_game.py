"""One game: a job played to its end by its seats' agents and sealed (in a worker or the parent)."""

from __future__ import annotations

from typing import Any

from engines import registry
from engines.driver import play
from replays.record import SeatInfo, record
from tournaments.bots import diagnosis
from tournaments.bots.inprocess import PythonAgent
from tournaments.play import salvage
from tournaments.play.agents import make_agent
from tournaments.play.executors.local_pool import box
from tournaments.play.jobs import Job, Result
from tournaments.play.protocol import ProgramAgent


def play_job(job: Job, in_worker: bool = False) -> Result:
    """Play one scheduled game to the end and seal it (runs in a worker or the parent)."""
    spec, scheduled = job.spec, job.scheduled
    engine = registry.get(spec.game)
    config = engine.configure(spec.players, spec.options)
    by_name = {bot.name: bot for bot in spec.bots}
    seated = [by_name[name] for name in scheduled.bots]
    agents: list[Any] = []
    memory = box()
    recorder = salvage.FlightRecorder(memory) if memory is not None else None
    try:
        for seat, bot in enumerate(seated):
            agents.append(make_agent(bot, spec.game, seat, spec.players, scheduled.bot_seed(spec.seed, seat),
                                     spec.limits(), spec.confinement, in_worker))
        played = play(engine, config, scheduled.seed, _flight_recorded(agents, recorder))
    finally:
        for agent in agents:
            agent.close()
        if recorder is not None:
            recorder.programs(())  # all reaped: nothing left for the parent to kill
    recorded = record(engine, config, scheduled.seed, played, [SeatInfo(b.name, b.content_hash) for b in seated])
    scores = engine.scores(played.state)
    logs = tuple(agent.stderr() if isinstance(agent, ProgramAgent | PythonAgent) else None for agent in agents)
    return Result(scheduled.key, recorded, None if scores is None else list(scores),
                  logs if job.keep_logs else None, diagnosed(agents, played.outcome.forfeit_seat))


def diagnosed(agents: list[Any], seat: int | None) -> diagnosis.Diagnosis | None:
    """The forfeiting seat's diagnosis (after its agent closed), if its bot left one."""
    if seat is None or seat >= len(agents) or not hasattr(agents[seat], "diagnosed"):
        return None
    return agents[seat].diagnosed(seat)


def _flight_recorded(agents: list[Any], recorder: salvage.FlightRecorder | None) -> list[Any]:
    """In a worker: the bot programs' process groups go into the game's flight record, and, if a bot
    in process could end the worker, every turn too (tournaments.play.salvage)."""
    if recorder is None:
        return agents
    # A sandbox's guard (recorded negated) is told to end its sandbox: a frozen cgroup must be thawed
    # before its processes can die, which the guard does; SIGKILL to its group would leave them frozen.
    recorder.programs([-agent.process.process.guard if agent.process.sandboxed else agent.process.process.pid
                       for agent in agents if isinstance(agent, ProgramAgent) and agent.process is not None])
    if not any(isinstance(agent, PythonAgent) for agent in agents):
        return agents
    return [salvage.RecordingAgent(agent, seat, recorder) for seat, agent in enumerate(agents)]
