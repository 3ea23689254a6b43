"""Determinization: full states drawn from what one seat has seen, for search bots (all three games).

A determinized state must give the seat exactly its real view and legal actions, play on to the
end with legal actions, come from the seat's redacted events alone (never a private part it may
not see), and draw the hidden cards uniformly (chi-square on small positions, fixed seeds).
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from statistics import NormalDist

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines import registry
from engines.base import CHANCE, TERMINAL, EngineError, Event, determinize
from engines.chance import Prng
from engines.driver import FirstLegal, play, redact
from engines.lemur_tails.cards import END, KIND
from engines.nine_tails.determinize import DECK
from engines.tails_on_fire.cards import CARDS_OF
from engines.tails_on_fire.state import seat_bits
from tests.engines import twins
from tests.properties import examples
from tests.runs import run_and_verify
from tests.strategies import seeds, twin_games
from tests.toy import ENGINE as TOY

TWIN_SAMPLES = examples(20)  # twin games, each determinized for every seat

GAMES = ("tails-on-fire", "nine-tails", "lemur-tails")
PROPERTY = examples(12)
STEPS_MOST = {"tails-on-fire": 400, "nine-tails": 2500, "lemur-tails": 600}
"""A playout's length: long enough for Nine Tails' first trickery reshuffle (NT-8) most of the time."""
PLAY_ON = 80


def decisions(game: list[twins.Step]) -> list[int]:
    """The indices of a playout's steps that are a seat's decisions."""
    return [index for index, step in enumerate(game) if step.actor >= 0]


def random_steps(engine, config, seed: str, steps_most: int) -> list[twins.Step]:
    """A random legal playout (every seat picks uniformly), as twins.Step records."""
    rng = random.Random(seed)
    return twins.play_out(engine, config, seed, lambda index, state, seat: rng.choice(engine.legal_actions(state)),
                          steps_most=steps_most)


def play_on(engine, state, seed: str, steps: int = PLAY_ON) -> None:
    """Random legal actions and chance steps from ``state``: every one must decide and fold."""
    rng = random.Random(seed)
    for stream in range(steps):
        actor = engine.actor(state)
        if actor == TERMINAL:
            assert sorted(engine.ranking(state))[0] == 1
            return
        if actor == CHANCE:
            events = engine.chance(state, Prng(seed, stream))
        else:
            events = engine.decide(state, rng.choice(engine.legal_actions(state)))
        for event in events:
            state = engine.apply(state, event)


@st.composite
def cut_games(draw: st.DrawFn, game: str):
    """A random playout of ``game`` and a few of its decision steps, in order."""
    engine = registry.get(game)
    config = engine.configure(draw(st.integers(engine.min_seats, engine.max_seats)))
    steps = random_steps(engine, config, draw(seeds), STEPS_MOST[game])
    picked = sorted(draw(st.lists(st.sampled_from(decisions(steps)), min_size=1, max_size=6, unique=True)))
    return engine, steps, picked, draw(st.integers(0, 2**32 - 1))


def check_sampled_states(engine, steps, picked, sample_seed) -> None:
    """At each picked decision, the seat's determinized state shows it its real view and legal actions and plays on."""
    sightings: dict[int, tuple] = {}
    for index in picked:
        seat = steps[index].actor
        truth = steps[index - 1].state
        determinizer, seen = sightings.get(seat, (engine.determinizer(seat), 0))
        history = [event for step in steps[:index] for event in step.events]
        determinizer.see([redact(event, seat) for event in history[seen:]])
        sightings[seat] = (determinizer, len(history))
        sample = determinizer.sample(random.Random(sample_seed + index))
        assert engine.view(sample, seat) == engine.view(truth, seat)
        assert list(engine.legal_actions(sample)) == list(engine.legal_actions(truth))
        assert engine.actor(sample) == seat
        # The real game's own next decision decides in the sample too; then random play goes on.
        after = sample
        for event in engine.decide(sample, steps[index].action):
            after = engine.apply(after, event)
        play_on(engine, after, f"{sample_seed}/{index}")


@PROPERTY
@given(cut_games("tails-on-fire"))
def test_tails_on_fire_samples_show_the_seat_its_own_table(case):
    """Tails on Fire: a sampled table gives the seat its real view and legal actions, and plays on legally."""
    check_sampled_states(*case)


@PROPERTY
@given(cut_games("nine-tails"))
def test_nine_tails_samples_show_the_seat_its_own_table(case):
    """Nine Tails: a sampled table gives the seat its real view and legal actions, and plays on legally."""
    check_sampled_states(*case)


@PROPERTY
@given(cut_games("lemur-tails"))
def test_lemur_tails_samples_show_the_seat_its_own_table(case):
    """Lemur Tails: a sampled table gives the seat its real view and legal actions, and plays on legally."""
    check_sampled_states(*case)


@pytest.mark.parametrize("game", GAMES)
def test_samples_at_chance_steps_the_opening_ones_included(game):
    """Before a chance step, the very first included (the table laid out, no deck shuffled yet), every seat's sample
    is a table at that chance step giving the seat its real view; the step draws on it, and the game plays on.
    (Nine Tails once refused to sample a deck not shuffled yet, so OpenSpiel's resample_from_infostate failed
    during the setup's draws.)"""
    engine = registry.get(game)
    config = engine.configure(engine.default_seats)
    steps = random_steps(engine, config, "chance-steps", STEPS_MOST[game])
    chances = [index for index, step in enumerate(steps) if step.actor == CHANCE and index]
    assert chances[0] == 1  # the setup's shuffles, right after the table is laid
    for seat in range(config.seats):
        determinizer, seen = engine.determinizer(seat), 0
        for index in chances[:6] + chances[6::max(1, len(chances) // 6)]:
            truth = steps[index - 1].state
            history = [event for step in steps[:index] for event in step.events]
            determinizer.see([redact(event, seat) for event in history[seen:]])
            seen = len(history)
            sample = determinizer.sample(random.Random(index))
            assert engine.actor(sample) == CHANCE and engine.view(sample, seat) == engine.view(truth, seat)
            play_on(engine, sample, f"{seat}/{index}")


@pytest.mark.slow
def test_nine_tails_pools_follow_reshuffles_and_pickpockets_to_the_end():
    """Nine Tails: through whole 3- and 4-seat games (reshuffles, pickpockets, ascensions), every seat's samples
    stay consistent, and the trickery pools were both kept apart after a reshuffle and merged when a shown card
    could come from either."""
    kept_apart = merged = 0
    for seats, seed in ((3, "pools-3"), (4, "pools-4")):
        engine = registry.get("nine-tails")
        steps = random_steps(engine, engine.configure(seats), seed, 20_000)
        assert any(event.type == "trickery_reshuffled" for step in steps for event in step.events)
        for seat in range(seats):
            determinizer = engine.determinizer(seat)
            seen = 0
            for index in decisions(steps)[::25]:
                history = [event for step in steps[:index] for event in step.events]
                determinizer.see([redact(event, seat) for event in history[seen:]])
                seen = len(history)
                kept_apart += len(determinizer.pools) > 1
                sample = determinizer.sample(random.Random(index))
                assert engine.view(sample, seat) == engine.view(steps[index - 1].state, seat)
                if steps[index].actor == seat:
                    assert engine.legal_actions(sample) == engine.legal_actions(steps[index - 1].state)
            merged += determinizer.merges
    assert kept_apart and merged


def test_nine_tails_a_pickpocketed_known_card_is_not_lost():
    """Nine Tails (NT-6 7): when a seat whose only hidden card is one the observer saw it steal is pickpocketed
    unseen, that card stays in play: the thief's later cancel with it still fits, and the sample fills every hand."""
    engine = registry.get("nine-tails")
    steps = random_steps(engine, engine.configure(5), "16b", 600)
    observer, index = 0, 527
    history = [event for step in steps[:index] for event in step.events]
    # The position's story, in order: seat 4 steals the observer's befuddle (its only hidden card then), seat 1
    # steals an unseen card from seat 4, and seat 1 later cancels with a befuddle.
    stolen = next(i for i, event in enumerate(history) if event.type == "card_pickpocketed"
                  and event.data == {"seat": 4, "target": observer} and event.private == {"trick": "befuddle"})
    blind = next(i for i, event in enumerate(history) if i > stolen and event.type == "card_pickpocketed"
                 and event.data == {"seat": 1, "target": 4})
    assert any(event.type == "trick_cancelled" and event.data == {"seat": 1, "trick": "befuddle"}
               for event in history[blind:])
    determinizer = engine.determinizer(observer)
    determinizer.see([redact(event, observer) for event in history])
    for sample_seed in range(5):
        sample = determinizer.sample(random.Random(sample_seed))
        assert engine.view(sample, observer) == engine.view(steps[index - 1].state, observer)
        assert [len(hand) for hand in sample.hands] == [len(hand) for hand in steps[index - 1].state.hands]


# --- only what the seat has seen ---------------------------------------------------------------


def garbled(event: Event, seat: int) -> Event:
    """``event`` with any private part ``seat`` may not see replaced by nonsense of the same shape."""
    if event.visible_to(seat):
        return event
    return Event(event.type, event.data, {key: ["garbage"] for key in event.private}, event.audience)


@PROPERTY
@given(st.sampled_from(GAMES), st.data())
def test_the_sampler_reads_only_what_the_seat_may_see(game, data):
    """The sampler takes a seat's events only: run on redacted events, on the unredacted ones, or on events whose
    hidden private parts are garbage, it draws the very same state for the same rng."""
    engine, steps, picked, sample_seed = data.draw(cut_games(game))
    index = picked[-1]
    seat = steps[index].actor
    history = [event for step in steps[:index] for event in step.events]
    states = [
        engine.determinize([change(event, seat) for event in history], seat, random.Random(sample_seed))
        for change in (redact, garbled, lambda event, seat: event)
    ]
    assert states[0] == states[1] == states[2]


@TWIN_SAMPLES
@given(st.sampled_from(GAMES).flatmap(twin_games), st.integers(0, 2**32 - 1))
def test_twin_games_determinize_alike_for_seats_that_cannot_tell_them_apart(pair, sample_seed):
    """Two games that differ only in what a seat cannot know give that seat the same sampled states."""
    for seat in pair.observers:
        if seat is None:
            continue
        index = next((i for i in range(len(pair.a) - 1, 0, -1) if pair.a[i].actor == seat), None)
        if index is None:
            continue
        sampled = [pair.engine.determinize([redact(event, seat) for step in game[:index] for event in step.events],
                                           seat, random.Random(sample_seed)) for game in (pair.a, pair.b)]
        assert sampled[0] == sampled[1]


def test_the_same_rng_draws_the_same_state_and_another_rng_may_not():
    """A sample is a pure function of the seat's events and the rng's draws (a Prng or a random.Random)."""
    engine = registry.get("lemur-tails")
    steps = random_steps(engine, engine.configure(2), "same", 60)
    index = decisions(steps)[-1]
    seat = steps[index].actor
    events = [redact(event, seat) for step in steps[:index] for event in step.events]
    assert engine.determinize(events, seat, Prng("a", 0)) == engine.determinize(events, seat, Prng("a", 0))
    assert engine.determinize(events, seat, random.Random(1)) == engine.determinize(events, seat, random.Random(1))
    assert engine.determinize(events, seat, Prng("a", 0)) != engine.determinize(events, seat, Prng("b", 0))


def test_an_engine_without_a_determinizer_says_so():
    """determinize() on an engine that has no determinizer raises EngineError naming the game."""
    with pytest.raises(EngineError, match="high-cards cannot determinize"):
        determinize(TOY, [], 0, random.Random(0))


def test_lemur_tails_version_1_is_not_determinized():
    """Rules version 1 named physical copies; its logs are verified, never searched."""
    with pytest.raises(EngineError, match="version 2 only"):
        registry.get("lemur-tails", 1).determinizer(0)


# --- the driver's Turn -------------------------------------------------------------------------


class Sampling:
    """Determinizes at every turn, checks the sample against what the Turn shows, then plays the first legal action."""

    def __init__(self, engine, seed: int) -> None:
        self.engine = engine
        self.rng = random.Random(seed)
        self.samples = 0

    def act(self, turn) -> str:
        sample = turn.determinize(self.rng)
        assert self.engine.view(sample, turn.seat) == turn.view
        assert list(self.engine.legal_actions(sample)) == list(turn.legal)
        self.samples += 1
        return self.rng.choice(turn.legal)


@pytest.mark.parametrize("game", GAMES)
def test_turn_determinize_draws_from_the_seats_own_events(game):
    """Turn.determinize(rng) gives a state with the seat's view and legal actions at every turn, and equals
    engine.determinize over the seat's redacted history with the same rng."""
    engine = registry.get(game)
    config = engine.configure(engine.min_seats)
    agents = [Sampling(engine, seat) for seat in range(config.seats)]
    checked = []

    class Compare(Sampling):
        def act(self, turn):
            if self.samples % 20 == 0:
                history = [redact(event, turn.seat) for event in turn._history]
                expected = engine.determinize(history, turn.seat, random.Random(7))
                checked.append(turn.determinize(random.Random(7)) == expected)
            return super().act(turn)

    agents[0] = Compare(engine, 0)
    played = play(engine, config, f"turn-{game}", agents)
    assert played.outcome.reason in ("finished", "forfeit") and played.outcome.forfeit_seat is None
    assert checked and all(checked) and all(agent.samples for agent in agents)


def test_the_driver_builds_no_determinizer_unless_asked():
    """A game whose bots never determinize leaves every Turn's determinizer unmade (the hot loop pays nothing)."""
    made = []
    engine = registry.get("tails-on-fire")

    class Watch:
        def __init__(self):
            self.first = FirstLegal()

        def act(self, turn):
            made.append(turn._determinizer)
            return self.first.act(turn)

    play(engine, engine.configure(3), "lazy", [Watch() for _ in range(3)])
    assert made and all(determinizer is None for determinizer in made)


# --- uniformity: chi-square on small positions, fixed seeds --------------------------------------

ALPHA = 0.001
"""The chi-square tests' significance level: with fixed seeds each passes or fails the same way every run."""


def chi_square_passes(observed: Counter, expected: dict, samples: int) -> tuple[float, float]:
    """The chi-square statistic of ``observed`` against ``expected`` probabilities, and its critical value at ALPHA.

    The critical value is Wilson and Hilferty's cube approximation of the chi-square quantile (within a few
    tenths of a percent for these degrees of freedom).
    """
    assert set(observed) <= set(expected), f"outcomes outside the consistent set: {set(observed) - set(expected)}"
    statistic = sum((observed[key] - samples * p) ** 2 / (samples * p) for key, p in expected.items())
    df = len(expected) - 1
    z = NormalDist().inv_cdf(1 - ALPHA)
    critical = df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3
    return statistic, critical


def position(game: str, seats: int, seed: str, wanted) -> tuple:
    """The first decision of a random playout where ``wanted(state, seat)`` holds: (engine, seat, its redacted
    events, the true state)."""
    engine = registry.get(game)
    steps = random_steps(engine, engine.configure(seats), seed, 20_000)
    for index in decisions(steps):
        state, seat = steps[index - 1].state, steps[index].actor
        if wanted(state, seat):
            events = [redact(event, seat) for step in steps[:index] for event in step.events]
            return engine, seat, events, state
    raise AssertionError(f"no such position in {game} seed {seed}: pick another seed")


def test_tails_on_fire_hidden_cards_are_uniform():
    """TOF: the Iguana pile's order, the rogue deck's order and the other seat's chosen opossums are jointly
    uniform (chi-square)."""

    def small(state, seat):
        table = state.table
        other = 1 - seat
        return (table.iguana_size == 4 and table.rogue_deck_size == 3 and seat_bits(state.left, other) == 2
                and len(CARDS_OF[seat_bits(state.held, other)]) >= 4)

    engine, seat, events, truth = position("tails-on-fire", 2, "uniform-43", small)
    other = 1 - seat
    determinizer = engine.determinizer(seat)
    determinizer.see(events)
    hand = CARDS_OF[seat_bits(truth.held, other)]
    seen_fire = {truth.table.iguana_top} | set(truth.table.boxed) | {
        fire for stacks in truth.table.stacks for stack in stacks for fire in stack.fire}
    below = [card for card in range(1, 10) if card not in seen_fire]
    rogue = sorted(truth.table.rogue_deck)
    outcomes = [(order, deck, picks) for order in itertools.permutations(below)
                for deck in itertools.permutations(rogue) for picks in itertools.combinations(hand, 2)]
    expected = dict.fromkeys(outcomes, 1 / len(outcomes))
    rng = Prng("chi-square tails-on-fire", 0)
    samples = 30 * len(outcomes)
    observed = Counter()
    for _ in range(samples):
        sample = determinizer.sample(rng)
        picks = tuple(CARDS_OF[seat_bits(sample.chosen, other)])
        observed[(sample.table.iguana[1:], sample.table.rogue_deck, picks)] += 1
    statistic, critical = chi_square_passes(observed, expected, samples)
    assert len(observed) == len(outcomes) and statistic < critical, (statistic, critical)


def test_nine_tails_hidden_trickery_cards_are_uniform():
    """NT: with few trickery cards hidden, the other seat's hand and the deck's order are a uniform shuffle of
    the unseen cards (chi-square over every distinct arrangement)."""

    def small(state, seat):
        other = 1 - seat
        return 2 <= len(state.trickery) <= 3 and 2 <= len(state.hands[other]) <= 3 and not state.trick

    engine, seat, events, truth = position("nine-tails", 2, "uniform-0", small)
    other = 1 - seat
    determinizer = engine.determinizer(seat)
    determinizer.see(events)
    (pool,) = determinizer.pools  # after a reshuffle with one pool left, or before any
    assert set(pool.places) <= {DECK, other}
    unseen = list(pool.cards.elements())
    deck_size = len(truth.trickery)
    arrangements = Counter()
    for permutation in itertools.permutations(unseen):
        arrangements[(tuple(sorted(permutation[deck_size:])), permutation[:deck_size])] += 1
    total = sum(arrangements.values())
    expected = {key: count / total for key, count in arrangements.items()}
    rng = Prng("chi-square nine-tails", 0)
    samples = 60 * len(expected)
    observed = Counter()
    for _ in range(samples):
        sample = determinizer.sample(rng)
        observed[(sample.hands[other], sample.trickery)] += 1
    statistic, critical = chi_square_passes(observed, expected, samples)
    assert statistic < critical, (statistic, critical)


def test_lemur_tails_deck_top_and_end_card_are_uniform():
    """LT: the kinds of the deck's top two cards follow the unseen cards' counts, and the End card lies under a
    uniform 0..min(10, cards left) tail cards (chi-square, both)."""

    def late(state, seat):
        return 0 < len(state.deck) - 1 <= 9 and END in state.deck

    engine, seat, events, truth = position("lemur-tails", 2, "uniform-0", late)
    other = 1 - seat
    determinizer = engine.determinizer(seat)
    determinizer.see(events)
    known = determinizer.known
    hidden = [KIND[card] for card in truth.deck if card != END]
    spare = Counter(KIND[card] for card in truth.hands[other]) - known
    unseen = Counter(hidden) + spare
    n = unseen.total()
    tops = {(a, b): unseen[a] / n * (unseen[b] - (a == b)) / (n - 1) for a in unseen for b in unseen
            if unseen[b] - (a == b) > 0}
    left = len(hidden)
    ends = dict.fromkeys(range(min(10, left) + 1), 1 / (min(10, left) + 1))
    rng = Prng("chi-square lemur-tails", 0)
    samples = 6000
    observed_tops, observed_ends = Counter(), Counter()
    for _ in range(samples):
        sample = determinizer.sample(rng)
        deck = sample.deck
        cards = [card for card in deck if card != END]
        observed_tops[(KIND[cards[0]], KIND[cards[1]])] += 1
        observed_ends[len(deck) - 1 - deck.index(END)] += 1
        assert Counter(KIND[card] for card in sample.hands[other]) - Counter(
            KIND[card] for card in truth.hands[other]) <= unseen
    for observed, expected in ((observed_tops, tops), (observed_ends, ends)):
        statistic, critical = chi_square_passes(observed, expected, samples)
        assert statistic < critical, (statistic, critical)


CHECKING_BOT = '''"""Determinizes from the protocol's events every turn; refuses a sample unlike its view."""
import json

from engines import registry

GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        self.engine, self.seat, self.rng = registry.get(game), seat, rng
        self.determinizer = self.engine.determinizer(seat)

    def act(self, turn):
        self.determinizer.see(turn.events)
        sample = self.determinizer.sample(self.rng)
        if json.loads(json.dumps(self.engine.view(sample, self.seat))) != turn.view:
            raise RuntimeError("the sample's view is not the seat's")
        if list(self.engine.legal_actions(sample)) != list(turn.legal):
            raise RuntimeError("the sample's legal actions are not the seat's")
        return self.rng.choice(turn.legal)
'''


@pytest.mark.sandbox
@pytest.mark.parametrize("game", GAMES)
def test_a_sandboxed_bot_determinizes_from_the_protocols_events(tmp_path, game):
    """Through `tourney run`'s JSON-lines protocol in the sandbox, a seat's `events` add up to what it has seen: a bot
    feeding them to the determinizer samples its exact view and legal actions at every turn (else it forfeits)."""
    folder = tmp_path / "bots"
    folder.mkdir()
    (folder / "checking.py").write_text(CHECKING_BOT)
    (folder / "checking_too.py").write_text(CHECKING_BOT)
    rows = run_and_verify(folder, game, tmp_path / "t.db")
    assert {row["bot"] for row in rows} == {"checking", "checking_too"}
