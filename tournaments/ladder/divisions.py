"""Divisions of a ladder (CodinGame's leagues): the pure rules of membership, promotion and relegation.

A ladder may be split into ordered divisions, lowest first. Each division but the top has a **boss**: a
bot version the operator names (a ``boss`` ladder event). Every version starts in the lowest division. After
each rated game, each seat's entry (a boss excepted: it stays in the division it guards) is checked, once:

* **promoted** one division up when its rating passes its own division's boss's **with 95% confidence**:
  z = (r - r_boss) / sqrt(se^2 + se_boss^2) > 1.96, where (r, se) is, for Elo, the rating and its standard
  error from the Fisher information of the entry's pairwise results at the current ratings (the one its
  standings margin is 1.96 times: tournaments.ladder.matchmaking), and, for OpenSkill, mu and sigma;
* else **relegated** one division down when the boss of the division below passes it with the same
  confidence (z computed the other way round).

Between the two it stays put: a rating that is above the boss but not yet confidently so is not promoted.
A division whose boss is not set promotes nobody, and relegates nobody into it from above.

``Membership`` is the fold: fed the ladder's rated games in order (with the ratings after each, by
tournaments.ladder.rating_fold.Fold's ``observe``) and its boss events (applied after the game they were
appended after), it gives every entry's division. The ladder stores each move as a ``promote`` or
``relegate`` event in the transaction of the game that caused it; ``replayed`` reads membership back from the
stored events, and the audit checks that the two agree (tournaments.ladder.rated_games.checked_fold).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import orjson

from tournaments.ladder import matchmaking

Z = 1.959963984540054
"""The two-sided 95% normal quantile (ranks.tied's): a difference over Z combined standard errors is confident."""
BOSS = "boss"
PROMOTE = "promote"
RELEGATE = "relegate"
MOVES = (PROMOTE, RELEGATE)
Rating = tuple[float, float | None]


class DivisionsError(ValueError):
    """Divisions that cannot be: the message is one clear line."""


def parse(text: str) -> list[str]:
    """``"bronze,silver,gold"`` -> the division names, lowest first: at least two, unique, none empty."""
    names = [part.strip() for part in text.split(",")]
    if len(names) < 2:
        raise DivisionsError(f"--divisions needs at least two names, lowest first (e.g. bronze,silver,gold), "
                             f"not {text!r}")
    if any(not name for name in names):
        raise DivisionsError(f"--divisions has an empty name: {text!r}")
    if len(set(names)) != len(names):
        raise DivisionsError(f"--divisions names a division twice: {text!r}")
    return names


def names_of(ladder: Mapping) -> list[str]:
    """A ladder's divisions, lowest first ([] for a ladder without divisions)."""
    stored = ladder.get("divisions")
    return list(orjson.loads(stored)) if stored else []


@dataclass(frozen=True, slots=True)
class Boss:
    """A boss event: ``entry`` guards ``division`` (an index) from after ladder game ``after`` on."""

    seq: int
    entry: int
    division: int
    after: int


@dataclass(frozen=True, slots=True)
class Move:
    """A membership change after ladder game ``seq``: ``entry`` moves to ``division`` (an index)."""

    seq: int
    entry: int
    kind: str
    division: int
    reason: str


@dataclass
class Membership:
    """Every entry's division (absent: the lowest), as a fold of bosses and rated games (the module says how)."""

    names: Sequence[str]
    bosses: Sequence[Boss] = ()
    division: dict[int, int] = field(default_factory=dict)
    boss_of: dict[int, int] = field(default_factory=dict)
    """Division index -> the entry guarding it."""
    met: dict[int, dict[int, int]] = field(default_factory=dict)
    """Entry -> opponent -> pairwise results between them (for Elo's standard error)."""
    moves: list[Move] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._waiting = sorted(self.bosses, key=lambda b: (b.after, b.seq))

    def _bosses_before(self, seq: float) -> None:
        while self._waiting and self._waiting[0].after < seq:
            self.guard(self._waiting.pop(0))

    def guard(self, boss: Boss) -> None:
        """A boss takes its division (and leaves any other it guarded); it is a member of it from now on."""
        for division, entry in list(self.boss_of.items()):
            if entry == boss.entry:
                del self.boss_of[division]
        self.boss_of[boss.division] = boss.entry
        self.division[boss.entry] = boss.division

    def count(self, entries: Sequence[int]) -> None:
        """One game's pairwise results between its seats."""
        for a in entries:
            for b in entries:
                if a != b:
                    self.met.setdefault(a, {})[b] = self.met.get(a, {}).get(b, 0) + 1

    def __call__(self, seq: int, seats: Sequence[tuple[int, int]], ratings: Mapping[int, Rating]) -> None:
        """tournaments.ladder.rating_fold.Fold's ``observe``: after rated game ``seq`` (its (entry, rank) per seat)."""
        self._bosses_before(seq)
        entries = [entry for entry, _rank in seats]
        self.count(entries)
        self.evaluate(seq, entries, ratings)

    def finish(self) -> Membership:
        """Every boss applied, even those set after the last game."""
        self._bosses_before(math.inf)
        return self

    def of(self, entry: int) -> int:
        return self.division.get(entry, 0)

    def evaluate(self, seq: int, entries: Iterable[int], ratings: Mapping[int, Rating]) -> list[Move]:
        """Promote or relegate each of ``entries`` (a game's seats) by the rule; the moves made."""
        self._bosses_before(seq)
        made = []
        guards = set(self.boss_of.values())
        for entry in dict.fromkeys(entries):
            if entry in guards:
                continue
            at = self.of(entry)
            above = self.boss_of.get(at) if at + 1 < len(self.names) else None
            below = self.boss_of.get(at - 1) if at > 0 else None
            if above is not None and (z := self.z(entry, above, ratings)) > Z:
                made.append(Move(seq, entry, PROMOTE, at + 1, f"passed {self.names[at]}'s boss (entry {above}) "
                                                              f"with 95% confidence: z = {z:.2f} > 1.96"))
            elif below is not None and (z := self.z(below, entry, ratings)) > Z:
                made.append(Move(seq, entry, RELEGATE, at - 1, f"{self.names[at - 1]}'s boss (entry {below}) "
                                                               f"passed it with 95% confidence: z = {z:.2f} > 1.96"))
        for move in made:
            self.division[move.entry] = move.division
        self.moves += made
        return made

    def z(self, a: int, b: int, ratings: Mapping[int, Rating]) -> float:
        """How many combined standard errors a's rating is above b's."""
        (ra, sa), (rb, sb) = self.estimate(a, ratings), self.estimate(b, ratings)
        return (ra - rb) / math.hypot(sa, sb)

    def estimate(self, entry: int, ratings: Mapping[int, Rating]) -> tuple[float, float]:
        """(rating, standard error): OpenSkill's (mu, sigma), or Elo's rating and its Fisher-information SE."""
        rating, sigma = ratings[entry]
        if sigma is not None:
            return rating, sigma
        opponents = sorted(self.met.get(entry, {}).items())
        known = {entry: rating, **{o: ratings[o][0] for o, _count in opponents if o in ratings}}
        met = {(entry, o): count for o, count in opponents}
        return rating, matchmaking.uncertainties_of_pairs(known, met)[entry]


def replayed(names: Sequence[str], events: Iterable[tuple[str, int, str]]) -> Membership:
    """Membership as the stored events say: (kind, entry, division name) of boss, promote and relegate events,
    in their order."""
    index = {name: i for i, name in enumerate(names)}
    out = Membership(names)
    for kind, entry, division in events:
        if division not in index:
            raise DivisionsError(f"a {kind} event of entry {entry} names division {division!r}, which the ladder "
                                 f"does not have (its divisions: {', '.join(names)})")
        if kind == BOSS:
            out.guard(Boss(0, entry, index[division], 0))
        elif kind in MOVES:
            out.division[entry] = index[division]
    return out


def differences(names: Sequence[str], stored: Membership, folded: Membership,
                entries: Iterable[int]) -> list[tuple[int, str, str]]:
    """(entry, stored division, folded division) for each of ``entries`` whose two differ, by entry id."""
    return [(entry, names[stored.of(entry)], names[folded.of(entry)]) for entry in sorted(entries)
            if stored.of(entry) != folded.of(entry)]
