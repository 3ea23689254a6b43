"""The store loop: a run's games played stage by stage (tournaments.play.dispatch, or an executor) and stored by
this process alone, in groups (tournaments.play.writer), each once; checkpoints, bot logs and diagnoses beside
them; the tournament closed (its drawn seed revealed) when it is over."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ledger import checkpoints
from ledger.rows import game_rows, tournament_rows
from ledger.store import Ledger, LedgerError
from replays.archive import finished_game
from tournaments.bots import diagnosis
from tournaments.play import standings
from tournaments.play.create_or_resume import Run
from tournaments.play.dispatch import results
from tournaments.play.jobs import Result
from tournaments.play.play_errors import TournamentError
from tournaments.play.writer import MAX_GAMES, GroupCommit

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection


def execute(ledger: Ledger, run: Run, workers: int, progress: Callable[[int], None] | None = None,
            bot_logs: Path | None = None, notice: Callable[[str], None] | None = None, executor: Any = None,
            finished: Callable[[Result], None] | None = None) -> int:
    """Play and store every game still to play, stage by stage; returns how many were stored.

    The games are played by ``executor`` (tournaments.play.executors.choice; None: the local pool of
    ``workers`` processes); this process alone stores them, each once.
    With ``bot_logs``, the end of each bot process's stderr in each stored game is written there
    (``write_logs``). A forfeiting bot's diagnosis is stored with its game. A worker's death is told to
    ``notice``. ``finished`` is told each game this run stored, as soon as it is stored (the command's
    line per game), before ``progress``.

    A signed checkpoint is appended every ``checkpoints.EVERY`` games and when the run stops
    (done, interrupted or failed); once the tournament is over, the last one says so and a
    drawn seed is revealed (``run.revealed``).
    """
    bot_ids: dict[str, int] = {}
    with ledger.write() as connection:
        for bot in run.spec.bots:
            bot_ids[bot.name] = ledger.ensure_bot(bot.name, bot.content_hash, bot.kind, connection)
    unusable = bot_logs and unwritable(bot_logs)
    if unusable:
        raise TournamentError(f"cannot write bot logs to {bot_logs}: {unusable}")
    stored = 0

    def store(connection: Connection, group: list[Result]) -> None:
        # The logs first: a diagnosis stored with its game names a log file that is there.
        if bot_logs is not None:
            group = [replace(result, logs=logged(result)) for result in group]
            for result in group:
                write_logs(bot_logs, result.key, result.logs, result.bots())
        ledger.store_games([finished_game(r.recorded, [bot_ids[s.name] for s in r.recorded.seats], r.scores,
                                          run.tournament["id"], r.key) for r in group], connection)
        game_rows.store_diagnoses(connection, [diagnosis_row(r, r.diagnosis, r.key, bot_logs) for r in group
                                               if r.diagnosis is not None])

    def alone(result: Result) -> bool:
        try:
            with ledger.write() as connection:
                store(connection, [result])
        except LedgerError:
            if result.key not in run.stored:
                raise
            return False  # another process resumed the same tournament and stored it first (the same game)
        return True

    def committed(result: Result, new: bool) -> None:
        nonlocal stored
        if new:
            stored += 1
            if stored % checkpoints.EVERY == 0:
                checkpoints.write(ledger, tournament_rows.scope(run.tournament))
                standings.refresh_fit(ledger, run.tournament["id"])  # readers then read it, never refit it
        if new and finished is not None:
            finished(result)
        if progress is not None:
            progress(stored)

    walked = False
    try:
        # The plan is walked a stage at a time and each stage a page at a time (Run.stages, Run.jobs): the jobs are
        # made as the executor draws them, and the stored results read from the ledger a page at a time, so what
        # this process holds does not grow with the tournament's games.
        for stage in run.stages():
            jobs = run.jobs(stage, bot_logs is not None)
            played = results(jobs, workers, notice) if executor is None else executor.results(jobs, notice)
            # Played here (no workers), a game is stored as it ends: nothing overlaps the storing to
            # save, and an interruption (the progress callback, Ctrl-C) then finds no game held back.
            here = executor is None and workers <= 0
            writer = GroupCommit(ledger, store, alone, committed, max_games=1 if here else MAX_GAMES)
            try:
                for result in played:
                    writer.add(result)
            finally:
                writer.flush()  # the games finished so far are kept, whatever stopped the stage
        walked = True
    finally:
        # A walk that reached its end found every stage stored (Run.stages gives a stage until it is): over, with
        # no second walk of the whole plan; stopped on the way (Ctrl-C, a failure), close walks it to know.
        close(ledger, run, True if walked else None)
    return stored


def close(ledger: Ledger, run: Run, over: bool | None = None) -> None:
    """Checkpoint what is stored; once the tournament is over (``over``; None: walk the plan to know), say so and
    reveal a drawn seed."""
    if over is None:
        over = run.over()
    checkpoints.write(ledger, tournament_rows.scope(run.tournament), over)
    standings.refresh_fit(ledger, run.tournament["id"])
    if over and run.spec.drawn and tournament_rows.reveal(ledger, run.tournament["id"], run.spec.seed):
        run.revealed = run.spec.seed
        run.tournament = tournament_rows.get(ledger, str(run.tournament["id"]))


def write_logs(folder: Path, name: str, logs: tuple[bytes | None, ...] | None, bots: list[str]) -> None:
    """One file per seat that was a bot process, the end of its stderr, in a folder per bot:
    ``<bot>/<name>-seat<N>.log`` (``name``: the game's key, or a ladder game's id). The name it had
    before (``<name>-seat<N>.log``, at the top) is kept as a link to it (docs/tournaments.md)."""
    for seat, log in enumerate(logs or ()):
        if log is None:
            continue
        path = diagnosis.log_path(folder, bots[seat], name, seat)
        link = folder / path.name
        try:
            path.parent.mkdir(exist_ok=True)
            path.write_bytes(log)
            if link.is_symlink() or link.exists():
                link.unlink()
            link.symlink_to(path.relative_to(folder))
        except OSError as error:
            raise TournamentError(f"cannot write bot logs to {folder}: {error.strerror or error}") from None


def logged(result: Result) -> tuple[bytes | None, ...] | None:
    """A result's logs, the forfeiting seat's its diagnosis's detail when it has no stderr of its own (a Python bot
    in a worker, whose prints went to the worker's: what tourney has of it is its traceback, which pyhost writes on
    its stderr too)."""
    logs, told = result.logs, result.diagnosis
    if logs is None or told is None or logs[told.seat] is not None:
        return logs
    return (*logs[:told.seat], f"{told.detail.rstrip()}\n".encode("utf-8", "replace"), *logs[told.seat + 1:])


def diagnosis_row(result: Result, told: diagnosis.Diagnosis, name: str, bot_logs: Path | None
                  ) -> tuple[str, int, str, str, str, str | None]:
    """What ledger.rows.game_rows.store_diagnoses keeps of a result's diagnosis ``told``: with the absolute path of the
    seat's log, if --bot-logs wrote one (``name``: the game's key, or a ladder game's id)."""
    kept = bot_logs is not None and result.logs is not None and result.logs[told.seat] is not None
    log = (str(diagnosis.log_path(bot_logs.resolve(), result.bots()[told.seat], name, told.seat))
           if bot_logs is not None and kept else None)
    return (result.recorded.game_id, told.seat, told.kind, told.summary, told.detail, log)


def unwritable(folder: Path) -> str | None:
    """Make ``folder`` (and its parents) if missing; why files cannot be written in it (one clause), or None. For
    every folder a command writes files into (--bot-logs, --out), checked before anything is played or written."""
    if folder.exists() and not folder.is_dir():
        return "a file is there, not a folder"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return f"cannot make the folder ({error.strerror or error})"
    if not os.access(folder, os.W_OK | os.X_OK):
        return "the folder is not writable"
    return None
