"""A tournament's plan, walked a stage at a time and a page at a time, and found again by key without listing it.

What ``tournaments.play.tournament_audit`` holds a tournament's stored games against, and what the runner plays
(tournaments.play.store_loop: ``stages``, the same walk, with the read models' results). A round robin of 400 bots plans
159,600 games (ten times that with ten deals a table): the audit never lists them. Instead each stage of the plan is
kept as the few numbers that make its games (``Stage``: its key prefix, its deals and a table's bots by the table's
number), and a stored game's key is turned back into the one game the plan would give it, by the same
``schedule.table_games`` the runner plays from:

* a round robin or a gauntlet is one stage; a table's bots are the table-th combination of the bots (in
  ``itertools.combinations``' order, computed from the number: ``unrank``), so the plan is never generated;
* a Swiss round is drawn from the standings after the rounds before it: the rounds are walked in order, each
  round's games read from the ledger a page at a time, and what the next draw needs is kept as it goes: each
  bot's score (``formats.scores``, summed in the runner's order), the rounds' tables and byes (bots over seats
  a round), never a game's result;
* a match's batches are handed to its plan one at a time (its stopping rule keeps its own score per deal).

Memory: one page of keys and results, a Swiss round's plan (its games' keys), the stages' tables; never the
tournament's games.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tournaments.play import formats
from tournaments.play.candidate_match import MATCH, Match, MatchPlan
from tournaments.play.schedule import Listed, Scheduled, Stage

PAGE = 500
"""Games read at once by the walk (and by the audit's pass over the stored games)."""
KEY = re.compile(r"(s\d+-)?t(\d+)-d(\d+)-r(\d+)")
"""A planned game's key: ``<prefix>t<table>-d<deal>-r<rotation>`` (schedule.table_games)."""

Results = Callable[[Sequence[str]], Mapping[str, Sequence[tuple[str, int]]]]
"""The stored results of the games with these keys (those stored and finished): key -> [(bot, rank)] by seat."""


@dataclass(slots=True)
class Walked:
    """The stages a plan reaches with the stored games (each stage up to the first not fully stored), and how
    many games a one-stage plan has (then whether it is over is counted as the stored games are read)."""

    seed: str
    stages: dict[str, Stage]
    """By key prefix ("" for a round robin, a gauntlet and a match; "s3-" for a Swiss round 3)."""
    over: bool
    total: int | None = None
    """A one-stage plan's games (``over`` then says nothing: every one of them stored means over)."""

    def find(self, key: str | None) -> Scheduled | None:
        """The game the plan puts at ``key`` (None: the plan, as far as it reaches, has none)."""
        found = KEY.fullmatch(key or "")
        if found is None:
            return None
        stage = self.stages.get(found[1] or "")
        if stage is None:
            return None
        game = stage.game(self.seed, int(found[2]), int(found[3]), int(found[4]))
        return game if game is not None and game.key == key else None  # "t01-..." is not the plan's "t1-..."


@dataclass(frozen=True, slots=True)
class _Entrants:
    """What a format's plan reads of a stored spec (tournaments.play.formats.Entrants)."""

    players: int
    games: int
    seed: str
    bot_names: list[str]
    deals: list[str] | None = None


def form_of(spec: dict[str, Any]) -> tuple[Any, _Entrants]:
    """A stored spec's format (a round robin's when it names none) and what its plan reads of the spec."""
    described = spec.get("format")
    form = Match.of_json(described) if described and described.get("name") == MATCH else formats.of_json(described)
    return form, _Entrants(int(spec["players"]), int(spec["games"]), "", [b["name"] for b in spec["bots"]],
                           spec.get("deals"))


def walk(spec: dict[str, Any], seed: str, results: Results, page: int = PAGE) -> Walked:
    """The plan a stored spec makes with ``seed``, stage by stage as far as the stored games reach (a stage not fully
    stored is the last), without listing a game that is not on the current page; ``results`` is asked for ``page``
    keys at most at a time. ScheduleError (or KeyError, TypeError, ValueError) for a spec that makes no plan."""
    form, entrants = form_of(spec)
    plan = form.plan(_Entrants(entrants.players, entrants.games, seed, entrants.bot_names, entrants.deals))
    walking = stages(plan, results, page)
    reached: dict[str, Stage] = {}
    batches = 0
    while True:
        try:
            stage = next(walking)
        except StopIteration as stopped:
            over = stopped.value
            break
        reached[stage.prefix] = stage
        batches += 1
    if isinstance(plan, formats.OneStage):
        return Walked(seed, reached, over=False, total=plan.total)
    if not isinstance(plan, formats.SwissPlan):  # a match: its batches, as one stage of the deals they reach
        deals = range(min(plan.games, batches * plan.match.batch))
        reached = {"": Stage("", deals, Listed((plan.match.seats,)), None,
                             None if plan.book is None else tuple(plan.book))}
    return Walked(seed, reached, over=bool(over))


def stages(plan: Any, results: Results, page: int = PAGE) -> Generator[Stage, None, bool | None]:
    """Each stage of ``plan`` (a formats plan, or a candidate_match.MatchPlan), in order, never listing its games.
    When the caller comes back for the next stage, the one given is read from ``results`` a page at a time, and
    what the next stage is drawn from is kept (a Swiss round's scores, a match's blocks); a game not stored ends
    the walk there: returns False. Returns True once every stage is read; None for a one-stage plan (a round robin,
    a gauntlet: nothing is drawn from its results, so they are not read here)."""
    if isinstance(plan, formats.OneStage):
        yield plan.stage
        return None
    if isinstance(plan, formats.SwissPlan):
        return (yield from _swiss(plan, results, page))
    return (yield from _match(plan, results, page))


def _swiss(plan: formats.SwissPlan, results: Results, page: int) -> Generator[Stage, None, bool]:
    played: list[formats.Round] = []
    score = dict.fromkeys(plan.bots, 0.0)
    points = plan.games * plan.players
    for number in range(1, plan.rounds + 1):
        drawn = plan.draw(number, played, {}, score, listed=False)
        stage = Stage(f"s{number}-", range(plan.games), Listed(tuple(drawn.tables)), f"s{number}", plan.book)
        yield stage
        for chunk in stage.pages(plan.seed, page):
            found = results([game.key for game in chunk])
            if any(game.key not in found for game in chunk):
                return False
            score = formats.scores(plan.bots, [formats.Round(number, [], [], chunk)], found, points, score)
        score = formats.scores(plan.bots, [formats.Round(number, [], drawn.byes, [])], {}, points, score)
        played.append(formats.Round(number, drawn.tables, drawn.byes, []))  # its games are not read again
    return True


def _match(plan: MatchPlan, results: Results, page: int) -> Generator[Stage, None, bool]:
    window: dict[str, Sequence[tuple[str, int]]] = {}
    book = None if plan.book is None else tuple(plan.book)
    while (batch := plan.next_stage(window)) is not None:  # a batch: --batch deals (its stopping rule's step)
        stage = Stage("", range(batch[0].deal, batch[-1].deal + 1), Listed((plan.match.seats,)), None, book)
        yield stage
        window = {}
        for chunk in stage.pages(plan.seed, page):
            found = results([game.key for game in chunk])
            if any(game.key not in found for game in chunk):
                return False
            window.update(found)
    return True
