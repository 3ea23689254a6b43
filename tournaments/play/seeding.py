"""A tournament's seed: drawn and kept secret until the end, or chosen by the organiser; its default name.

Without ``--seed`` a new tournament draws a 256-bit seed with the ledger key (ledger.seeds):
its spec and row keep only the commitment, and the seed is computed again from the ledger
key when the run resumes, so it is written nowhere a bot or a reader of the database could
find it while play goes on. It never reaches a bot: each bot gets its own seed, derived
from the tournament seed, the game's key and its seat (Scheduled.bot_seed), which tells
nothing of the deals. The runner reveals it once every scheduled game is stored.

``--seed S`` is recorded as chosen by the organiser. A tournament stored before drawn
seeds (its spec holds its seed, often the old default "1") resumes with that seed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Protocol, TypeVar

from ledger import seeds
from ledger.canonical import loads
from ledger.rows import tournament_rows
from ledger.signing_keys import LedgerKey
from ledger.store import Ledger


class Seeded(Protocol):
    """What this module reads and replaces of a spec (tournaments.play.runner.Spec, a frozen dataclass), named
    here so that it needs nothing of the runner, which imports it."""

    @property
    def seed(self) -> str | None: ...

    @property
    def drawn(self) -> bool: ...


Spec = TypeVar("Spec", bound=Seeded)


class SeedMismatch(ValueError):
    """A resume whose --seed disagrees with the tournament's; the message is one line."""


def label(seed: str | None, committed: str | None) -> str:
    """The last part of a default tournament name: seed<S> for a chosen seed, the commitment's first 8 digits
    for a drawn one."""
    return f"seed{seed}" if seed is not None else (committed or "")[:8]


def resumable(ledger: Ledger, prefix: str, game: str, form: str | None) -> dict[str, Any] | None:
    """The newest tournament a resume without --seed or --name continues: one named by default (its name
    starts with ``prefix``) for the same game and format (by name; None: round robin). A drawn seed's name
    cannot be known before it is drawn; the rest of the format is compared when the run reopens."""
    found = [row for row in tournament_rows.all_tournaments(ledger)
             if row["name"].startswith(prefix) and row["game"] == game and tournament_rows.kind(row) == "played"
             and (loads(row["spec"]).get("format") or {}).get("name") == form]
    return tournament_rows.get(ledger, str(found[-1]["id"])) if found else None


def for_new(spec: Spec, key: LedgerKey) -> tuple[Spec, seeds.Committed]:
    """The spec with its seed (drawn now if the organiser chose none), and what is stored of it."""
    if spec.seed is not None:
        return replace(spec, drawn=False), seeds.chosen(spec.seed)
    seed, committed = seeds.draw(key)
    return replace(spec, seed=seed, drawn=True), committed


def for_resume(row: dict[str, Any], spec: Spec, key: LedgerKey) -> Spec:
    """The spec a resumed tournament plays with: its own seed, whatever the command says of it.

    SeedMismatch if the command names a seed the tournament was not started with.
    """
    committed = tournament_rows.committed(row)
    if committed is None or not committed.secret:
        stored = tournament_rows.revealed(row)
        if spec.seed is not None and spec.seed != stored:
            raise SeedMismatch(f"cannot resume {row['name']!r}: it was started with --seed {stored}, not {spec.seed}")
        return replace(spec, seed=stored, drawn=False)
    if spec.seed is not None:
        raise SeedMismatch(f"cannot resume {row['name']!r} with --seed: its seed was drawn (and kept secret); "
                           "resume it without --seed")
    seed = tournament_rows.revealed(row)
    if seed is None:
        try:
            seed = seeds.recover(key, committed)
        except seeds.SeedError as error:
            raise SeedMismatch(f"cannot resume {row['name']!r}: {error}") from None
    return replace(spec, seed=seed, drawn=True)
