"""Nine Tails: full tables drawn from what one seat has seen (determinization for search bots).

A seat's redacted events fold (engines/nine_tails/fold.py) into a table whose unknown cards are
``None``: the other seats' trickery cards, the Trickery Deck, and the two other decks below what
was revealed; and the cards an ascension put under the Wilds Deck lie there in a made-up order.
``Sighting`` keeps, beside that fold, what the seat knows of where those cards are, and
``sample`` fills them uniformly among the tables consistent with it:

* **Starting Fox Deck and Wilds Deck.** Their cards are only ever drawn face up, so each deck is a
  run of *segments* from the top: what is left of the setup shuffle (every card of the deck's
  kind that the seat has not seen elsewhere), then each ascension's cards (a known set shuffled
  under the deck, rulebook "Fox Ascension"; a starting fox alone at the bottom of its deck). Each
  segment is shuffled on its own.
* **Trickery cards.** Cards no seat shows are in *pools*: a pool is a known multiset of trick
  names and the hidden places holding it (the deck, so many cards of a seat's hand). The setup
  deck is one pool of all thirty; a seat's hidden draw moves a place from the deck to its hand; a
  reshuffle (NT-8) makes the discard pile a new pool (the old deck is empty then, so the
  cards drawn before it and after it never mix). A card the seat saw move into another hand
  (its own card pickpocketed) is *known* there. A card another seat shows (a trick, a cancel, a
  discard) leaves its known cards first, else the one pool among its hidden places that holds
  that name. Taking a known card first loses nothing: every table where the shown card came from
  a pool is also a table where it was the known one. When two pools could each have given it,
  or a seat the observer does not see is pickpocketed while its hand mixes pools or known cards,
  those pools (and known cards) merge into one: the sample is then drawn from a set a little
  larger than the consistent one, never a smaller one, so the true table always remains
  possible. A hand of known cards alone, pickpocketed unseen, becomes a pool of its own (no merge,
  nothing given up). docs/rl.md says this in a bot author's words.

Every pool and segment is a uniform shuffle of its own cards (copies of a trick counted apart),
and they are independent, so the sample is uniform among the tables the facts allow. Nothing
here reads a private part the seat may not see, whatever the events carry.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from engines.base import EngineError, Event
from engines.nine_tails.cards import KIND, STARTING_FOX, STARTING_FOX_IDS, TRICKERY_CARDS, WILDS_IDS
from engines.nine_tails.fold import apply
from engines.nine_tails.state import State, ascension_cards, locate, sort_hand

DECK = -1
"""The Trickery Deck as a place in a pool (seats are 0 and up)."""


class Pool:
    """Trickery cards nobody has shown, and the hidden places that hold exactly them."""

    __slots__ = ("cards", "places")

    def __init__(self, cards: Counter, places: dict[int, int]) -> None:
        self.cards = cards
        self.places = places

    def move(self, source: int, target: int, count: int = 1) -> None:
        self.places[source] -= count
        self.places[target] = self.places.get(target, 0) + count


class Segment:
    """Consecutive cards of a face-down deck whose set is known and whose order is not."""

    __slots__ = ("cards", "size")

    def __init__(self, cards: Sequence[str]) -> None:
        self.cards = Counter(cards)
        self.size = len(cards)


class Sighting:
    """What one seat has seen of a game of Nine Tails (engines.base.Determinizer)."""

    __slots__ = ("known", "merges", "pools", "seat", "starting", "state", "wilds")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.state: State | None = None
        self.known: list[Counter] = []  # per seat: trickery cards the observer knows it holds
        self.pools: list[Pool] = []
        self.starting: list[Segment] = []  # top first
        self.wilds: list[Segment] = []
        self.merges = 0
        """How often pools merged, each time giving up one fact (the module's docstring says when)."""

    # --- seeing ------------------------------------------------------------------------------

    def see(self, events: Sequence[Event]) -> None:
        seat = self.seat
        for event in events:
            if event.private is not None and not event.visible_to(seat):
                event = Event(event.type, event.data, None, event.audience)
            track = _TRACK.get(event.type)
            if track is not None:
                track(self, event)
            self.state = apply(self.state, event)

    def _table_laid(self, event: Event) -> None:
        self.known = [Counter() for _ in range(event.data["seats"])]

    def _starting_shuffled(self, event: Event) -> None:
        self.starting = [Segment(STARTING_FOX_IDS)]

    def _wilds_shuffled(self, event: Event) -> None:
        self.wilds = [Segment(WILDS_IDS)]

    def _trickery_shuffled(self, event: Event) -> None:
        self.pools = [Pool(Counter(TRICKERY_CARDS), {DECK: event.data["size"]})]

    def _trickery_reshuffled(self, event: Event) -> None:
        # NT-8: only an empty deck is refilled, so no pool keeps a place in it.
        self.pools = [pool for pool in self.pools if any(pool.places.values())]
        self.pools.append(Pool(Counter(self.state.discard), {DECK: event.data["size"]}))

    def _dealt(self, event: Event) -> None:
        count, holder = event.data["count"], event.data["seat"]
        if not count:
            return
        deck = self._deck_pool()
        if holder != self.seat:
            deck.move(DECK, holder, count)
            return
        deck.places[DECK] -= count
        for card in event.private["cards"]:
            _take(deck.cards, card)

    def _shown(self, event: Event) -> None:
        holder = event.data["seat"]
        if holder != self.seat:
            self._leaves(holder, event.data["trick"])

    def _pickpocketed(self, event: Event) -> None:
        thief, victim = event.data["seat"], event.data["target"]
        if event.private is None:  # the observer is neither: some card of the victim's moved
            self._blind_move(victim, thief)
        elif thief == self.seat:
            self._leaves(victim, event.private["trick"])
        else:  # the observer was picked: its card is known to be in the thief's hand now
            self.known[thief][event.private["trick"]] += 1

    def _ascended(self, event: Event) -> None:
        fox = locate(self.state, event.data["fox"])[2]
        self.wilds.append(Segment(ascension_cards(fox)))
        if KIND[fox.card] == STARTING_FOX:
            self.starting.append(Segment((fox.card,)))
        if event.data["new_fox"]:
            _draw(self.starting, event.data["new_fox"])

    def _fox_dealt(self, event: Event) -> None:
        _draw(self.starting, event.data["fox"])

    def _wilds_revealed(self, event: Event) -> None:
        for card in event.data["cards"]:
            _draw(self.wilds, card)

    def _windfall_revealed(self, event: Event) -> None:
        _draw(self.wilds, event.data["card"])

    # --- where trickery cards may be ------------------------------------------------------------

    def _deck_pool(self) -> Pool:
        for pool in self.pools:
            if pool.places.get(DECK):
                return pool
        raise EngineError("nine-tails: a trickery card was drawn from an empty deck")

    def _leaves(self, holder: int, trick: str) -> None:
        """``holder`` showed ``trick`` from its hand: a known card first, else the one pool that may hold it."""
        known = self.known[holder]
        if known[trick]:
            known[trick] -= 1
            return
        pools = [pool for pool in self.pools if pool.places.get(holder) and pool.cards[trick]]
        if not pools:
            raise EngineError(f"nine-tails: seat {holder} showed {trick}, which none of its hidden cards can be")
        pool = self._merge(pools) if len(pools) > 1 else pools[0]
        pool.places[holder] -= 1
        _take(pool.cards, trick)

    def _blind_move(self, victim: int, thief: int) -> None:
        """A card of ``victim`` the observer did not see went to ``thief`` (Pickpocket, NT-6 7)."""
        known = self.known[victim]
        if known.total():
            # Registered before the choice below: when the victim's only hidden cards are known ones, this pool
            # alone gives the card, and an unregistered pool would lose it from every later sample.
            self.pools.append(Pool(known.copy(), {victim: known.total()}))
            known.clear()
        pools = [pool for pool in self.pools if pool.places.get(victim)]
        pool = self._merge(pools) if len(pools) > 1 else pools[0]
        pool.move(victim, thief)

    def _merge(self, pools: list[Pool]) -> Pool:
        self.merges += 1
        merged = Pool(Counter(), {})
        for pool in pools:
            merged.cards.update(pool.cards)
            for place, count in pool.places.items():
                merged.places[place] = merged.places.get(place, 0) + count
        self.pools = [pool for pool in self.pools if pool not in pools] + [merged]
        return merged

    # --- sampling -----------------------------------------------------------------------------

    def sample(self, rng: Any) -> State:
        state = self.state
        if state is None:
            raise EngineError("nine-tails: nothing seen yet to determinize")
        hands = [list(known.elements()) for known in self.known]
        trickery: list[str] = []
        for pool in self.pools:
            cards = list(pool.cards.elements())
            rng.shuffle(cards)
            at = 0
            for place, count in sorted(pool.places.items()):
                taken = cards[at : at + count]
                at += count
                (trickery if place == DECK else hands[place]).extend(taken)
        hands[self.seat] = list(state.hands[self.seat])
        for seat, hand in enumerate(hands):
            if len(hand) != len(state.hands[seat]):
                raise EngineError(f"nine-tails: seat {seat} holds {len(state.hands[seat])} cards, {len(hand)} placed")
        # A deck with no pool or segment has not been shuffled yet (before the setup's chance step): None.
        return state._replace(
            hands=tuple(sort_hand(tuple(hand)) for hand in hands),
            trickery=_checked("Trickery", trickery if self.pools else None, state.trickery),
            starting=_checked("Starting Fox", _deal(self.starting, rng) if self.starting else None, state.starting),
            wilds=_checked("Wilds", _deal(self.wilds, rng) if self.wilds else None, state.wilds),
        )


def _take(cards: Counter, card: str) -> None:
    if not cards[card]:
        raise EngineError(f"nine-tails: {card} cannot be where the events say it was")
    cards[card] -= 1


def _draw(segments: list[Segment], card: str) -> None:
    """``card`` came face up off the top of a deck of ``segments``."""
    if not segments:
        raise EngineError(f"nine-tails: {card} was drawn from an empty deck")
    top = segments[0]
    _take(top.cards, card)
    top.size -= 1
    if not top.size:
        segments.pop(0)


def _deal(segments: list[Segment], rng: Any) -> list[str]:
    deck: list[str] = []
    for segment in segments:
        cards = list(segment.cards.elements())
        rng.shuffle(cards)
        deck.extend(cards)
    return deck


def _checked(name: str, cards: list[str] | None, folded: tuple) -> tuple[str, ...]:
    """The deck ``cards`` drawn for one the seat folded as ``folded``; None: a deck not shuffled yet, which lies in
    its laid-out order (the folded one, every card of it known)."""
    if cards is None:
        if None in folded:
            raise EngineError(f"nine-tails: the {name} Deck holds unknown cards but was never shuffled")
        return folded
    if len(cards) != len(folded):
        raise EngineError(f"nine-tails: {len(cards)} cards placed in a {name} Deck of {len(folded)}")
    return tuple(cards)


_TRACK = {
    "table_laid": Sighting._table_laid,
    "starting_foxes_shuffled": Sighting._starting_shuffled,
    "starting_fox_dealt": Sighting._fox_dealt,
    "wilds_shuffled": Sighting._wilds_shuffled,
    "trickery_shuffled": Sighting._trickery_shuffled,
    "trickery_dealt": Sighting._dealt,
    "trickery_drawn": Sighting._dealt,
    "trickery_reshuffled": Sighting._trickery_reshuffled,
    "trick_revealed": Sighting._shown,
    "trick_cancelled": Sighting._shown,
    "trickery_discarded": Sighting._shown,
    "card_pickpocketed": Sighting._pickpocketed,
    "fox_ascended": Sighting._ascended,
    "wilds_revealed": Sighting._wilds_revealed,
    "windfall_revealed": Sighting._windfall_revealed,
}
