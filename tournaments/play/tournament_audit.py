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

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.engine import Connection

from ledger import checkpoints, closing, seeds
from ledger.canonical import loads
from ledger.rows import ladder_rows, tournament_rows
from ledger.store import Ledger
from replays import facts
from tournaments.play import formats, results
from tournaments.play.candidate_match import MATCH, Match
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
        if audit.members:
            verdict.notes.append("no checkpoint yet")
    else:
        verdict.notes.append(f"checkpoint {audit.latest.fingerprint} over {audit.latest.games} games "
                             f"({audit.latest.state})")
        if audit.uncovered and not audit.problems:
            verdict.notes.append(f"{len(audit.uncovered)} games stored after it")


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


def tournament(ledger: Ledger, row: dict[str, Any], public: bytes | None) -> Verdict:
    """Verify one tournament (the module docstring says what)."""
    with ledger.read() as connection:
        verdict, _audit, found = opened(connection, tournament_rows.scope(row), public)
    if tournament_rows.kind(row) == tournament_rows.IMPORTED:
        return verdict
    spec = loads(row["spec"])
    seed = _seed(verdict, row, spec)
    if seed is None:
        # A Swiss draw (and so every later game's place) comes from the seed: checked once it is revealed.
        verdict.notes.append("its games' places in the plan are checked once the seed is revealed")
        return verdict
    results = {fact.key: [(seat.bot, seat.rank) for seat in fact.seats] for fact in found}
    try:
        planned, over = walk(spec, seed, results)
    except (KeyError, TypeError, ValueError, ScheduleError) as error:
        verdict.fail(None, f"its spec does not make a plan ({error})")
        return verdict
    hashes = {bot["name"]: bot["hash"] for bot in spec["bots"]}
    for fact in found:
        scheduled = planned.get(fact.key)
        if scheduled is None:
            verdict.fail(fact.game_id, f"its key {fact.key!r} is not one of the tournament's plan")
            continue
        seated = tuple(seat.bot for seat in fact.seats)
        if seated != scheduled.bots or any(hashes.get(seat.bot) != seat.hash for seat in fact.seats):
            verdict.fail(fact.game_id, f"its seats hold {', '.join(seated)}; its key {fact.key} seats "
                                       f"{', '.join(scheduled.bots)} (with the content hashes of the spec)")
        elif fact.seed != scheduled.seed:
            source = "names in the tournament's deal book" if spec.get("deals") is not None else \
                "derives from the tournament's seed"
            verdict.fail(fact.game_id, f"it was not dealt from the seed its key {fact.key} {source}")
    if over and committed_secret(row) and tournament_rows.revealed(row) is None and not verdict.problems:
        verdict.notes.append("every game is stored but the drawn seed is not revealed yet: "
                             "`tourney run ... --resume` reveals it")
    return verdict


@dataclass(frozen=True, slots=True)
class _Entrants:
    """What a format's plan reads of a stored spec (tournaments.play.formats.Entrants)."""

    players: int
    games: int
    seed: str
    bot_names: list[str]
    deals: list[str] | None = None


def plan_of(spec: dict[str, Any], seed: str):
    """The plan a stored spec makes with ``seed``: its format's (a round robin's when it names none)."""
    described = spec.get("format")
    form = Match.of_json(described) if described and described.get("name") == MATCH else formats.of_json(described)
    return form.plan(_Entrants(int(spec["players"]), int(spec["games"]), seed, [b["name"] for b in spec["bots"]],
                               spec.get("deals")))


def walk(spec: dict[str, Any], seed: str, results: dict[str, list[tuple[str, int]]]
         ) -> tuple[dict[str, Scheduled], bool]:
    """Every game the plan gives, stage by stage as far as the stored results reach (a Swiss round is drawn
    from the rounds before it), by key; and whether the plan is over."""
    plan = plan_of(spec, seed)
    known: dict[str, Scheduled] = {}
    reached: dict[str, list[tuple[str, int]]] = {}
    while (stage := plan.next_stage(reached)) is not None:
        known.update((game.key, game) for game in stage)
        reached.update((game.key, results[game.key]) for game in stage if game.key in results)
        if any(game.key not in results for game in stage):
            return known, False
    return known, True


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


def over(row: dict[str, Any], ledger: Ledger) -> bool:
    """Whether a played tournament's plan is over with the games stored (False for one collecting imports)."""
    if tournament_rows.kind(row) == tournament_rows.IMPORTED:
        return False
    spec = loads(row["spec"])
    seed = tournament_rows.revealed(row)
    if seed is None:
        return False
    return walk(spec, seed, results.by_key(ledger, row["id"]))[1]


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
