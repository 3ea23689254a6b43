"""JSON log format v1: export, import, round trip, idempotence, clear errors."""

from __future__ import annotations

import copy
import random

import orjson
import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from engines.driver import play
from ledger.store import Ledger
from replays import archive
from replays import log as logfmt
from replays.record import SeatInfo, record, seed_commitment
from replays.verify import verify_log
from tests.properties import examples
from tests.toy import ENGINE as TOY

STORED_GAMES = examples(15, HealthCheck.function_scoped_fixture)  # a game stored, exported, imported per example
EVENTS = examples(300)  # single events: cheap


class RandomAgent:
    def __init__(self, seed):
        self.rng = random.Random(seed)

    def act(self, turn):
        return self.rng.choice(turn.legal)


def recorded_game(seed="s", seats=2, game_id=None):
    config = TOY.configure(seats)
    played = play(TOY, config, seed, [RandomAgent(i) for i in range(seats)])
    infos = [SeatInfo(f"bot{i}", f"{i:064x}") for i in range(seats)]
    return record(TOY, config, seed, played, infos, game_id=game_id, salt_key=b"k" * 32)


def stored(ledger, recorded):
    bots = [ledger.ensure_bot(s.name, s.hash, "python") for s in recorded.seats]
    archive.store_recorded(ledger, recorded, bots)
    return recorded.game_id


@pytest.mark.slow
@STORED_GAMES
@given(seed=st.text("0123456789abcdef", min_size=1, max_size=12), seats=st.integers(2, 4))
def test_export_import_export_round_trip(tmp_path_factory, seed, seats):
    """A stored game exported, imported into another ledger and exported again gives the same bytes, but for
    the signature: each ledger signs the head with its own key."""
    directory = tmp_path_factory.mktemp("roundtrip")
    first, second = Ledger(str(directory / "a.db")), Ledger(str(directory / "b.db"))
    game_id = stored(first, recorded_game(seed, seats))
    exported = archive.export(first, game_id)
    result = archive.import_log(second, logfmt.parse(logfmt.dumps(exported)))
    assert result.new and result.game_id == game_id
    again = archive.export(second, game_id)
    assert exported.pop("signature")["public_key"] == first.public_key().hex()
    assert again.pop("signature")["public_key"] == second.public_key().hex() != first.public_key().hex()
    assert logfmt.dumps(again) == logfmt.dumps(exported)
    assert second.records(game_id) == first.records(game_id)
    first.close()
    second.close()


def test_log_envelope_names_everything(ledger):
    """The envelope holds format, versions, config, seats, seed commitment, seed, events, result."""
    recorded = recorded_game("env", 2)
    log = archive.export(ledger, stored(ledger, recorded))
    assert log["format"] == "tourney-log" and log["format_version"] == 1
    assert log["game"] == "high-cards" and log["engine_version"] == 1
    assert log["config"] == {"seats": 2, "options": {}}
    assert [s["bot"] for s in log["seats"]] == ["bot0", "bot1"]
    assert log["seed"] == "env" and log["seed_commitment"] == seed_commitment("env")
    assert log["events"][0]["type"] == "game_started" and log["events"][-1]["type"] == "game_ended"
    assert log["result"] == {"ranking": list(recorded.ranking), "reason": "finished"}
    assert log["head"] == log["events"][-1]["hash"]
    assert [e["seq"] for e in log["events"]] == list(range(len(log["events"])))


def test_import_is_idempotent(ledger):
    """The same log twice stores one game."""
    other = Ledger(str(ledger.url.removeprefix("sqlite:///")) + ".other")
    log = archive.export(other, stored(other, recorded_game("twice")))
    assert archive.import_log(ledger, log).new is True
    assert archive.import_log(ledger, copy.deepcopy(log)).new is False
    with ledger.read() as connection:
        assert connection.exec_driver_sql("SELECT COUNT(*) FROM games").scalar() == 1


def tampered(ledger, mutate):
    log = archive.export(ledger, stored(ledger, recorded_game("tamper", 3)))
    mutate(log)
    return log


@pytest.mark.parametrize(
    ("mutate", "seq"),
    [
        (lambda log: log["events"][4]["data"].update(seat=log["events"][4]["data"]["seat"] + 1), 4),
        (lambda log: log["events"].pop(5), 5),
        (lambda log: log["events"].insert(6, copy.deepcopy(log["events"][6])), 7),
        (lambda log: log["events"].__setitem__(slice(5, 7), log["events"][6:4:-1]), 5),
        (lambda log: log["events"][2]["private"].update(cards=[1, 2, 3]), 2),
    ],
    ids=["changed", "dropped", "duplicated", "swapped", "private-changed"],
)
def test_import_refuses_a_tampered_log_naming_the_first_bad_seq(ledger, tmp_path, mutate, seq):
    """A log whose chain is broken is refused with its first bad seq, and nothing is stored."""
    log = tampered(ledger, mutate)
    target = Ledger(str(tmp_path / "target.db"))
    with pytest.raises(logfmt.LogError) as caught:
        archive.import_log(target, log)
    assert caught.value.seq == seq
    assert f"seq {seq}" in str(caught.value)
    with target.read() as connection:
        for table in ("games", "sealed_games", "events"):
            assert connection.exec_driver_sql(f"SELECT COUNT(*) FROM {table}").scalar() == 0


def test_header_that_disagrees_with_the_hashed_events_is_refused(ledger, tmp_path):
    """Changing a seat's bot or the result in the header alone is caught."""
    for mutate in (lambda log: log["seats"][0].update(bot="impostor"),
                   lambda log: log["result"].update(ranking=[1, 1, 1])):
        with pytest.raises(logfmt.LogError):
            verify_log(tampered(ledger, mutate))


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"{not json", "not JSON"),
        (b"[1, 2]", "a log is a JSON object"),
        (b'{"format": "other"}', "not a tourney log"),
        (b'{"format": "tourney-log", "format_version": 99}', "newer than this tourney reads"),
        (b'{"format": "tourney-log", "format_version": 0}', "unknown log format version 0"),
        (b'{"format": "tourney-log", "format_version": "1"}', "must be an integer"),
    ],
)
def test_unreadable_logs_get_one_clear_line(raw, message):
    """Not JSON, not a log, an unknown or future version: a LogError that says which."""
    with pytest.raises(logfmt.LogError, match=message):
        logfmt.parse(raw)


def test_shape_errors_name_the_field(ledger):
    """A missing or mistyped field is named."""
    log = archive.export(ledger, stored(ledger, recorded_game("shape")))
    broken = {**log, "events": [*log["events"][:2], {"seq": "two"}]}
    with pytest.raises(logfmt.LogError, match=r"events\[2\]: 'seq' must be an integer"):
        logfmt.check_shape(broken)
    with pytest.raises(logfmt.LogError, match="'game_id' must be a string"):
        logfmt.check_shape({**log, "game_id": 5})


_FIELD_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 3), st.text(max_size=3), st.just("public"), st.just("ab" * 16),
    st.lists(st.integers(0, 3), max_size=2), st.lists(st.text(max_size=1), max_size=2), st.just({}),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)
_EVENT_KEYS = ("seq", "step", "type", "data", "hash", "audience", "commitment", "salt", "private", "extra")


@EVENTS
@given(event=st.one_of(
    st.dictionaries(st.sampled_from(_EVENT_KEYS), _FIELD_VALUES),
    st.builds(lambda valid, changes, dropped: {**{k: v for k, v in valid.items() if k not in dropped}, **changes},
              st.sampled_from([
                  {"seq": 0, "step": 0, "type": "t", "data": {}, "hash": "h", "audience": "public", "commitment": None},
                  {"seq": 1, "step": 1, "type": "t", "data": {"a": 1}, "hash": "h", "audience": [0],
                   "commitment": "c", "salt": "ab" * 16, "private": {"x": 1}},
              ]),
              st.dictionaries(st.sampled_from(_EVENT_KEYS), _FIELD_VALUES, max_size=2),
              st.sets(st.sampled_from(_EVENT_KEYS), max_size=2)),
    _FIELD_VALUES,
))
def test_the_fast_shape_check_and_the_explaining_one_agree(event):
    """An event the fast check (_fields) refuses is named by _check_event, never as merely malformed;
    one it accepts hands back its fields in order."""
    fields = logfmt._fields(event)
    if fields is None:
        with pytest.raises(logfmt.LogError) as refused:
            logfmt._check_event(event, 3, "log")
        assert "events[3]" in str(refused.value) and "is malformed" not in str(refused.value)
    else:
        keys = ("seq", "step", "type", "data", "hash", "audience", "commitment")
        assert fields[:7] == tuple(event[k] for k in keys)
        assert fields[7:] == (event.get("salt"), event.get("private"))


def test_redacted_log_keeps_the_chain_and_hides_others_cards(ledger):
    """A seat's view keeps its own private parts and only commitments of the others'."""
    log = archive.export(ledger, stored(ledger, recorded_game("view", 2)))
    seat0 = logfmt.redact(log, "seat:0")
    spectator = logfmt.redact(log, "spectator")
    for event in spectator["events"]:
        assert "private" not in event and "salt" not in event
    for event in seat0["events"]:
        if "private" in event:
            assert 0 in event["audience"]
    assert logfmt.redact(log, "full") == log
    from ledger.chain import verify_chain

    assert verify_chain(log["game_id"], logfmt.records_of(spectator)) == log["head"]
    text = orjson.dumps(spectator)
    hidden = [e["private"] for e in log["events"] if e.get("private") and e["audience"] == [1]]
    assert hidden and all(orjson.dumps(h) not in text for h in hidden)


def test_unknown_view_is_refused():
    """Only full, spectator and seat:K exist."""
    with pytest.raises(logfmt.LogError, match="unknown view"):
        logfmt.parse_view("seat:9", 2)


@pytest.mark.slow
def test_exported_logs_match_the_published_json_schema(ledger):
    """docs/log-format.schema.json accepts real logs, full and redacted, and refuses a wrong version, an unknown
    field at the top, in a seat entry, an event, the config or the result, and a view its private parts belie."""
    import json
    from pathlib import Path

    import jsonschema

    schema = json.loads((Path(__file__).parents[2] / "docs" / "log-format.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    log = archive.export(ledger, stored(ledger, recorded_game("schema", 3)))
    for view in ("full", "spectator", "seat:1"):
        jsonschema.validate(logfmt.redact(log, view), schema)
    private = next(index for index, event in enumerate(log["events"]) if "private" in event)

    def changed(mutate, view="full"):
        out = copy.deepcopy(logfmt.redact(log, view))
        mutate(out)
        return out

    def bare(out):
        del out["events"][private]["private"], out["events"][private]["salt"]

    refused = [
        changed(lambda out: out.update(format_version=2)),
        changed(lambda out: out.update(colour="red")),
        changed(lambda out: out["seats"][0].update(colour="red")),
        changed(lambda out: out["events"][3].update(colour="red")),
        changed(lambda out: out["config"].update(colour="red")),
        changed(lambda out: out["result"].update(colour="red")),
        changed(bare),  # a full log without a private part
        changed(lambda out: out["events"][private].update(log["events"][private]), "spectator"),
        changed(lambda out: out["events"][0].update(private={}, salt="ab" * 16)),  # a public event's
    ]
    for forged in refused:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(forged, schema)
