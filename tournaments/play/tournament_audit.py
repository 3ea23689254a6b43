"""Verify a tournament as a whole: its checkpoints, its games against its schedule, its seed.

Each game is verified on its own by replays.game_audit; this checks what no single game can say:

* the checkpoints hold over the stored games (ledger.checkpoints.audit): none removed,
  added, moved in from elsewhere or re-sealed before the last one;
* every game of a played tournament sits where its schedule puts it: its key is one of the
  schedule's, its seats hold the bots (names and content hashes) the schedule seats there;
* the seed: a revealed (or chosen) seed matches its commitment and the spec, and every game
  was dealt from the deal seed its key derives from it (so the organiser could not pick
  deals after seeing them), or, for a tournament played from a deal book, from the book's
  seed its key names (the book is in the spec); a drawn seed not revealed yet is reported,
  not failed.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import bindparam, text
from sqlalchemy.engine import Connection

from ledger import checkpoints, closing, seeds
from ledger.canonical import loads
from ledger.rows import ladder_rows, tournament_rows
from ledger.store import Ledger
from replays import facts
from tournaments.play import plan_pages
from tournaments.play.schedule import Scheduled, ScheduleError


@dataclass(slots=True)
class Verdict:
    """What verifying a tournament or a ladder found: problems (each one line) and notes."""

    name: str
    games: int = 0
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def fail(self, game_id: str | None, what: str) -> None:
        self.problems.append(f"game {game_id}: {what}" if game_id else what)


def checked_facts(stored: Iterable[closing.Closing]) -> list[facts.Fact]:
    """The finished games whose rows agree with their events (the others are the per-game verdicts' failures)."""
    out = []
    for game in stored:
        try:
            fact = facts.check(game)
        except facts.Tampered:
            continue
        if fact is not None:
            out.append(fact)
    return out


def hold_checkpoints(verdict: Verdict, audit: checkpoints.Audit) -> None:
    """The checkpoints' problems into ``verdict``, and a note of the games no checkpoint covers yet."""
    for game_id, what in audit.problems:
        verdict.fail(game_id, what)
    if audit.latest is None:
        if audit.stored:
            verdict.notes.append("no checkpoint yet")
    else:
        games = f"{audit.latest.games} game{'' if audit.latest.games == 1 else 's'}"
        verdict.notes.append(f"checkpoint {audit.latest.fingerprint} over {games} ({audit.latest.state})")
        if audit.stored_after and not audit.problems:
            verdict.notes.append(f"{audit.stored_after} game{'' if audit.stored_after == 1 else 's'} stored after it")


def opened(connection: Connection, scope: checkpoints.Scope, public: bytes | None
           ) -> tuple[Verdict, checkpoints.Audit, list[facts.Fact]]:
    """A scope's verdict with its checkpoints held, their audit, and its finished games whose rows agree with
    their events (read a chunk at a time: a Fact keeps no event)."""
    verdict = Verdict(str(scope))
    audit = checkpoints.audit(connection, scope, public)
    found: list[facts.Fact] = []
    for chunk in closing.in_chunks(connection, scope):
        verdict.games += len(chunk)
        found += checked_facts(chunk)
    hold_checkpoints(verdict, audit)
    return verdict, audit, found


def tournament(ledger: Ledger, row: dict[str, Any], public: bytes | None, page: int = plan_pages.PAGE) -> Verdict:
    """Verify one tournament (the module docstring says what), ``page`` games at a time: the plan is walked stage by
    stage (tournaments.play.plan_pages: a Swiss round's draw reads the rounds before it a page at a time), then the
    stored games are read by game id a page at a time, each held against the game the plan gives its key. What
    is kept is a page, the plan's stages (never its games) and counters: the memory does not grow with the games."""
    scope = tournament_rows.scope(row)
    with ledger.read() as connection:
        verdict = Verdict(str(scope))
        verdict.games = connection.execute(COUNT, {"id": row["id"]}).scalar_one()
        hold_checkpoints(verdict, checkpoints.audit(connection, scope, public, keep=False))
        if tournament_rows.kind(row) == tournament_rows.IMPORTED:
            return verdict
        spec = loads(row["spec"])
        seed = _seed(verdict, row, spec)
        if seed is None:
            # A Swiss draw (and so every later game's place) comes from the seed: checked once it is revealed.
            verdict.notes.append("its games' places in the plan are checked once the seed is revealed")
            return verdict
        try:
            walked = plan_pages.walk(spec, seed, functools.partial(results_of, connection, row["id"]), page)
        except (KeyError, TypeError, ValueError, ScheduleError) as error:
            verdict.fail(None, f"its spec does not make a plan ({error})")
            return verdict
        over = held(connection, row["id"], spec, walked, verdict, page)
    if over and committed_secret(row) and tournament_rows.revealed(row) is None and not verdict.problems:
        verdict.notes.append("every game is stored but the drawn seed is not revealed yet: "
                             "`tourney run ... --resume` reveals it")
    return verdict


COUNT = text("SELECT COUNT(*) FROM games WHERE tournament_id = :id")
PAGE_BY_ID = text("SELECT id FROM games WHERE tournament_id = :id AND id > :after ORDER BY id LIMIT :page")
IDS_OF_KEYS = text("SELECT id FROM games WHERE tournament_id = :id AND game_key IN :keys").bindparams(
    bindparam("keys", expanding=True))


def stored_pages(connection: Connection, tournament_id: int, page: int) -> Iterator[list[closing.Closing]]:
    """A tournament's stored games by game id, ``page`` at a time (keyset paging: no list of every id)."""
    after = ""
    while ids := connection.execute(PAGE_BY_ID, {"id": tournament_id, "after": after, "page": page}).scalars().all():
        yield closing.of_games(connection, ids)
        after = ids[-1]


def results_of(connection: Connection, tournament_id: int, keys: Sequence[str]) -> dict[str, list[tuple[str, int]]]:
    """The stored results of the games at ``keys`` whose rows agree with their events: key -> [(bot, rank)]."""
    ids = connection.execute(IDS_OF_KEYS, {"id": tournament_id, "keys": list(keys)}).scalars().all()
    return {fact.key: [(seat.bot, seat.rank) for seat in fact.seats]
            for fact in checked_facts(closing.of_games(connection, ids)) if fact.key is not None}


def held(connection: Connection, tournament_id: int, spec: dict[str, Any], walked: plan_pages.Walked,
         verdict: Verdict | None, page: int) -> bool:
    """Every stored game of a tournament, by game id a page at a time, held against the game the plan gives its
    key (its problems into ``verdict``); whether the plan is over with them."""
    hashes, book = {bot["name"]: bot["hash"] for bot in spec["bots"]}, spec.get("deals") is not None
    planned = 0
    for chunk in stored_pages(connection, tournament_id, page):
        for fact in checked_facts(chunk):
            scheduled = walked.find(fact.key)
            planned += scheduled is not None
            if verdict is not None and (problem := misplaced(fact, scheduled, hashes, book)) is not None:
                verdict.fail(fact.game_id, problem)
    # A one-stage plan is over when each of its games is stored (a key is stored once: uq_games_tournament_key).
    return walked.over if walked.total is None else planned >= walked.total


def misplaced(fact: facts.Fact, scheduled: Scheduled | None, hashes: dict[str, str], book: bool) -> str | None:
    """What is wrong with where a stored game sits, against the game the plan gives its key (None: nothing);
    ``hashes``: the spec's bots' content hashes by name, ``book``: whether the spec plays a deal book."""
    if scheduled is None:
        return f"its key {fact.key!r} is not one of the tournament's plan"
    seated = tuple(seat.bot for seat in fact.seats)
    if seated != scheduled.bots or any(hashes.get(seat.bot) != seat.hash for seat in fact.seats):
        return (f"its seats hold {', '.join(seated)}; its key {fact.key} seats {', '.join(scheduled.bots)} (with the "
                "content hashes of the spec)")
    if fact.seed != scheduled.seed:
        source = "names in the tournament's deal book" if book else \
            "derives from the tournament's seed"
        return f"it was not dealt from the seed its key {fact.key} {source}"
    return None


def committed_secret(row: dict[str, Any]) -> bool:
    committed = tournament_rows.committed(row)
    return committed is not None and committed.secret


def _seed(verdict: Verdict, row: dict[str, Any], spec: dict[str, Any]) -> str | None:
    """The tournament's seed if it may be known, checked against its commitment and spec; else None."""
    committed = tournament_rows.committed(row)
    seed = tournament_rows.revealed(row)
    if committed is None:
        verdict.fail(None, "it has no seed, though it was played here")
        return None
    if seed is None:
        verdict.notes.append(f"seed drawn, secret until the tournament ends (commitment {committed.commitment[:16]}…)")
        if spec.get("seed_commitment") != committed.commitment:
            verdict.fail(None, "its spec's seed commitment is not its row's")
        return None
    if seeds.commitment(seed) != committed.commitment:
        verdict.fail(None, f"its revealed seed does not match its commitment {committed.commitment[:16]}…")
        return None
    if committed.secret:
        if spec.get("seed") is not None or spec.get("seed_commitment") != committed.commitment:
            verdict.fail(None, "its spec's seed commitment is not its row's")
        verdict.notes.append("seed drawn, revealed, matches its commitment")
    else:
        if spec.get("seed") != seed:
            verdict.fail(None, f"its spec's seed {spec.get('seed')!r} is not its row's")
        verdict.notes.append("seed chosen by the organiser")
    return seed


def over(row: dict[str, Any], ledger: Ledger, page: int = plan_pages.PAGE) -> bool:
    """Whether a played tournament's plan is over with the games stored (False for one collecting imports), read a
    page at a time as ``tournament`` reads them."""
    if tournament_rows.kind(row) == tournament_rows.IMPORTED:
        return False
    spec = loads(row["spec"])
    seed = tournament_rows.revealed(row)
    if seed is None:
        return False
    with ledger.read() as connection:
        walked = plan_pages.walk(spec, seed, functools.partial(results_of, connection, row["id"]), page)
        return held(connection, row["id"], spec, walked, None, page)


def checkpoint_all(ledger: Ledger) -> int:
    """A checkpoint for every tournament and ladder over what it holds now (`tourney db sign`); how many."""
    count = 0
    for listed in tournament_rows.all_tournaments(ledger):
        row = tournament_rows.get(ledger, str(listed["id"]))
        checkpoints.write(ledger, tournament_rows.scope(row), over(row, ledger))
        count += 1
    for listed in ladder_rows.all_ladders(ledger):
        checkpoints.write(ledger, ladder_rows.scope(ladder_rows.get(ledger, listed["name"])))
        count += 1
    return count
