"""Canonical JSON and the hash chain: what is hashed, and that tampering is caught."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.canonical import CanonicalError, canonical, loads
from ledger.chain import ChainError, Record, body_of, commitment, link, seal, verify_chain
from tests.properties import examples
from tests.strategies import json_values

VALUES = examples(80)  # values and events hashed: cheap
ROUND_TRIPS = examples(60)  # JSON values through canonical form and back

SALT = bytes(range(16))


def make_chain(game="g1", n=5):
    records, prev = [], None
    for seq in range(n):
        private = {"card": seq} if seq % 2 else None
        record = seal(game, seq, prev, "moved", {"seat": seq % 3}, private, (seq % 3,), SALT if private else None)
        records.append(record)
        prev = record.hash
    return records


def test_canonical_sorts_keys_and_has_no_whitespace():
    """Keys are sorted and there is no whitespace, so equal data gives equal bytes."""
    assert canonical({"b": 1, "a": [True, None, "x"]}) == b'{"a":[true,null,"x"],"b":1}'


@pytest.mark.parametrize("value", [
    1.5, {"x": 0.0}, [1, 2.0], {"x": 1e16}, [-2.5e-7],
    {"x": float("nan")}, [float("inf")], {"a": [None, float("-inf")]},  # orjson would write these as null
    {1: "int key"}, {"é": 1}, {"x": object()},
])
def test_canonical_refuses_floats_and_odd_keys(value):
    """Floats (NaN and infinities too), non-string and non-ASCII keys, and objects have no canonical form."""
    with pytest.raises(CanonicalError):
        canonical(value)


_ascii_keys = st.text(alphabet=st.characters(max_codepoint=127), max_size=6)


@VALUES
@given(st.recursive(
    st.floats(),  # every leaf a float, NaN and infinities included
    lambda inner: st.lists(inner, min_size=1, max_size=3) | st.dictionaries(_ascii_keys, inner, min_size=1, max_size=3),
    max_leaves=6,
))
def test_canonical_refuses_a_float_at_any_depth(floats):
    """A float anywhere, beside values that are fine (null, float-looking text), is refused."""
    for value in ({"a": None, "b": "0.5", "x": floats}, [1, ",2e3", floats]):
        with pytest.raises(CanonicalError):
            canonical(value)


def test_canonical_keeps_nulls_and_float_looking_text():
    """None is null, and text that looks like a float inside a string is only text."""
    value = {"a": None, "b": ",1.5", "c": ["4e", ":2E3", "0.0"]}
    assert canonical(value) == b'{"a":null,"b":",1.5","c":["4e",":2E3","0.0"]}'


@pytest.mark.slow
@ROUND_TRIPS
@given(json_values)
def test_canonical_round_trips(value):
    """Parsing canonical bytes and writing them again gives the same bytes."""
    try:
        raw = canonical(value)
    except CanonicalError:
        return  # non-ASCII keys are refused, as the test above pins
    assert canonical(loads(raw)) == raw


def test_an_intact_chain_verifies_to_its_head():
    """An untouched chain verifies and returns the last hash."""
    records = make_chain()
    assert verify_chain("g1", records) == records[-1].hash


def test_body_covers_game_seq_step_type_data_and_commitment():
    """The hashed body names the game, seq, step, type, audience, public data and commitment."""
    record = seal("g1", 0, None, "moved", {"seat": 1}, {"card": 7}, (1,), SALT, step=4)
    assert loads(record.body) == {
        "audience": [1], "commitment": commitment(SALT, b'{"card":7}'), "data": {"seat": 1}, "game": "g1", "seq": 0,
        "step": 4, "type": "moved",
    }


def test_changed_event_is_caught_at_its_seq():
    """Changing the data of one event breaks the chain exactly there."""
    records = make_chain()
    body = body_of("g1", 2, "moved", "public", {"seat": 0, "extra": 1}, None)
    records[2] = records[2]._replace(body=body)
    with pytest.raises(ChainError) as caught:
        verify_chain("g1", records)
    assert caught.value.seq == 2


def test_changed_private_part_is_caught_by_its_commitment():
    """A private part that does not match its commitment is caught at its seq."""
    records = make_chain()
    records[3] = records[3]._replace(private=b'{"card":99}')
    with pytest.raises(ChainError, match="commitment") as caught:
        verify_chain("g1", records)
    assert caught.value.seq == 3


@pytest.mark.parametrize(
    ("mutate", "first_bad"),
    [
        (lambda r: r[:2] + r[3:], 2),  # dropped
        (lambda r: [*r[:3], r[2], *r[3:]], 3),  # duplicated
        (lambda r: [r[0], r[2], r[1], *r[3:]], 1),  # reordered
        (lambda r: [r[0], *r[2:]], 1),  # first after genesis dropped
    ],
    ids=["dropped", "duplicated", "reordered", "dropped-early"],
)
def test_dropped_duplicated_and_reordered_events_are_caught(mutate, first_bad):
    """Structural tampering is reported at the first seq that no longer holds."""
    with pytest.raises(ChainError) as caught:
        verify_chain("g1", mutate(make_chain()))
    assert caught.value.seq == first_bad


def test_resealed_event_with_renumbered_seq_still_breaks_the_next_link():
    """Rewriting one event with a recomputed hash breaks the link of the event after it."""
    records = make_chain()
    forged = seal("g1", 1, records[0].hash, "moved", {"seat": 2}, None)
    records[1] = forged
    with pytest.raises(ChainError) as caught:
        verify_chain("g1", records)
    assert caught.value.seq == 2


def test_a_body_hashing_another_seq_is_caught_even_when_every_link_holds():
    """A record at seq 2 whose hashed body says seq 5, re-linked so every hash checks, is caught at seq 2."""
    records = make_chain(n=3)
    body = body_of("g1", 5, "moved", "public", {"seat": 2}, None)
    records[2] = records[2]._replace(body=body, hash=link(records[1].hash, body))
    with pytest.raises(ChainError, match="seq 5") as caught:
        verify_chain("g1", records)
    assert caught.value.seq == 2


def test_a_chain_belongs_to_its_game():
    """Events sealed for one game do not verify as another game's."""
    with pytest.raises(ChainError) as caught:
        verify_chain("g2", make_chain("g1"))
    assert caught.value.seq == 0


@given(st.binary(min_size=16, max_size=16), st.integers(0, 9))
def test_commitment_depends_on_the_salt(salt, card):
    """The same hidden card under two salts gives two commitments (no guessing table)."""
    private = canonical({"card": card})
    assert commitment(salt, private) != commitment(bytes(16) if salt != bytes(16) else b"\x01" * 16, private)


def test_redacting_a_private_part_keeps_the_chain():
    """Dropping private parts and salts leaves every body and hash, so the chain verifies."""
    records = [r._replace(private=None, salt=None) for r in make_chain()]
    assert verify_chain("g1", records) == make_chain()[-1].hash


def test_private_part_needs_a_salt():
    """Sealing a private part without a 16-byte salt is refused."""
    with pytest.raises(ValueError, match="salt"):
        seal("g", 0, None, "t", {}, {"card": 1}, (0,), None)


def test_record_is_frozen():
    """Records are immutable values."""
    with pytest.raises(AttributeError):
        make_chain()[0].seq = 5  # type: ignore[misc]
    assert isinstance(make_chain()[0], Record)


@VALUES
@given(game=st.text(max_size=12), seq=st.integers(0, 10**6), step=st.integers(0, 10**6), type_=st.text(max_size=12),
       audience=st.just("public") | st.lists(st.integers(0, 9), max_size=4), data=json_values,
       commit=st.none() | st.text("0123456789abcdef", min_size=64, max_size=64))
def test_body_is_orjsons_canonical_serialization_of_the_envelope(game, seq, step, type_, audience, data, commit):
    """The body put together from its parts equals orjson's sorted serialization of the whole object."""
    import orjson

    try:
        expected_data = canonical(data)
    except CanonicalError:
        return
    whole = {"audience": audience, "commitment": commit, "data": orjson.Fragment(expected_data), "game": game,
             "seq": seq, "step": step, "type": type_}
    assert body_of(game, seq, type_, audience, data, commit, step) == orjson.dumps(whole, option=orjson.OPT_SORT_KEYS)
