"""The defaults the ladder commands show in their help, kept apart from the machinery.

`tourney ladder ... --help` imports no database library (issue 30.5): the command line reads
this module, which imports nothing, and tournaments.ladder.sessions takes the same value here.
"""

from __future__ import annotations

LEASE = 60.0
"""Seconds a claimed match stays a worker's without renewal (`ladder work --lease`); a worker renews
the leases it holds every third of that, so only a worker that died (or cannot reach the database)
loses one."""
