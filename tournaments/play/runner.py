"""The tournament runner: schedule, play (in parallel worker processes), store, resume; one name for its parts.

Only the parent process writes to the database: workers play a scheduled game from its
key and send back the sealed records, and the parent stores finished games in groups, one
transaction per group (tournaments.play.writer: a game is stored whole or not at all). A
game that was not stored when the run died is simply played again from the start on
``--resume``; a stored one is never played twice (its key is unique in its
tournament). Every game's seeds derive from its key, so the results of a seed are the
same whatever ``--jobs`` is and in whatever order workers finish.

The organiser's process never runs bot code. With the sandbox on, every bot but tourney's
own builtin plays as a process in its own sandbox (a Python bot through pyhost). With it off,
Python bots play inside worker processes, or through pyhost when this process plays
(``--jobs 0``); a worker that such a bot ends is replaced, and its game recorded as that
bot's forfeit (tournaments.play.salvage).

Each role is a module of its own; this one names them all, as callers have always imported them:

* tournament_spec.py: ``Spec`` (what defines a tournament) and a stored spec's upcast and comparison on resume;
* jobs.py: ``Job`` and ``Result``; agents.py: ``make_agent``; one_game.py: ``play_job``;
* salvage.py: ``after_death`` (a dead worker's game); dispatch.py: ``results`` (here, or a pool of workers);
* naming.py: ``default_namer``, ``known_name``; opening.py: ``open_run`` (create or resume) and ``Run``;
* store_loop.py: ``execute`` (play and store every game still to play), ``close``, bot logs and diagnoses;
* errors.py: ``TournamentError``, ``ExecutorError``.
"""

from __future__ import annotations

from tournaments.play.agents import make_agent
from tournaments.play.create_or_resume import Run, open_run, unfinished
from tournaments.play.dispatch import cpu_count, results
from tournaments.play.jobs import Job, Result
from tournaments.play.naming import Namer, default_namer, known_name
from tournaments.play.one_game import diagnosed, play_job
from tournaments.play.play_errors import ExecutorError, TournamentError
from tournaments.play.salvage import abandon, after_death
from tournaments.play.store_loop import close, diagnosis_row, execute, write_logs
from tournaments.play.tournament_spec import SPEC_OPTIONS, Spec, book_changed

__all__ = [
    "SPEC_OPTIONS", "ExecutorError", "Job", "Namer", "Result", "Run", "Spec", "TournamentError", "abandon",
    "after_death", "book_changed", "close", "cpu_count", "default_namer", "diagnosed", "diagnosis_row", "execute",
    "known_name", "make_agent", "open_run", "play_job", "results", "unfinished", "write_logs",
]
