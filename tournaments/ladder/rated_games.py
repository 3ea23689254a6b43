"""Rated games: a ladder's results read from its games' hashed events, the stored ratings held against their fold.

``rebuild`` and ``void`` refold by ladder name (tournaments.ladder.rating_fold folds and writes); ``checked_fold``
is what `ladder standings --check`, `tourney db audit` and `replay verify --ladder` (with each page's history) hold
the stored ratings and membership to, a page of games at a time, keeping none.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterator
from typing import Any

from ledger.rows import game_rows, ladder_rows
from ledger.store import Ledger
from replays import facts
from tournaments.ladder import membership, rating_fold
from tournaments.ladder.ladder_errors import LadderError
from tournaments.ladder.rating_models import model


def rated(ledger: Ledger, ladder: dict[str, Any], connection=None) -> tuple[rating_fold.Rated, facts.Reading]:
    """Every rated game of the ladder in fold order, [(entry, rank) per seat], read from its hashed
    events (facts.Tampered if a derived row disagrees with them), and the reading itself."""
    if connection is None:
        with ledger.read() as connection:
            return rated(ledger, ladder, connection)
    reading = facts.read(ledger, ladder_rows.scope(ladder), connection)
    return _rated(connection, ladder, reading.facts, reading.order), reading


def rated_after(ledger: Ledger, ladder: dict[str, Any], connection, after: int) -> Iterator[rating_fold.Rated]:
    """The rated games stored after ladder seq ``after`` (0: all, a page at a time: ``rated_pages``), in fold order,
    from their hashed events: a refold reads the games stored while it ran this way (one page), without auditing
    the whole ladder again."""
    if after == 0:
        yield from (page for _through, page in rated_pages(ledger, ladder, connection))
        return
    order = ladder_rows.games_after(connection, ladder["id"], after)
    yield _rated(connection, ladder, facts.read_games(ledger, list(order), connection), order)


def rated_pages(ledger: Ledger, ladder: dict[str, Any], connection, trust: facts.Trust | None = None,
                read: Callable[[list[facts.Fact]], None] | None = None
                ) -> Iterator[tuple[int | None, rating_fold.Rated]]:
    """``rated``'s games a page at a time (facts.pages, ``trust`` filled as it fills it), none kept: what a check of
    a ladder of any size holds. Each page with the ladder seq it reaches (its last game's, voided or not; None for a
    page of no finished game); its games, voided ones too, handed to ``read`` first (once checked)."""
    entry_of = ladder_rows.entry_of_bot(connection, ladder["id"])
    void = ladder_rows.voided(connection, ladder["id"])
    for page in facts.pages(ledger, ladder_rows.scope(ladder), connection, trust=trust):
        rated = _rated_of(ladder, page, entry_of, void)  # Tampered first for a seat's bot that is no entry
        if read is not None:
            read([fact for _seq, fact in page])
        yield (page[-1][0] if page else None), rated
        del page  # let go before the next page is read


def _rated(connection, ladder: dict[str, Any], found: list[facts.Fact], order: dict[str, int]) -> rating_fold.Rated:
    return _rated_of(ladder, [(order[fact.game_id], fact) for fact in found],
                     ladder_rows.entry_of_bot(connection, ladder["id"]), ladder_rows.voided(connection, ladder["id"]))


def _rated_of(ladder: dict[str, Any], found: list[tuple[int, facts.Fact]], entry_of: dict[int, int],
              void: Container[str]) -> rating_fold.Rated:
    out: rating_fold.Rated = []
    for seq, fact in found:
        if fact.game_id in void:
            continue
        if any(seat.bot_id not in entry_of for seat in fact.seats):
            raise facts.Tampered(fact.game_id, f"a seat's bot is not an entry of ladder {ladder['name']!r}")
        out.append((seq, [(entry_of[seat.bot_id], seat.rank) for seat in fact.seats]))
    return out


def folded(ledger: Ledger, ladder: dict[str, Any], connection, observe: rating_fold.Observe | None = None
           ) -> tuple[rating_fold.Folded, rating_fold.Rated, facts.Reading]:
    """The ladder's ratings and history as its games' hashed results fold them (the rebuild's fold, writing
    nothing), with the results and the reading they come from; ``observe`` is told each game (membership)."""
    results, reading = rated(ledger, ladder, connection)
    rating = model(ladder)
    return (rating_fold.fold(ladder_rows.versions(connection, ladder["id"]), results, rating.update, rating.start,
                             observe),
            results, reading)


class RatingsDiffer(facts.Tampered):
    """A stored rating, games count or division that is not the fold of the games' results (which read right)."""


def checked_fold(ledger: Ledger, ladder: dict[str, Any], connection=None,
                 told: Callable[[int, dict[tuple[int, int], tuple[int, ladder_rows.Rating]]], None] | None = None,
                 trust: facts.Trust | None = None, read: Callable[[list[facts.Fact]], None] | None = None) -> None:
    """The ladder's stored ratings must be the fold of its games' hashed results (what `ladder standings --check`
    and `tourney db audit` hold them to), a page of games at a time, keeping none of them: the games read
    (facts.Tampered, at the first whose rows disagree with its events; ``trust`` filled as facts.pages fills it)
    and folded a page at a time, each page's games (voided ones too, in ladder order) handed to ``read`` and its
    history told to ``told`` (the ladder seq its last game reaches, and the (seq, entry) -> (rank, rating) rows the
    fold gives), then the stored ratings and divisions held against the fold (RatingsDiffer naming the first that
    is not; `ladder rebuild` refolds them)."""
    if connection is None:
        with ledger.read() as connection:
            return checked_fold(ledger, ladder, connection, told, trust, read)
    rating = model(ladder)
    observer = observer_of(ladder, connection)
    fold = rating_fold.Fold(ladder_rows.versions(connection, ladder["id"]), rating.update, rating.start, observer)
    for through, page in rated_pages(ledger, ladder, connection, trust, read):
        fold.feed(page)
        history = fold.take_history()
        if told is not None and through is not None:
            told(through, history)
    try:
        hold_ratings(ladder, fold.done(), connection, observer)
    except facts.Tampered as error:
        raise RatingsDiffer(error.game_id, error.reason) from None


def observer_of(ladder: dict[str, Any], connection) -> Any:
    """The membership fold a ladder's division rules keep beside its ratings (None: a ladder without divisions)."""
    rules = membership.keeper(ladder)
    return None if rules is None else rules.observer(connection)


def hold_ratings(ladder: dict[str, Any], fold: rating_fold.Folded, connection, observer: Any) -> None:
    """The stored ratings, games counts and membership must be what ``fold`` (of every rated game, ``observer``
    told each) gives: facts.Tampered naming the first that is not."""
    for entry, (stored, games) in sorted(ladder_rows.stored_ratings(connection, ladder["id"]).items()):
        expected = (fold.ratings.get(entry, stored), fold.games.get(entry, 0))
        if expected != (stored, games):
            raise facts.Tampered(None, f"ladder {ladder['name']!r}: entry {entry} is stored with rating "
                                       f"{_shown(stored)} after {games} games, but its games fold to "
                                       f"{_shown(expected[0])} after {expected[1]} (`tourney ladder rebuild` "
                                       "refolds the ratings from the games)")
    if observer is not None:
        membership.check(connection, ladder, observer.finish())


def _shown(rating: ladder_rows.Rating) -> str:
    value, sigma = rating
    return f"{value:.6g}" if sigma is None else f"{value:.6g} (sigma {sigma:.6g})"


def void(ledger: Ledger, ladder_name: str, game_ref: str, reason: str) -> tuple[str, int]:
    """Void a ladder game (found by id or a unique prefix of game_rows.MIN_GAME_PREFIX characters or more: never a
    ladder game's number read as a prefix): ratings are refolded without it. (game id, seq)."""
    ladder = ladder_rows.get(ledger, ladder_name)
    if not reason.strip():
        raise LadderError("a void needs a --reason (it is kept with the ladder's events)")
    game_rows.check_game_prefix(game_ref)
    found = [game_id for game_id in ladder_rows.game_ids(ledger, ladder["id"]) if game_id.startswith(game_ref)]
    if len(found) != 1:
        raise LadderError(f"no game {game_ref!r} on ladder {ladder_name!r}" if not found else
                          f"game id {game_ref!r} is ambiguous on ladder {ladder_name!r}: give more characters")
    rating = model(ladder)
    return found[0], rating_fold.void(ledger, ladder["id"], found[0], reason, rating.update, _results(ledger, ladder),
                               rating.start, membership.keeper(ladder))


def rebuild(ledger: Ledger, ladder_name: str) -> dict[int, tuple[ladder_rows.Rating, ladder_rows.Rating]]:
    """Refold every rating from the games' hashed results (never from a derived row): facts.Tampered, and
    nothing rewritten, if any game's rows disagree with its events."""
    ladder = ladder_rows.get(ledger, ladder_name)
    rating = model(ladder)
    return rating_fold.rebuild(ledger, ladder["id"], rating.update, _results(ledger, ladder), rating.start,
                        membership.keeper(ladder))


def _results(ledger: Ledger, ladder: dict[str, Any]) -> rating_fold.Results:
    return lambda connection, after: rated_after(ledger, ladder, connection, after)
