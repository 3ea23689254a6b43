"""Verification of real logs: untouched logs pass, every forgery is caught at its first bad seq."""

from __future__ import annotations

import contextlib
import copy
import re

import orjson
import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from engines import registry
from engines.base import Event
from ledger.canonical import canonical
from ledger.chain import commitment
from replays import log as logfmt
from replays import signing
from replays.verify import VerifyError, verify_log
from tests import cli
from tests.properties import examples
from tests.replays.forgery import RandomAgent, real_log, reseal
from tests.strategies import wild_json

TAMPERINGS = examples(60, HealthCheck.function_scoped_fixture)  # one stored log changed per example
TAMPERED_LOGS = examples(40, HealthCheck.function_scoped_fixture)  # a log changed and verified per example

GAMES = ["tails-on-fire", "lemur-tails", "nine-tails"]


@pytest.fixture(scope="module", params=GAMES)
def log(request):
    return real_log(request.param, "forge")


def decision_seq(log):
    """The seq of the first event that opens a seat's decision."""
    engine = registry.get(log["game"])
    for event in log["events"][3:-1]:
        audience = () if event["audience"] == "public" else tuple(event["audience"])
        if engine.action_of(Event(event["type"], event["data"], event.get("private"), audience)):
            return event["seq"]
    raise AssertionError("no decision found")


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", ["a", "b", "c"])
def test_untouched_logs_pass(game, seed):
    """A real log verifies: every chance step re-derived and every decision re-decided."""
    report = verify_log(real_log(game, seed))
    assert report.decisions > 0 and report.chance_steps > 0 and report.unchecked == []


def expect_failure(log, seq):
    with pytest.raises(VerifyError) as caught:
        verify_log(log)
    assert caught.value.seq == seq, str(caught.value)
    assert f"seq {seq}:" in str(caught.value)
    return caught.value


def test_changed_field_of_one_event(log):
    """Changing one field of one event breaks its hash at that seq."""
    forged = copy.deepcopy(log)
    seq = decision_seq(log)
    forged["events"][seq]["data"]["seat"] = 1 - forged["events"][seq]["data"].get("seat", 0)
    expect_failure(forged, seq)


@pytest.mark.parametrize("where", [5, 20])
def test_dropped_duplicated_swapped_inserted(log, where):
    """Dropping, duplicating, swapping or inserting an event is caught where it happens."""
    dropped = copy.deepcopy(log)
    del dropped["events"][where]
    expect_failure(dropped, where)
    duplicated = copy.deepcopy(log)
    duplicated["events"].insert(where, copy.deepcopy(log["events"][where]))
    expect_failure(duplicated, where + 1)
    swapped = copy.deepcopy(log)
    events = swapped["events"]
    events[where], events[where + 1] = events[where + 1], events[where]
    expect_failure(swapped, where)
    inserted = copy.deepcopy(log)
    inserted["events"].insert(where, {**copy.deepcopy(log["events"][where]), "type": "forged_event"})
    expect_failure(inserted, where)


class IllegalOnTurn(RandomAgent):
    """A random bot that answers an action no game has on its ``turn``-th decision (it forfeits, ALL-5)."""

    def __init__(self, seed, turn):
        super().__init__(seed)
        self.turns_left = turn

    def act(self, turn):
        self.turns_left -= 1
        return "no-such-action" if self.turns_left == 0 else super().act(turn)


@pytest.mark.parametrize("game", GAMES)
def test_forfeited_game_verifies_and_its_forged_ending_does_not(game):
    """A game ended by a forfeit verifies; the forfeit moved to another seat, or its ranking changed, does not."""
    seats = registry.get(game).default_seats
    agents = [IllegalOnTurn("forfeit/1", 5) if seat == 1 else RandomAgent(f"forfeit/{seat}") for seat in range(seats)]
    log = real_log(game, "forfeit", agents=agents)
    forfeit, ended = log["events"][-2:]
    assert forfeit["type"] == "seat_forfeited" and forfeit["data"]["seat"] == 1
    assert ended["data"]["reason"] == "forfeit" and ended["data"]["ranking"][1] == seats
    assert verify_log(log).decisions > 0
    other_seat = copy.deepcopy(log)
    other_seat["events"][-2]["data"]["seat"] = 0
    error = expect_failure(reseal(other_seat), forfeit["seq"])
    assert "forfeit by the seat to act (seat 1)" in error.expected
    reranked = copy.deepcopy(log)
    reranked["events"][-1]["data"]["ranking"][1] = 1  # the forfeiting seat no longer last
    reranked["result"]["ranking"] = reranked["events"][-1]["data"]["ranking"]
    error = expect_failure(reseal(reranked), ended["seq"])
    assert "(forfeit)" in error.expected


def test_changed_seed(log):
    """A different seed, in the header or in the last event, is caught at the last seq."""
    last = log["events"][-1]["seq"]
    header = copy.deepcopy(log)
    header["seed"] = "not-the-seed"
    error = expect_failure(header, last)
    assert "seed" in str(error)
    both = copy.deepcopy(log)
    both["seed"] = both["events"][-1]["data"]["seed"] = "not-the-seed"
    expect_failure(reseal(both), last)


def test_game_ended_names_its_opening_and_nothing_unknown(log):
    """game_ended's hash of game_started must be the opening's; a key game_ended does not define is refused; a
    log written before game_ended named its opening (no such key) still verifies."""
    last = log["events"][-1]["seq"]
    other_opening = copy.deepcopy(log)
    other_opening["events"][-1]["data"]["opening"] = "0" * 64
    error = expect_failure(reseal(other_opening), last)
    assert "opening's hash" in error.expected
    unknown = copy.deepcopy(log)
    unknown["events"][-1]["data"]["winner"] = 0
    error = expect_failure(reseal(unknown), last)
    assert "unknown field" in error.found
    older = copy.deepcopy(log)
    del older["events"][-1]["data"]["opening"]
    assert verify_log(reseal(older)).decisions > 0


def test_changed_result(log):
    """A different ranking is caught: in the header alone, in the hashed event, or resealed."""
    last = log["events"][-1]["seq"]
    flipped = list(reversed(log["result"]["ranking"]))
    header = copy.deepcopy(log)
    header["result"]["ranking"] = flipped
    expect_failure(header, last)
    hashed = copy.deepcopy(log)
    hashed["events"][-1]["data"]["ranking"] = flipped
    expect_failure(hashed, last)
    resealed = copy.deepcopy(hashed)
    resealed["result"]["ranking"] = flipped
    error = expect_failure(reseal(resealed), last)
    assert "ranking" in error.expected


def test_changed_seat_bot(log):
    """Another bot in a seat (header and hashed seats) is caught at seq 0."""
    forged = copy.deepcopy(log)
    forged["seats"][0]["bot"] = forged["events"][0]["data"]["seats"][0]["bot"] = "impostor"
    expect_failure(forged, 0)
    expect_failure({**copy.deepcopy(log), "seats": forged["seats"]}, 0)


def test_changed_engine_version(log):
    """An engine version this tourney does not know is refused at seq 0 with a clear reason."""
    forged = copy.deepcopy(log)
    forged["engine_version"] = forged["events"][0]["data"]["engine_version"] = 99
    error = expect_failure(reseal(forged), 0)
    assert "no rules version 99" in str(error)


def test_resealed_illegal_decision_is_caught_by_the_refold(log):
    """A decision rewritten to an illegal one, with every hash recomputed, fails the refold there."""
    forged = copy.deepcopy(log)
    seq = decision_seq(log)
    event = forged["events"][seq]
    event["data"] = {**event["data"], "card": 10_000} if "card" in event["data"] else {**event["data"], "x": 1}
    error = expect_failure(reseal(forged), seq)
    assert error.game == log["game_id"]


@pytest.mark.parametrize("change", ["gap", "back", "negative first"])
def test_resealed_step_numbers_are_checked(log, change):
    """Steps must run 0, 1, 2 ... with no gap and no going back, even with every hash recomputed."""
    forged = copy.deepcopy(log)
    events = forged["events"]
    if change == "negative first":
        seq, events[0]["step"] = 0, -1
    else:
        seq = next(e["seq"] for e in events if e["step"] == 5)
        events[seq]["step"] = 7 if change == "gap" else 3
    error = expect_failure(reseal(forged), seq)
    assert error.expected.startswith("step") and error.found.startswith("step")


def test_resealed_chance_outcome_is_caught_by_the_seed(log):
    """A chance outcome rewritten with hashes recomputed does not match the seed's draw."""
    forged = copy.deepcopy(log)
    chance = next(e for e in forged["events"] if e["step"] == 2)
    target = chance.get("private") or chance["data"]
    key = next(iter(target))
    target[key] = [0] if isinstance(target[key], list) else 0
    if "private" in chance:
        salt = bytes.fromhex(chance["salt"])
        chance["commitment"] = commitment(salt, canonical(chance["private"]))
    expect_failure(reseal(forged), chance["seq"])


def test_full_rewrite_is_caught_by_the_signature(log, tmp_path):
    """A log replaced by another legal game with recomputed hashes passes the refold, not the key."""
    signing.new_keys(tmp_path / "k.key", tmp_path / "k.pub")
    key, public = signing.load_private(tmp_path / "k.key"), signing.load_public(tmp_path / "k.pub")
    signed = signing.sign(log, key)
    assert "checked against the given key" in verify_log(signed, public_key=public).signature
    other = real_log(log["game"], "forge", agents=None, game_id=log["game_id"])
    if other["head"] == log["head"]:
        other = real_log(log["game"], "forge", game_id=log["game_id"],
                         agents=[RandomAgent(f"other/{i}") for i in range(len(log["seats"]))])
    assert other["head"] != log["head"]
    verify_log(other)  # a consistent, legal game: the chain alone cannot tell
    forged = {**other, "signature": signed["signature"]}
    with pytest.raises(signing.SignatureError, match="does not match the head"):
        verify_log(forged, public_key=public)
    with pytest.raises(signing.SignatureError, match="not signed"):
        verify_log(other, public_key=public)
    signing.new_keys(tmp_path / "o.key", tmp_path / "o.pub")
    with pytest.raises(signing.SignatureError, match="not the given key"):
        verify_log(signing.sign(other, signing.load_private(tmp_path / "o.key")), public_key=public)


def test_redacted_logs_verify_what_is_public(log):
    """Spectator and seat logs verify: chance parts they cannot see are checked against commitments."""
    for view in ("spectator", "seat:0", "seat:1"):
        redacted = logfmt.redact(log, view)
        report = verify_log(redacted)
        assert report.chance_steps > 0
        assert report.hidden_chance_parts > 0


def test_redacted_log_with_a_forged_hidden_chance_part_fails(log):
    """In a spectator log a forger who changes a hidden draw's commitment is caught once the seed is known."""
    redacted = logfmt.redact(log, "spectator")
    target = next(e for e in redacted["events"] if e["commitment"] is not None and e["step"] >= 1)
    target["commitment"] = "0" * 64
    expect_failure(reseal(redacted), target["seq"])


def private_seq(log, seat, sees=True):
    """The seq of the first event whose private part ``seat`` sees (or, ``sees=False``, may not see)."""
    return next(e["seq"] for e in log["events"]
                if e["commitment"] is not None and (seat in e["audience"]) == sees)


def verify_cli(tmp_path, log):
    """`tourney replay verify FILE` on ``log``: exit code and everything it printed."""
    path = tmp_path / "forged.json"
    path.write_bytes(logfmt.dumps(log))
    result = cli.invoke("replay", "verify", str(path))
    assert "Traceback" not in result.output
    return result.exit_code, result.output


UNKNOWN_FIELDS = {
    "top": (lambda log: log.update(colour="red"), "colour"),
    "event": (lambda log: log["events"][12].update(colour="red"), "events[12].colour"),
    "private-event": (lambda log: log["events"][private_seq(log, 0)].update(colour="red"), "events[{seq}].colour"),
    "seat": (lambda log: log["seats"][1].update(colour="red"), "seats[1].colour"),
    "config": (lambda log: log["config"].update(colour="red"), "config.colour"),
    "result": (lambda log: log["result"].update(colour="red"), "result.colour"),
}


@pytest.mark.parametrize("where", list(UNKNOWN_FIELDS))
def test_an_unknown_field_is_refused_with_its_path(log, tmp_path, where):
    """`replay verify` refuses a log with a field nobody checks (at the top, in an event, a seat entry, the
    config or the result), naming the field by its path; the chain alone would have passed it."""
    forged = copy.deepcopy(log)
    mutate, path = UNKNOWN_FIELDS[where]
    mutate(forged)
    path = path.format(seq=private_seq(log, 0))
    with pytest.raises(logfmt.LogError, match=rf"^log: {re.escape(path)}: unknown field$"):
        verify_log(forged)
    code, output = verify_cli(tmp_path, forged)
    assert code == 1 and f"{path}: unknown field" in output and "all passed" not in output


def test_an_unknown_field_in_the_signature_is_refused(log, tmp_path):
    """A signed log whose signature object holds an extra field is refused, naming it."""
    signing.new_keys(tmp_path / "k.key", tmp_path / "k.pub")
    signed = signing.sign(log, signing.load_private(tmp_path / "k.key"))
    assert verify_log(signed).signature
    signed["signature"]["colour"] = "red"
    with pytest.raises(logfmt.LogError, match=r"signature\.colour: unknown field"):
        verify_log(signed)


def test_a_missing_header_field_is_refused():
    """The header's seed and result are there even while null: a log without them is refused, naming them."""
    log = real_log("lemur-tails", "missing")
    for key in ("seed", "result"):
        with pytest.raises(logfmt.LogError, match=rf"^log: {key}: missing$"):
            verify_log({k: v for k, v in log.items() if k != key})


def without_private(log, seq):
    forged = copy.deepcopy(log)
    del forged["events"][seq]["private"], forged["events"][seq]["salt"]
    return forged


def with_private_of(log, redacted, seq):
    forged = copy.deepcopy(redacted)
    forged["events"][seq] = copy.deepcopy(log["events"][seq])
    return forged


def test_a_view_must_match_the_private_parts_the_log_carries(log, tmp_path):
    """`replay verify` refuses a full log missing a private part, a spectator log carrying one, and a seat's log
    carrying another seat's or missing its own, naming the event's private field; the honest views pass."""
    for view in ("full", "spectator", "seat:0", "seat:1"):
        assert verify_log(logfmt.redact(log, view)).events == len(log["events"])
    own, others = private_seq(log, 0), private_seq(log, 0, sees=False)
    seat0 = logfmt.redact(log, "seat:0")
    cases = [
        (without_private(log, own), own, "missing, though the log's view full sees it"),
        (with_private_of(log, logfmt.redact(log, "spectator"), own), own, "a spectator log may not carry it"),
        (with_private_of(log, seat0, others), others, "seat 0, not in its audience"),
        (without_private(seat0, own), own, "missing, though the log's view seat:0 sees it"),
    ]
    for forged, seq, message in cases:
        with pytest.raises(logfmt.LogError, match=rf"^log: events\[{seq}\]\.private: {re.escape(message)}"):
            verify_log(forged)
        code, output = verify_cli(tmp_path, forged)
        assert code == 1 and f"events[{seq}].private: {message}" in output


def test_a_public_event_carrying_a_private_part_is_refused(log):
    """A private part and salt added to a public event (commitment null) are refused, naming the field."""
    forged = copy.deepcopy(log)
    seq = next(e["seq"] for e in log["events"] if e["commitment"] is None and e["seq"] > 0)
    forged["events"][seq].update(private={"cards": [1]}, salt="ab" * 16)
    with pytest.raises(logfmt.LogError, match=rf"events\[{seq}\]\.private: a public event"):
        verify_log(forged)


@pytest.mark.parametrize("view", ["seat:7", "owner", "seat:-1", "Full"])
def test_an_unknown_view_is_refused_naming_the_field(log, view):
    """A view that is not full, spectator or seat:K of a seat of this game is refused as the view field."""
    with pytest.raises(logfmt.LogError, match=r"^log: view: unknown view"):
        verify_log({**log, "view": view})


def test_future_log_format_is_refused():
    """A log of a newer format version is refused with a clear message."""
    with pytest.raises(logfmt.LogError, match="newer than this tourney reads"):
        logfmt.parse(orjson.dumps({"format": "tourney-log", "format_version": 2}))


def mutate(value, path_choices, replacement):
    """Replace one node of a JSON tree (chosen by the draws) with ``replacement``."""
    node = value
    for choice in path_choices:
        children = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        if not children or not isinstance(node, dict | list):
            break
        key, child = children[choice % len(children)]
        if not isinstance(child, dict | list) or choice % 3 == 0:
            node[key] = replacement
            return value
        node = child
    return value


@TAMPERINGS
@given(paths=st.lists(st.integers(0, 10_000), min_size=1, max_size=6), replacement=wild_json,
       reseal_it=st.booleans())
def test_malformed_logs_never_crash_verify(paths, replacement, reseal_it):
    """Any mutation of a real log makes verify pass or raise LogError, never another exception."""
    forged = mutate(copy.deepcopy(BASE_LOG), paths, replacement)
    if reseal_it:
        with contextlib.suppress(Exception):  # the forger's own tool may choke; feed the log as it is
            forged = reseal(forged)
    try:
        verify_log(forged)
    except logfmt.LogError as error:
        assert str(error).strip() and "\n" not in str(error)


BASE_LOG = real_log("lemur-tails", "fuzz")


@pytest.mark.parametrize("key", ["\n", "odd\x1b[31m", "tab\tkey"])
def test_an_unknown_key_that_is_not_printable_is_named_escaped_on_one_line(key):
    """A found case of the property above: an unknown field whose name holds a newline (or another control
    character) is named escaped, so that the refusal stays one line and writes no control character."""
    forged = copy.deepcopy(BASE_LOG)
    forged["result"][key] = 1
    with pytest.raises(logfmt.LogError) as refused:
        verify_log(forged)
    assert str(refused.value) == f"log: result.{key!r}: unknown field"


@pytest.mark.slow
@TAMPERED_LOGS
@given(content=st.one_of(wild_json.map(lambda v: orjson.dumps(v)), st.binary(max_size=200),
                         st.builds(lambda p, r: orjson.dumps(mutate(copy.deepcopy(BASE_LOG), p, r)),
                                   st.lists(st.integers(0, 10_000), min_size=1, max_size=6), wild_json)))
def test_cli_verify_and_import_give_one_line_and_nonzero_on_garbage(tmp_path_factory, content):
    """Random or broken JSON to `replay verify` and `replay import`: a clear error and exit 1, no traceback."""
    directory = tmp_path_factory.mktemp("fuzz")
    path = directory / "log.json"
    path.write_bytes(content)
    verify = cli.invoke("replay", "verify", str(path))
    imported = cli.invoke("replay", "import", str(path), "--db", str(directory / "x.db"))
    for result in (verify, imported):
        assert "Traceback" not in result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
        if result.exit_code == 0:  # a mutation that changed nothing that matters
            assert verify.exit_code == 0
    assert verify.exit_code in (0, 1) and imported.exit_code in (0, 1)
    if verify.exit_code == 1:
        assert "FAIL" in verify.output or "error:" in verify.output
        assert imported.exit_code == 1 and "error:" in imported.output
