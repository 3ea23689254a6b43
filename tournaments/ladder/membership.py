"""A ladder's division rules (tournaments.ladder.divisions) applied to its stored rows (ledger.rows.division_rows).

``keeper(ladder)`` is what ledger.rows.ladder_rows.store_games calls when it stores a game, and
tournaments.ladder.rating_fold when it refolds (None for a ladder without
divisions, which then stores and refolds exactly as before divisions existed); ``stored`` and ``folded`` are
the two memberships the audit compares.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Connection

from ledger.rows import division_rows, ladder_rows
from ledger.store import Ledger
from replays import facts
from tournaments.ladder import divisions


def bosses(connection: Connection, ladder: Mapping[str, Any], names: Sequence[str]) -> list[divisions.Boss]:
    index = {name: i for i, name in enumerate(names)}
    return [divisions.Boss(seq, entry, index[division], after or 0)
            for seq, kind, entry, division, after in division_rows.membership_events(connection, ladder["id"])
            if kind == divisions.BOSS]


def stored(connection: Connection, ladder: Mapping[str, Any]) -> divisions.Membership:
    """Membership as the ladder's stored events say (each entry's latest boss, promote or relegate event)."""
    names = divisions.names_of(ladder)
    try:
        return divisions.replayed(names, [(kind, entry, division) for _seq, kind, entry, division, _after
                                          in division_rows.membership_events(connection, ladder["id"])])
    except divisions.DivisionsError as error:
        raise facts.Tampered(None, f"ladder {ladder['name']!r}: {error}") from None


@dataclass(frozen=True, slots=True)
class Rules:
    """ledger.rows.division_rows.Keeper for one ladder."""

    ladder: Mapping[str, Any]
    names: tuple[str, ...]

    def observer(self, connection: Connection) -> divisions.Membership:
        """A fresh membership fold, with the ladder's bosses as its events set them."""
        return divisions.Membership(self.names, bosses(connection, self.ladder, self.names))

    def settle(self, connection: Connection, seq: int, game_id: str, entries: Sequence[int]) -> None:
        """After game ``seq`` is rated (in its transaction): promote or relegate its seats by the rules, each move
        appended as an event naming the game."""
        now = stored(connection, self.ladder)
        ratings = {entry: rating for entry, (rating, _games) in ladder_rows.stored_ratings(connection,
                                                                                    self.ladder["id"]).items()}
        now.met = division_rows.pair_counts(connection, [*entries, *now.boss_of.values()])
        for move in now.evaluate(seq, entries, ratings):
            division_rows.append(connection, self.ladder["id"], move.kind, move.entry, self.names[move.division],
                                 move.reason, game_id)

    def written(self, connection: Connection, observer: divisions.Membership, reason: str) -> None:
        """After a refold: where the stored membership is not the fold's, a move to the fold's division."""
        folded = observer.finish()
        now = stored(connection, self.ladder)
        every = [entry for entry, _rating in ladder_rows.stored_ratings(connection, self.ladder["id"]).items()]
        for entry, was, becomes in divisions.differences(self.names, now, folded, every):
            kind = divisions.PROMOTE if self.names.index(becomes) > self.names.index(was) else divisions.RELEGATE
            division_rows.append(connection, self.ladder["id"], kind, entry, becomes,
                                 f"{reason}: the fold places it in {becomes}, not {was}")


def check(connection: Connection, ladder: Mapping[str, Any], folded_: divisions.Membership) -> None:
    """Every entry's division as its stored events say must be the fold's: facts.Tampered naming the first
    entry (by id) that is not (`ladder rebuild` appends the fold's)."""
    names = divisions.names_of(ladder)
    labels = {v.entry: f"{v.name} v{v.version}" for v in ladder_rows.versions(connection, ladder["id"])}
    found = divisions.differences(names, stored(connection, ladder), folded_, labels)
    if found:
        entry, was, becomes = found[0]
        raise facts.Tampered(None, f"ladder {ladder['name']!r}: entry {entry} ({labels[entry]}) is in division "
                                   f"{was} by its stored events, but the games and the operator's facts fold it to "
                                   f"{becomes} (`tourney ladder rebuild` appends the fold's membership)")


def moves(ledger: Ledger, ladder_name: str) -> int | None:
    """How many promote and relegate events the ladder has (None: it has no divisions)."""
    ladder = ladder_rows.get(ledger, ladder_name)
    if not divisions.names_of(ladder):
        return None
    with ledger.read() as connection:
        return sum(1 for event in division_rows.membership_events(connection, ladder["id"])
                   if event[1] in divisions.MOVES)


def keeper(ladder: Mapping[str, Any]) -> Rules | None:
    """The ladder's division rules, or None if it has no divisions."""
    names = divisions.names_of(ladder)
    return Rules(ladder, tuple(names)) if names else None
