"""No information through identities or order: twin games look the same to every seat that cannot tell them apart.

Two games that differ only in what a seat cannot know (which copy of a kind was dealt, the deck
below what was revealed, another seat's hand order or pick order) must give that seat, and a
spectator, identical views and identical redacted events at every step. tests/engines/twins.py
builds the twins; tests/strategies.py draws them.
"""

from __future__ import annotations

from hypothesis import given

from engines import registry
from tests.engines import twins
from tests.properties import examples
from tests.strategies import twin_games

TWINS = examples(50)


def assert_alike(pair) -> None:
    difference = twins.first_difference(pair.engine, pair.a, pair.b, pair.observers)
    assert difference is None, f"{pair.symmetry.name} (seed {pair.seed!r}): {difference}"


@TWINS
@given(twin_games("lemur-tails"))
def test_lemur_tails_twins_look_alike(pair):
    """LT-16, LT-21: which copy of a kind lies where, the deck below what was drawn and a dealt hand's order
    change no view and no redacted event of a seat that cannot see them."""
    assert_alike(pair)


@TWINS
@given(twin_games("nine-tails"))
def test_nine_tails_twins_look_alike(pair):
    """NT: the decks below what was dealt, revealed or drawn and a dealt trickery hand's order change no view
    and no redacted event of a seat that cannot see them."""
    assert_alike(pair)


@TWINS
@given(twin_games("tails-on-fire"))
def test_tails_on_fire_twins_look_alike(pair):
    """TOF-14: the Iguana pile below its top, the rogue deck below what was drawn and a seat's pick order
    change no view and no redacted event of another seat."""
    assert_alike(pair)


def copies_swapped(version: int, observers: tuple[int | None, ...], seed: str = "copies") -> str | None:
    """Where ``observers`` first tell apart a Lemur Tails game and its twin in which every kind's copies trade
    places in the shuffle (a rotation); None if they never do."""
    engine = registry.get("lemur-tails", version)
    config = engine.configure(2)
    a = twins.random_playout(engine, config, seed, 7)[:60]
    symmetry = next(s for s in twins.lemur_tails(a, config) if s.name == "which copy of a kind")
    groups = symmetry.shuffles[0].groups
    order = tuple(position for group in groups for position in (*group[1:], group[0]))
    b = twins.replay(engine, config, seed, a, symmetry, {(0, 0): order}, ())
    return twins.first_difference(engine, a, b, observers)


def test_lemur_tails_version_1_told_copies_apart():
    """The twin test has teeth: rules version 1 named copies in public events, so a spectator told its twins apart."""
    difference = copies_swapped(1, (None,))
    assert difference is not None and "a spectator sees other events" in difference and "market_laid" in difference


def test_lemur_tails_version_2_names_kinds_only():
    """LT-21: with every copy of every kind traded, version 2's games look the same to both seats and a spectator."""
    assert copies_swapped(2, (0, 1, None)) is None



def test_tails_on_fire_a_rogue_card_drawn_before_the_round_ended_stays_seen():
    """TOF-8: a rogue card drawn face up in the round's last turn is seen by all, though the round's end gathers the
    whole rogue deck again: the twins trade only the cards the Rogue never drew, and no seat tells them apart."""
    engine = registry.get("tails-on-fire")
    config = engine.configure(2)
    a = twins.random_playout(engine, config, "17c", 583)[:55]
    assert [event.type for event in a[-1].events][1::2] == ["rogue_reserved", "round_prepared"]
    assert a[-1].state.table.rogue_deck is None  # gathered for the next round's shuffle
    (symmetry,) = [s for s in twins.tails_on_fire(a, config) if s.name == "the rogue deck below what was drawn"]
    (shuffle,) = symmetry.shuffles
    assert shuffle.groups == (tuple(range(1, 9)),)  # the top card is the one reserved face up
    (group,) = shuffle.groups
    b = twins.replay(engine, config, "17c", a, symmetry, {(shuffle.stream, shuffle.call): (*group[1:], group[0])})
    dealt = [step.state.table.rogue_deck for game in (a, b) for step in game if step.stream == shuffle.stream]
    assert dealt[0][0] == dealt[1][0] and dealt[0] != dealt[1]
    assert twins.first_difference(engine, a, b, (0, 1, None)) is None
