"""Bots, the bot protocol, schedules, the tournament runner, ratings, ladders and the CLI.

The library's calls (docs/library.md) are named here: ``tournaments.run_tournament``, ``tournaments.run_match`` and
``tournaments.verify`` (with ``tournaments.Observer``, what a run tells as it goes). They are imported when first
used, so that importing a part of the package (the command line's ``--help``) imports no database or game machinery.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Observer", "run_match", "run_tournament", "verify"]


def __getattr__(name: str) -> Any:
    if name in ("Observer", "run_match", "run_tournament"):
        import tournaments.library.runs as runs

        return getattr(runs, name)
    if name == "verify":
        import tournaments.library.verification as verification

        return verification.verify
    raise AttributeError(f"module 'tournaments' has no attribute {name!r}")
