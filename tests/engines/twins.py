"""Twin games: two games that differ only in what some seats cannot know.

Game A is a random legal playout. Game B replays A's decisions with the same seed, except that
some chance outcomes come out permuted the way a hidden-information symmetry allows: copies of
one kind trade places (which copy was dealt), cards still in a deck trade places (the deck
beyond what was revealed), the cards of one hand trade places (that hand's order), or a seat
makes its secret picks in another order. Each game's ``symmetries`` lists, for a prefix of A,
which positions of which shuffle may be permuted and which seats may see the difference; every
other seat (and a spectator) must then see the very same views and redacted events in A and B
at every step (tests/engines/test_hidden_information.py).

B is a real game, not edited events: its rng's shuffles come out permuted (``Rewired``) and the
engine draws everything else (deals, draws) from them, so every event of B is one the rules
produce.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from engines.base import CHANCE, SETUP, TERMINAL, Config, Engine, Event, fold
from engines.chance import Prng
from engines.driver import redact
from engines.lemur_tails.cards import END, KIND, KIND_OF_NAME, TAIL_CARDS
from engines.nine_tails.cards import HAND_AT_START, STARTING_FOX_IDS, TRICKERY_CARDS, WILDS_IDS
from engines.tails_on_fire.cards import ACTIONS, CHOOSE_ACTION, PLAY_ACTION
from engines.tails_on_fire.view import view as tails_on_fire_view

STEPS_MOST = 300
"""A's playout stops after this many steps: enough to deal, draw, reveal and play, and fast."""


class Step(NamedTuple):
    actor: int
    """A seat, CHANCE or SETUP."""
    action: str | None
    stream: int
    """The chance stream a chance step drew from, else -1."""
    events: tuple[Event, ...]
    state: Any
    """The state after the step."""


class Shuffle(NamedTuple):
    """Positions of one shuffle's outcome that may trade places: the ``call``-th shuffle of chance step ``stream``."""

    stream: int
    call: int
    groups: tuple[tuple[int, ...], ...]
    """Each group's positions may be permuted among themselves."""


class Symmetry(NamedTuple):
    kind: str
    """What differs: "which copy", "deck", "hand order", "pick order" or "picks"."""
    name: str
    shuffles: tuple[Shuffle, ...] = ()
    picks: tuple[int, ...] = ()
    """Step indices whose decisions may be made in another order (a seat's secret picks)."""
    swaps: tuple[tuple[int, tuple[str, ...]], ...] = ()
    """(step index, decisions that may be taken there instead): a secret pick of another card."""
    seen_by: frozenset[int] = frozenset()
    """Seats that may see the difference; every other seat and a spectator must not."""


class Rewired:
    """A Prng whose shuffles come out permuted: ``orders[call]`` is where the n-th position's card comes from."""

    def __init__(self, rng: Prng, orders: dict[int, dict[int, int]]) -> None:
        self._rng = rng
        self._orders = orders
        self.calls = 0

    def shuffled(self, items: Sequence[Any]) -> list[Any]:
        out = self._rng.shuffled(items)
        source = self._orders.get(self.calls, {})
        self.calls += 1
        return [out[source.get(position, position)] for position in range(len(out))]

    def below(self, n: int) -> int:
        return self._rng.below(n)

    def choice(self, items: Sequence[Any]) -> Any:
        return self._rng.choice(items)

    def sample(self, items: Sequence[Any], k: int) -> list[Any]:
        return self._rng.sample(items, k)


def play_out(
    engine: Engine,
    config: Config,
    seed: str,
    action_at: Callable[[int, Any, int], str],
    rewired: dict[int, dict[int, dict[int, int]]] | None = None,
    steps_most: int = STEPS_MOST,
) -> list[Step]:
    """Play to the end or to ``steps_most`` steps; ``action_at(step index, state, seat)`` decides.

    ``rewired[stream][call]`` maps positions of that shuffle to the positions their cards come from.
    """
    rewired = rewired or {}
    start = tuple(engine.start(config))
    state = fold(engine, start)
    steps = [Step(SETUP, None, -1, start, state)]
    stream = 0
    while len(steps) < steps_most and (actor := engine.actor(state)) != TERMINAL:
        action, used = None, -1
        if actor == CHANCE:
            rng: Any = Prng(seed, stream)
            if stream in rewired:
                rng = Rewired(rng, rewired[stream])
            events = tuple(engine.chance(state, rng))
            if stream in rewired:
                assert rng.calls > max(rewired[stream]), f"chance step {stream} has no shuffle to permute"
            used, stream = stream, stream + 1
        else:
            action = action_at(len(steps), state, actor)
            events = tuple(engine.decide(state, action))
        state = fold(engine, events, state)
        steps.append(Step(actor, action, used, events, state))
    return steps


def random_playout(engine: Engine, config: Config, seed: str, bot_seed: int) -> list[Step]:
    """Game A: every seat picks uniformly among its legal actions."""
    rng = random.Random(bot_seed)
    return play_out(engine, config, seed, lambda index, state, seat: rng.choice(engine.legal_actions(state)))


def replay(engine: Engine, config: Config, seed: str, game: list[Step], symmetry: Symmetry,
           orders: dict[tuple[int, int], tuple[int, ...]], picks: tuple[int, ...] = (),
           swapped: tuple[str, ...] = ()) -> list[Step]:
    """Game B: ``game``'s decisions (its picks reordered by ``picks``, its swaps taken as ``swapped``), its
    shuffles permuted by ``orders``.

    ``orders[(stream, call)]`` lists, group after group, the positions the group's cards come from.
    """
    rewired: dict[int, dict[int, dict[int, int]]] = {}
    for shuffle in symmetry.shuffles:
        sources = iter(orders[(shuffle.stream, shuffle.call)])
        moves = rewired.setdefault(shuffle.stream, {}).setdefault(shuffle.call, {})
        for group in shuffle.groups:
            for position in group:
                moves[position] = next(sources)
    action_of = {index: game[index].action for index in range(len(game))}
    for index, source in zip(symmetry.picks, picks, strict=True):
        action_of[index] = game[source].action
    for (index, _), action in zip(symmetry.swaps, swapped, strict=True):
        action_of[index] = action
    return play_out(engine, config, seed, lambda index, state, seat: action_of[index], rewired, len(game))


def first_difference(engine: Engine, a: list[Step], b: list[Step], observers: Sequence[int | None]) -> str | None:
    """Where an observer's view or redacted events first differ between two games (None if nowhere)."""
    for index, (left, right) in enumerate(zip(a, b, strict=True)):
        for seat in observers:
            seen = [redact(event, seat) for event in left.events]
            other = [redact(event, seat) for event in right.events]
            if seen != other:
                return f"step {index}: {_who(seat)} sees other events: {seen} vs {other}"
            view = engine.view(left.state, seat)
            if view != engine.view(right.state, seat):
                return f"step {index}: {_who(seat)} has another view: {view} vs {engine.view(right.state, seat)}"
    return None


def _who(seat: int | None) -> str:
    return "a spectator" if seat is None else f"seat {seat}"


# ---------------------------------------------------------------------- the games' symmetries


def lemur_tails(game: list[Step], config: Config) -> list[Symmetry]:
    """Which copy of a kind lies where (LT-16), the deck below what was drawn, and each dealt hand's order.

    The shuffle is chance step 0 (ids, top first); seat 0 is dealt its first eight cards, seat 1 the
    next eight (engines/lemur_tails/engine.py); cards leave the deck only from the top.
    """
    order = _first(game, "deck_shuffled").private["order"]
    copies = tuple(tuple(p for p in range(TAIL_CARDS) if _kind_at(order, p) == kind) for kind in range(22))
    left = sum(1 for card in game[-1].state.deck if card != END)
    out = [
        Symmetry("which copy", "which copy of a kind", (Shuffle(0, 0, copies),)),
        Symmetry("deck", "the deck below what was drawn", (Shuffle(0, 0, (_last(TAIL_CARDS, left),)),)),
    ]
    for seat in (0, 1):
        hand = tuple(range(8 * seat, 8 * seat + 8))
        out.append(Symmetry("hand order", f"seat {seat}'s dealt hand order", (Shuffle(0, 0, (hand,)),),
                            seen_by=frozenset({seat})))
    return out


def nine_tails(game: list[Step], config: Config) -> list[Symmetry]:
    """The three decks below what was drawn, and each dealt trickery hand's order.

    Setup is chance step 0: it shuffles the Starting Fox, Wilds and Trickery Decks in that order
    and deals three trickery cards to each seat in seat order. Starting foxes leave from the top
    (the deal, a new fox at each ascension), Wilds cards too (VENTURE, Windfall); ascension puts
    cards under them. A Trickery Deck is only ever drawn from, until a reshuffle replaces it.
    Trickery copies are named by their trick, so "which copy" is no symmetry here: permuting
    copies leaves every order as it was.
    """
    seats = config.seats
    events = [(step, event) for step in game for event in step.events]
    new_foxes = sum(1 for _, event in events if event.type == "fox_ascended" and event.data["new_fox"])
    revealed = sum(len(event.data["cards"]) for _, event in events if event.type == "wilds_revealed")
    revealed += sum(1 for _, event in events if event.type == "windfall_revealed")
    starting_left = max(0, len(STARTING_FOX_IDS) - seats - new_foxes)
    wilds_left = max(0, len(WILDS_IDS) - revealed)
    deck = game[-1].state.trickery
    reshuffles = [step.stream for step, event in events if event.type == "trickery_reshuffled"]
    if reshuffles:
        trickery = Shuffle(reshuffles[-1], 0, (_last(_reshuffled(game, reshuffles[-1]), len(deck)),))
    else:
        trickery = Shuffle(0, 2, (_last(len(TRICKERY_CARDS), len(deck)),))
    out = [
        Symmetry("deck", "the starting foxes below what was dealt",
                 (Shuffle(0, 0, (_last(len(STARTING_FOX_IDS), starting_left),)),)),
        Symmetry("deck", "the Wilds Deck below what was revealed",
                 (Shuffle(0, 1, (_last(len(WILDS_IDS), wilds_left),)),)),
        Symmetry("deck", "the Trickery Deck below what was drawn", (trickery,)),
    ]
    for seat in range(seats):
        hand = tuple(range(HAND_AT_START * seat, HAND_AT_START * (seat + 1)))
        out.append(Symmetry("hand order", f"seat {seat}'s dealt trickery order", (Shuffle(0, 2, (hand,)),),
                            seen_by=frozenset({seat})))
    return out


def tails_on_fire(game: list[Step], config: Config) -> list[Symmetry]:
    """The Iguana pile below its top, the rogue deck below what the Rogue drew, and each seat's picks.

    Picks are decisions, each private to its seat (TOF-14): a seat choosing the same opossums in
    another order, or choosing another opossum that it then does not play, must look the same to
    everyone else.
    """
    out = []
    table = game[-1].state.table
    iguana = next(step.stream for step in game if any(e.type == "iguana_shuffled" for e in step.events))
    if table.iguana_size > 1:
        out.append(Symmetry("deck", "the Iguana pile below its top",
                            (Shuffle(iguana, 0, (_last(9, table.iguana_size - 1),)),)))
    rogue = [index for index, step in enumerate(game) if any(e.type == "rogue_shuffled" for e in step.events)]
    if rogue:
        # Counted from the events, not read off the last table: the round's end gathers every rogue card for the
        # next shuffle (rulebook "Prepare the Rogue for Next Round"), and the cards drawn face up stay seen.
        shuffled = game[rogue[-1]]
        size = next(e.data["size"] for e in shuffled.events if e.type == "rogue_shuffled")
        left = size - sum(1 for step in game[rogue[-1] + 1 :] for e in step.events
                          if e.type == "rogue_reserved" or (e.type == "rogue_played" and e.data["from"] == "deck"))
        if left:
            out.append(Symmetry("deck", "the rogue deck below what was drawn",
                                (Shuffle(shuffled.stream, 0, (_last(size, left),)),)))
    # A seat's picks of one round are consecutive pick decisions by that seat (TOF-14).
    runs: list[list[int]] = []
    for index, step in enumerate(game):
        if step.action is not None and step.action.startswith("choose:"):
            if runs and game[runs[-1][-1]].actor == step.actor and runs[-1][-1] == index - 1:
                runs[-1].append(index)
            else:
                runs.append([index])
    for run in runs:
        seat = game[run[0]].actor
        where = f"seat {seat}'s picks at step {run[0]}"
        if len(run) > 1:
            out.append(Symmetry("pick order", f"{where}, in another order", picks=tuple(run),
                                seen_by=frozenset({seat})))
        # A pick that the seat does not play before the next round's picks may have been another opossum.
        played = set()
        for step in game[run[-1] + 1 :]:
            if step.action is not None and step.action.startswith("choose:") and played:
                break
            if step.actor == seat:
                played.add(step.action)
        hand = tails_on_fire_view(game[run[0] - 1].state, seat)["hand"]
        chosen = {game[index].action for index in run}
        others = tuple(CHOOSE_ACTION[card] for card in hand if CHOOSE_ACTION[card] not in chosen)
        swaps = tuple((index, others) for index in run if PLAY_ACTION[ACTIONS[game[index].action][1]] not in played)
        if swaps and others:
            out.append(Symmetry("picks", f"{where}, another unplayed opossum", swaps=swaps[:1],
                                seen_by=frozenset({seat})))
    return out



SYMMETRIES: dict[str, Callable[[list[Step], Config], list[Symmetry]]] = {
    "lemur-tails": lemur_tails,
    "nine-tails": nine_tails,
    "tails-on-fire": tails_on_fire,
}


def _first(game: list[Step], kind: str) -> Event:
    return next(event for step in game for event in step.events if event.type == kind)


def _kind_at(order: list, position: int) -> int:
    """The kind at ``position`` of a Lemur Tails shuffle, named by id (version 1) or by kind (version 2)."""
    card = order[position]
    return KIND[card] if isinstance(card, int) else KIND_OF_NAME[card]


def _last(size: int, count: int) -> tuple[int, ...]:
    """The last ``count`` positions of a shuffle of ``size`` cards."""
    return tuple(range(size - count, size))


def _reshuffled(game: list[Step], stream: int) -> int:
    """How many cards the reshuffle of chance step ``stream`` shuffled."""
    return next(e.data["size"] for step in game if step.stream == stream for e in step.events
                if e.type == "trickery_reshuffled")
