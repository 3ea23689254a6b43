"""The defaults `tourney run` and `tourney match` show in their help, kept apart from the machinery.

`tourney --help` and every command's `--help` import no database library (issue 30.5): the
command line builds its options from this module, which imports nothing, and the modules that
play (runner, executors, match) take the same values from here, so each is written once.
"""

from __future__ import annotations

DEFAULT_GAMES = 2
"""Deals per table of `tourney run` unless --games says otherwise. The README's main job (the five
shipped Tails on Fire bots, ISMCTS among them: 5 tables of 4, every deal from 4 seats) is then 40
games, and fits a minute with its install (docs/benchmarks.md, bench/main_job.py)."""

LOCAL = "local"
RAY = "ray"
EXECUTORS = (LOCAL, RAY)

MATCH = "match"
BATCH = 10
"""Deals per SPRT look: the LLR is checked after every 10 pairs (or blocks)."""
FIXED_DEALS = 100
"""Deals of a match without --sprt unless --games says otherwise."""
SPRT_DEALS = 20_000
"""The most deals an SPRT match plays unless --games says otherwise (then it ends undecided)."""

CURVATURE = "curvature"
BOOTSTRAP = "bootstrap"
INTERVALS = (CURVATURE, BOOTSTRAP)
"""How standings find Elo's 95% interval: from the fit's curvature (the default; no game is read) or by the
bootstrap (200 resamples of games, as before; it reads every game's result: slower, memory per game)."""

REPORT_SECONDS = 1.0
"""Seconds at least between two running reports of `tourney run` (``--report-seconds``)."""
