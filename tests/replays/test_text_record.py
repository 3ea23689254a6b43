"""Text records (replays/text_record.py): every game round-trips to its very JSON log, verifies as that log does,
and a record changed anywhere fails naming its first bad line."""

from __future__ import annotations

import random
import re
from pathlib import Path

import orjson
import pytest

from engines import registry
from engines.driver import BotFailure, chance_steps, opening, play
from replays import log as logfmt
from replays import signing, text_record
from replays.record import SeatInfo, record
from replays.tags import TextError
from replays.verify import read_file, verify_log, verify_read
from replays.verify_many import verify_file
from tests.replays.forgery import RandomAgent, real_log
from tournaments.bots.inprocess import load_module

BOTS = Path(__file__).resolve().parents[2] / "bots"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
GAMES = ("tails-on-fire", "nine-tails", "lemur-tails")
OPTIONS = {"tails-on-fire": ({}, {"rogue": False}), "nine-tails": ({"fast": True}, {}),
           "lemur-tails": ({},)}


def heuristic(game: str, seat: int, seed: str):
    return load_module(str(BOTS / f"heuristic_{game.replace('-', '_')}.py")).Bot(game, seat, random.Random(seed))


def played_log(game: str, seed: str, seats: int, options: dict, agents=None, game_id: str | None = None) -> dict:
    engine = registry.get(game)
    config = engine.configure(seats, options)
    agents = agents or [RandomAgent(f"{seed}/{seat}") for seat in range(seats)]
    played = play(engine, config, seed, agents)
    infos = [SeatInfo(f"bot {seat} \"quoted\"\n", f"{seat:064x}") for seat in range(seats)]
    return logfmt.from_recorded(record(engine, config, seed, played, infos, game_id=game_id))


LABELS = {"Event": "cup", "Date": "2025-06-01", "Key": "t0-d0-r0"}


def canonical(log: dict) -> bytes:
    return orjson.dumps(log, option=orjson.OPT_SORT_KEYS)


def round_trip(log: dict, write_again: bool = True) -> str:
    """The record of ``log``, checked to give back the very log, equal and the same JSON with sorted keys (types
    too, which ``==`` alone would not see: ``1 == True``), and to write again as the very same text.

    The log given back is ``written``'s own ``rebuild(parse(text))`` of the very text it returns (one rebuild, not
    two: the thousands of games test spent a third of its time on the second); a test below holds it to a separate
    parse and rebuild. ``write_again=False`` leaves the second write out (another rebuild): ``write`` reads a log by
    its keys, so a log of the same sorted JSON writes the same text; the thousands of games test so, and the tests
    of a few games write again too."""
    text, rebuilt = text_record.written(log, LABELS)
    assert rebuilt.log == log and canonical(rebuilt.log) == canonical(log)
    if write_again:
        assert text_record.write(rebuilt.log, LABELS) == text
    return text


def cases(count: int):
    """(game, seats, options, seed, heuristic seats) spread over every game, seat count and option."""
    for game in GAMES:
        engine = registry.get(game)
        for index in range(count):
            seats = engine.min_seats + index % (engine.max_seats - engine.min_seats + 1)
            options = OPTIONS[game][index % len(OPTIONS[game])]
            yield game, seats, options, f"{game}-{index}", index % 2 == 1


def agents_for(game: str, seats: int, seed: str, heuristic_seats: bool):
    """Random bots, or heuristic bots in the even seats beside random ones."""
    return [heuristic(game, seat, f"{seed}/{seat}") if heuristic_seats and seat % 2 == 0
            else RandomAgent(f"{seed}/{seat}") for seat in range(seats)]


@pytest.mark.parametrize(("game", "seats", "options", "seed", "smart"), list(cases(6)))
def test_records_round_trip_to_the_very_log(game, seats, options, seed, smart):
    """A game's record gives back its JSON log event by event and hash by hash, and verifies as it does; a parse
    and rebuild of its own gives what ``written`` gave (round_trip holds that to the log)."""
    log = played_log(game, seed, seats, options, agents_for(game, seats, seed, smart))
    text = round_trip(log)
    again = text_record.rebuild(text_record.parse(text)).log
    assert canonical(again) == canonical(log)
    assert verify_log(again).decisions == len(move_lines(text))


PARTS = 4
"""The thousand games of a game are played in PARTS tests, so that pytest-xdist's workers share them (one was the
suite's longest test: 11 minutes under load for nine-tails, whose heuristic bots think)."""


@pytest.mark.slow
@pytest.mark.parametrize("part", range(PARTS))
@pytest.mark.parametrize("game", GAMES)
def test_thousands_of_games_round_trip(game, part):
    """1,000 games of each game (every seat count and option; random and heuristic bots) round-trip exactly: each
    test plays those whose index is ``part`` modulo PARTS."""
    games = [case for case in cases(1000) if case[0] == game][part::PARTS]
    assert len(games) == 1000 // PARTS
    for _, seats, options, seed, smart in games:
        round_trip(played_log(game, seed, seats, options, agents_for(game, seats, seed, smart)), write_again=False)


class Forfeiter(RandomAgent):
    """A random bot that fails at its ``at``-th decision: by raising (a crash) or by an illegal answer."""

    def __init__(self, seed, at: int, illegal: bool):
        super().__init__(seed)
        self.at, self.illegal, self.calls = at, illegal, 0

    def act(self, turn):
        self.calls += 1
        if self.calls > self.at:
            if self.illegal:
                return "no such action\n\x1b[31m"
            raise BotFailure("crashed: RuntimeError: boom")
        return super().act(turn)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(("at", "illegal"), [(0, False), (3, True), (7, False)])
def test_forfeited_games_round_trip_with_their_reason(game, at, illegal):
    """A forfeit (ALL-5), even at the first decision (a record with no decision line), keeps its seat and reason."""
    engine = registry.get(game)
    agents = [Forfeiter("f/0", at, illegal), RandomAgent("f/1")]
    log = played_log(game, f"forfeit-{at}", 2, OPTIONS[game][0], agents, game_id=f"forfeit-{game}-{at}")
    assert log["result"]["reason"] == "forfeit" and engine.min_seats == 2
    text = round_trip(log)
    assert re.search(r'^\[ForfeitReason ".*(boom|no such action)', text, re.MULTILINE)
    assert "[ForfeitSeat 0]" in text
    assert sum(move.seat == 0 for move in text_record.parse(text).moves) == at


def test_a_record_carries_the_signature_of_its_head(tmp_path):
    """A signed log's record carries the signature; it verifies under that key and fails under another."""
    key_path, pub_path = tmp_path / "k.key", tmp_path / "k.pub"
    signing.new_keys(key_path, pub_path)
    signing.new_keys(tmp_path / "other.key", tmp_path / "other.pub")
    log = signing.sign(real_log("tails-on-fire", "signed"), signing.load_private(key_path))
    path = tmp_path / "signed.record"
    path.write_text(round_trip(log))
    assert "checked against the given key" in verify_file("r", path, signing.load_public(pub_path)).report.signature
    verdict = verify_file("r", path, signing.load_public(tmp_path / "other.pub"))
    assert verdict.report is None and verdict.failure.startswith(f"game {log['game_id']}: line ")
    assert f"line {tag_line_number(path.read_text(), 'Signature')}: signed by key" in verdict.failure


def test_a_log_written_before_game_ended_named_its_opening_round_trips():
    """The old golden replay (rules version 1, game_ended of ranking, reason and seed) keeps its exact end."""
    log = logfmt.read(FIXTURES / "lemur-tails-v1.json")
    text = round_trip(log)
    assert '[EndedKeys ["ranking","reason","seed"]]' in text and "[Rules 1]" in text


@pytest.mark.parametrize("keys", ['["ranking","reason","seed","ranking"]', '["seed","ranking","reason"]'])
def test_ended_keys_in_another_order_or_twice_are_refused(keys):
    """EndedKeys has one spelling, the writer's (sorted, each once): a record spelling the same set otherwise was
    read as the same game, a second text for one log."""
    text = round_trip(logfmt.read(FIXTURES / "lemur-tails-v1.json"))
    spelt = text.replace('[EndedKeys ["ranking","reason","seed"]]', f"[EndedKeys {keys}]")
    assert spelt != text
    with pytest.raises(TextError, match=r"EndedKeys must list .*each once, in order; found"):
        text_record.rebuild(text_record.parse(spelt))


def test_only_full_logs_of_finished_games_are_written():
    """A redacted log or an unfinished game has no record: one line says why."""
    log = real_log("lemur-tails", "views")
    with pytest.raises(logfmt.LogError, match=r"always the full view.*spectator view: export the game as JSON"):
        text_record.write(logfmt.redact(log, "spectator"))
    unfinished = {**log, "events": log["events"][:40], "head": log["events"][39]["hash"], "seed": None,
                  "result": None}
    with pytest.raises(logfmt.LogError, match="the game is not over: its seed is still secret"):
        text_record.write(unfinished)


def test_a_log_that_does_not_verify_is_not_written():
    """A log whose events were changed gives no record (the record would not give it back)."""
    log = real_log("lemur-tails", "changed")
    decision = next(e for e in log["events"] if e["type"] == "turn_ended")
    decision["data"] = {**decision["data"], "passed": not decision["data"]["passed"]}
    with pytest.raises(logfmt.LogError, match="does not verify"):
        text_record.write(log)


# -- tampering ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def record_text():
    """A Tails on Fire record: hidden choices (salted), plays, passes, and the end."""
    return round_trip(real_log("tails-on-fire", "tamper", seats=2))


def move_lines(text: str) -> list[int]:
    """The line numbers of a record's decision lines."""
    lines = text.split("\n")
    blank = lines.index("")
    return [number for number, line in enumerate(lines, start=1) if number > blank + 1 and line]


def tag_line_number(text: str, tag: str) -> int:
    return next(n for n, line in enumerate(text.split("\n"), start=1) if line.startswith(f"[{tag} "))


def edited(text: str, number: int, change) -> str:
    lines = text.split("\n")
    lines[number - 1] = change(lines[number - 1])
    return "\n".join(lines)


def failure(text: str) -> str:
    """What reading and verifying a record says of it (it must fail)."""
    with pytest.raises(logfmt.LogError) as raised:
        rebuilt = text_record.rebuild(text_record.parse(text, "r.record"))
        verify_read(rebuilt.log, rebuilt)
    return str(raised.value)


def other_legal(text: str, index: int) -> tuple[int, str]:
    """The first decision line from the ``index``-th on where its seat had another legal action, and the record with
    that line given the other action."""
    parsed = text_record.parse(text)
    tags = {key: tag.value for key, tag in parsed.tags.items()}
    engine = registry.get(tags["Game"], tags["Rules"])
    seed = tags["Seed"]
    state, _, stream = opening(engine, engine.configure(tags["Seats"], tags["Options"]), seed)
    for position, move in enumerate(parsed.moves):
        others = [a for a in engine.legal_actions(state) if a != move.action]
        if position >= index % len(parsed.moves) and others:
            return move.line, edited(text, move.line, lambda line, old=f" {move.action}", new=f" {others[0]}":
                                     line.replace(old, new, 1))
        for event in engine.decide(state, move.action):
            state = engine.apply(state, event)
        state, _, stream = chance_steps(engine, state, seed, stream)
    raise AssertionError(f"no decision from the {index}-th on had a choice")


def test_an_untouched_record_verifies(record_text, tmp_path):
    """The record as written verifies, from a file too, with the counts of the JSON log."""
    path = tmp_path / "untouched.record"
    path.write_text(record_text)
    verdict = verify_file("r", path)
    assert verdict.failure is None and verdict.report.decisions == len(move_lines(record_text))


@pytest.mark.parametrize("which", [0, 5, -8])
def test_a_decision_changed_to_another_legal_one_is_named(record_text, which):
    """A decision changed for another legal one fails at its own line: the chain after it differs."""
    number, forged = other_legal(record_text, which)
    found = failure(forged)
    assert re.search(rf": line {number}: expected check #[0-9a-f]{{8}} \(the hash chain after this decision\)",
                     found), found


def test_an_illegal_decision_is_named_with_the_rules_reason(record_text):
    """An action its seat could not take is named at its line, with the engine's sentence."""
    number = move_lines(record_text)[10]
    forged = edited(record_text, number, lambda line: re.sub(r" \S+", " play:42", line, count=1))
    assert f"line {number}: expected a legal action for seat" in failure(forged)


def test_a_changed_salt_or_check_is_named(record_text):
    """A hidden choice's salt or a line's check changed fails at that line."""
    number = next(n for n in move_lines(record_text) if " ~" in record_text.split("\n")[n - 1])
    salted = edited(record_text, number, lambda line: re.sub(" ~.", " ~f" if " ~0" in line else " ~0", line))
    assert f"line {number}: expected check" in failure(salted)
    checked = edited(record_text, number, lambda line: line[:-1] + ("0" if line[-1] != "0" else "1"))
    assert f"line {number}: expected check" in failure(checked)
    unsalted = edited(record_text, number, lambda line: re.sub(" ~[0-9a-f]{32}", "", line))
    assert f"line {number}: expected 1 salts (one per hidden part of this decision), found 0" in failure(unsalted)


def test_a_missing_or_extra_decision_is_named(record_text):
    """A decision dropped, or one added after the end, fails at the line where the record and the game part."""
    lines = record_text.split("\n")
    numbers = move_lines(record_text)
    dropped = "\n".join(lines[: numbers[4] - 1] + lines[numbers[4]:])
    assert re.search(rf"line {numbers[4]}: expected (check|a decision by seat)", failure(dropped))
    cut = "\n".join(lines[: numbers[-1] - 1] + lines[numbers[-1]:])
    assert f"line {numbers[-1]}: expected a decision by seat" in failure(cut)
    assert "found the end of the record" in failure(cut)
    extra = record_text + lines[numbers[-1] - 1] + "\n"
    assert f"line {numbers[-1] + 1}: expected nothing after the game's end" in failure(extra)


@pytest.mark.parametrize(("tag", "change", "expected"), [
    ("Result", lambda v: '"1-0"' if v == '"0-1"' else '"0-1"', "expected Result"),
    ("Seed", lambda v: '"' + v[1:-1][::-1] + '"', "expected a seed matching the commitment"),
    ("Seat0", lambda _v: '"someone else"', "expected opening"),
    ("Seat1Hash", lambda v: '"' + "f" * 64 + '"', "expected opening"),
    ("Options", lambda _v: '{"rogue":false}', "expected opening"),
    ("GameId", lambda _v: '"another-game"', "expected opening"),
    ("Head", lambda v: '"' + ("0" if v[1] != "0" else "1") + v[2:], "expected head"),
    ("Termination", lambda _v: '"forfeit"', "tag ForfeitSeat missing"),
    ("Rules", lambda _v: "99", "expected a game and rules version this tourney knows"),
])
def test_a_changed_tag_is_named(record_text, tag, change, expected):
    """A tag the game is made of, changed, fails at that tag's line (the opening's tags at the Opening tag)."""
    number = tag_line_number(record_text, tag)
    forged = edited(record_text, number, lambda line: f"[{tag} {change(line[len(tag) + 2:-1])}]")
    named = tag_line_number(record_text, "Opening") if expected == "expected opening" else number
    found = failure(forged)
    assert f"line {named}: " in found and expected in found, found


def test_labels_are_not_covered_by_any_hash(record_text):
    """Event, Date and Key name where a game was played; changing them changes nothing verification reads."""
    forged = edited(record_text, tag_line_number(record_text, "Event"), lambda _line: '[Event "elsewhere"]')
    assert text_record.rebuild(text_record.parse(forged)).log == text_record.rebuild(
        text_record.parse(record_text)).log


@pytest.mark.parametrize(("change", "expected"), [
    (lambda text: text.replace('[Format "tourney-record"]', '[Format "tourney-log"]'), "line 1: not a tourney text"),
    (lambda text: text.replace("[FormatVersion 1]", "[FormatVersion 2]"),
     "line 2: record format version 2 is newer than this tourney reads (1); upgrade tourney"),
    (lambda text: text.replace("[Seats 2]", '[Seats 2]\n[Colour "red"]'), "unknown tag Colour"),
    (lambda text: text.replace("[Seats 2]", "[Seats 2]\n[Seats 2]"), "tag Seats again (first on line"),
    (lambda text: text.replace("[Seats 2]", "[Seats two]"), "the value of Seats is not one JSON value"),
    (lambda text: text.replace("[Seats 2]", '[Seats "2"]'), "Seats must be a whole number"),
    (lambda text: text.replace("[Seats 2]\n", ""), "tag Seats missing"),
    (lambda text: text.replace("\n\n", "\n", 1), "expected a tag [Name value] or the empty line after the tags"),
    (lambda text: text.rstrip("\n") + "\n\n", "expected a decision: SEAT ACTION [~SALT ...] #CHECK, found ''"),
    (lambda text: text.replace(" #", "  #", 1), "expected a decision: SEAT ACTION"),
])
def test_a_record_not_of_the_grammar_is_named_by_its_line(record_text, change, expected):
    """Each way a record breaks its grammar is one line naming the file and the line."""
    with pytest.raises(TextError, match=re.escape(expected)) as raised:
        text_record.rebuild(text_record.parse(change(record_text), "r.record"))
    assert re.match(r"r\.record: (line \d+: )?", str(raised.value))


def test_a_bad_file_is_one_line_naming_it(tmp_path):
    """A missing record, a folder, bytes that are not UTF-8: one line naming the file."""
    for path, expected in ((tmp_path / "none.record", "cannot read"), (tmp_path, "cannot read"),
                           (tmp_path / "binary.record", "line 2: not UTF-8 text")):
        if path.name == "binary.record":
            path.write_bytes(b'[Format "tourney-record"]\n\xff\n')
        with pytest.raises(TextError, match=expected):
            text_record.read(path)


def test_a_record_is_found_by_its_first_line_whatever_its_name(record_text, tmp_path):
    """A record saved as .txt is still read as a record; a JSON log is still read as JSON."""
    path = tmp_path / "game.txt"
    path.write_text(record_text)
    log, rebuilt = read_file(path)
    assert rebuilt is not None and log["view"] == "full"
    json_path = tmp_path / "game.json"
    json_path.write_bytes(logfmt.dumps(log))
    assert read_file(json_path) == (orjson.loads(logfmt.dumps(log)), None)
