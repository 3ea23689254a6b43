"""The round-robin schedule: tables, deals, seat rotations, and every game's seeds.

Every table of k bots (every pair when k = 2) plays ``games`` deals; each deal is played
once from every cyclic rotation of the table's seats, with the same seed, so every bot
sees the same cards from every seat and sits in every seat equally often (ALL-1).
Each scheduled game has a stable key, ``t<table>-d<deal>-r<rotation>``, and its seeds
derive from the tournament seed and that key alone, so what a game is never depends on
which worker played it or when it finished.

A stage of a plan is kept as the few numbers that make its games (``Stage``: its key prefix, its deals, a table's
bots by the table's number), and its games are made a table at a time as they are walked (``Stage.games``), never
listed: a round robin of 400 bots plans 159,600 games (issue 39). The runner plays a stage from it and the audit
(tournaments.play.plan_pages) finds a stored game's place in it, so both walk one plan.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, islice
from math import comb


class ScheduleError(ValueError):
    """A tournament that cannot be scheduled (too few bots, a bad seat count)."""


@dataclass(frozen=True, slots=True)
class Scheduled:
    """One game of the schedule: its key, the bots by seat, and the deal's seed."""

    key: str
    table: int
    deal: int
    rotation: int
    bots: tuple[str, ...]
    seed: str

    def bot_seed(self, tournament_seed: str, seat: int) -> int:
        """The seed of the RNG of the bot in ``seat`` for this game (its own stream)."""
        digest = hashlib.sha256(f"tourney-bot-v1/{tournament_seed}/{self.key}/{seat}".encode()).digest()
        return int.from_bytes(digest[:8], "big")


def deal_seed(tournament_seed: str, table: int | str, deal: int) -> str:
    """The game seed shared by every rotation of one deal."""
    return hashlib.sha256(f"tourney-deal-v1/{tournament_seed}/{table}/{deal}".encode()).hexdigest()


def players(minimum: int, maximum: int) -> str:
    """How many play a game, in words: "2 players", "2 to 6 players"."""
    return f"{minimum} players" if minimum == maximum else f"{minimum} to {maximum} players"


def seat_count(requested: int | None, default: int, minimum: int, maximum: int, bots: int, game: str) -> int:
    """k: ``--players`` (default the game's usual count), at most the number of bots."""
    if bots < minimum:
        raise ScheduleError(f"{game} needs at least {minimum} bots, found {bots}")
    if requested is not None and not minimum <= requested <= maximum:
        raise ScheduleError(f"{game} is played by {players(minimum, maximum)}, not {requested}")
    k = requested if requested is not None else default
    return min(k, bots)


def schedule(bots: list[str], players: int, games: int, tournament_seed: str,
             book: Sequence[str] | None = None) -> list[Scheduled]:
    """Every game of the round robin, in a stable order (``book``: a deal book's seeds, see ``table_games``)."""
    if games < 1:
        raise ScheduleError(f"--games must be at least 1, not {games}")
    if len(set(bots)) != len(bots):
        raise ScheduleError("two bots share a name; rename one")
    out = []
    for table, members in enumerate(combinations(sorted(bots), players)):
        out += table_games(table, members, range(games), tournament_seed, book=book)
    return out


def table_games(table: int, members: tuple[str, ...], deals: Iterable[int], tournament_seed: str, *,
                prefix: str = "", deal_group: str | int | None = None,
                book: Sequence[str] | None = None) -> list[Scheduled]:
    """Each of ``deals`` played by one table once from every cyclic rotation of its seats.

    Keys are ``<prefix>t<table>-d<deal>-r<rotation>``; a deal's seed is that of (``deal_group``,
    deal), the table's own number unless another group is named (a Swiss round's tables share
    their deals). With a deal ``book`` (tournaments.play.deal_books), deal d is the book's d-th seed,
    at every table, whatever the group: every pairing plays the book's deals.
    """
    out = []
    group = table if deal_group is None else deal_group
    for deal in deals:
        if book is not None and not 0 <= deal < len(book):
            raise ScheduleError(f"the deal book holds {len(book)} deals: there is no deal {deal + 1} to play")
        seed = book[deal] if book is not None else deal_seed(tournament_seed, group, deal)
        for rotation in range(len(members)):
            seated = members[rotation:] + members[:rotation]
            out.append(Scheduled(f"{prefix}t{table}-d{deal}-r{rotation}", table, deal, rotation, seated, seed))
    return out


def unrank(items: Sequence[str], k: int, index: int) -> tuple[str, ...] | None:
    """The ``index``-th k-combination of ``items`` in ``itertools.combinations``' order (None past the last), found
    from the number alone: the first member is the position j where the combinations before it, C(n - start, k) -
    C(n - j, k), first exceed ``index`` (a binary search on a binomial coefficient), and so on for the rest."""
    n = len(items)
    if index < 0 or k < 0 or index >= comb(n, k):
        return None
    out: list[str] = []
    start = 0
    for left in range(k, 0, -1):
        total = comb(n - start, left)
        target = total - index
        low, high = start, n - left
        while low < high:  # the smallest j with C(n - j - 1, left) < target
            middle = (low + high) // 2
            if comb(n - middle - 1, left) < target:
                high = middle
            else:
                low = middle + 1
        index -= total - comb(n - low, left)
        out.append(items[low])
        start = low + 1
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Combinations:
    """Table t's bots: ``head``, then the t-th k-combination of ``items`` (a round robin's tables, a gauntlet's)."""

    items: tuple[str, ...]
    k: int
    head: tuple[str, ...] = ()

    @property
    def count(self) -> int:
        return comb(len(self.items), self.k)

    def __call__(self, table: int) -> tuple[str, ...] | None:
        rest = unrank(self.items, self.k, table)
        return None if rest is None else (*self.head, *rest)


@dataclass(frozen=True, slots=True)
class Listed:
    """Table t's bots from a list of tables (a Swiss round's draw, a match's one table)."""

    tables: tuple[tuple[str, ...], ...]

    def __call__(self, table: int) -> tuple[str, ...] | None:
        return self.tables[table] if 0 <= table < len(self.tables) else None


@dataclass(frozen=True, slots=True)
class Stage:
    """One stage of a plan, by what makes its games: every table ``members`` names plays ``deals``, each deal from
    every rotation of its seats (``table_games`` with ``prefix`` and ``group``)."""

    prefix: str
    deals: range
    members: Callable[[int], tuple[str, ...] | None]
    """A table's bots by its number (None: no such table)."""
    group: str | None = None
    book: tuple[str, ...] | None = None

    def game(self, seed: str, table: int, deal: int, rotation: int) -> Scheduled | None:
        members = self.members(table)
        if members is None or deal not in self.deals or not 0 <= rotation < len(members):
            return None
        return table_games(table, members, (deal,), seed, prefix=self.prefix, deal_group=self.group,
                           book=self.book)[rotation]

    def games(self, seed: str) -> Iterator[Scheduled]:
        """The stage's games in the plan's order (table, deal, rotation), made a table at a time."""
        table = 0
        while (members := self.members(table)) is not None:
            yield from table_games(table, members, self.deals, seed, prefix=self.prefix, deal_group=self.group,
                                   book=self.book)
            table += 1

    def pages(self, seed: str, page: int) -> Iterator[list[Scheduled]]:
        """The stage's games ``page`` at a time."""
        made = self.games(seed)
        while chunk := list(islice(made, page)):
            yield chunk
