"""The text record of a game, version 1: tags, then one line per decision, as PGN is for chess.

    [Format "tourney-record"]
    [FormatVersion 1]
    [Event "cup-7"]
    ...
    [Head "5d0e…"]

    0 play:B5:0w #3f2a9c1e
    1 lemur:blind #77aa01cd
    0 choose:5 ~1f0c5e9a8b7d6c5b4a3f2e1d0c9b8a7f #4c1d22ab

The tags say what the JSON log's header and its first and last events say (game, rules
version, config, seats, seed commitment, seed, result, how it ended, the head, a signature);
each line is one decision: the seat, its action in the game's own words (the engine's action
string, ALL-3), the salt of each hidden part the decision caused, and the first 8 hex digits of
the hash chain after it. Chance is never written: every chance outcome is drawn again from the
seed. So a record gives back its whole JSON log, event by event and hash by hash
(``rebuild``), and verifies exactly as that log does; the first line that does not hold is
named. docs/replays.md has the grammar, and what a record cannot carry (a redacted view, an
unfinished game).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engines import registry
from engines.base import CHANCE, SETUP, TERMINAL, EngineError, Event
from engines.driver import Outcome, Played, chance_steps, forfeit_ranking, opening
from ledger.chain import PUBLIC
from ledger.seeds import commitment as seed_commitment
from replays import log as logfmt
from replays.record import GAME_ENDED, GAME_STARTED, SEAT_FORFEITED, Sealer, SeatInfo, started_data
from replays.tags import (
    HASH,
    OBJECT,
    STRING,
    STRINGS,
    WHOLE,
    Tag,
    TextError,
    after_first_line,
    check_kind,
    check_version,
    is_tag,
    parse_tag,
    read_text,
    shown,
    tag_line,
)

FORMAT = "tourney-record"
FORMAT_VERSION = 1
SUFFIX = ".record"
CHECK_DIGITS = 8
"""Hex digits of the chain's hash after each decision that its line carries."""
FIRST_LINE = tag_line("Format", FORMAT)

LABELS = ("Event", "Date", "Key")
"""Tags that name where a game was played; no hash covers them, and verification does not read them."""
_REQUIRED = ("FormatVersion", "Game", "Rules", "Seats", "Options", "Result", "Termination", "GameId", "Prng",
             "SeedCommitment", "Seed", "Opening", "Head")
OPENING_TAGS = "Game, Rules, Seats, Options, the seats' tags, GameId, Prng and SeedCommitment"
"""The tags game_started is made of: the Opening tag, its hash, holds them."""
_KINDS = {"FormatVersion": WHOLE, **dict.fromkeys(LABELS, STRING), "Game": STRING, "Rules": WHOLE, "Seats": WHOLE,
          "Options": OBJECT, "Result": STRING, "Termination": STRING, "ForfeitSeat": WHOLE, "ForfeitReason": STRING,
          "GameId": STRING, "Prng": STRING, "SeedCommitment": HASH, "Seed": STRING, "EndedKeys": STRINGS,
          "Opening": HASH, "Head": HASH, "Signature": OBJECT}
"""Every tag of the format (and the seats', ``_SEAT_TAG``: strings) by the kind of its value, checked as it is read."""
_SEAT_TAG = re.compile(r"Seat(0|[1-9][0-9]*)(Hash)?")
_MOVE = re.compile(rf"(0|[1-9][0-9]*) ([!-~]+)((?: ~[0-9a-f]{{32}})*) #([0-9a-f]{{{CHECK_DIGITS}}})")
_ACTION = re.compile("[!-~]+")
FINISHED, FORFEIT = "finished", "forfeit"
_ENDED_KEYS = ("opening", "ranking", "reason", "scores", "seed")


class RecordError(logfmt.LogError):
    """A record whose game does not hold: the game, the first bad line, what was expected there and what was found
    (or, for a signature, what is wrong)."""

    def __init__(self, game: str, line: int | None, expected: str, found: str | None = None) -> None:
        where = f"line {line}" if line is not None else "the record"
        said = expected if found is None else f"expected {expected}, found {found}"
        super().__init__(f"game {game}: {where}: {said}")
        self.game = game
        self.line = line


@dataclass(frozen=True, slots=True)
class Move:
    """One decision line: the seat, its action, the salts of the hidden parts it caused, the chain's check."""

    line: int
    seat: int
    action: str
    salts: tuple[str, ...]
    check: str


@dataclass(slots=True)
class Parsed:
    """A record read line by line: its tags (by name), its decisions, and the line after the last."""

    name: str
    tags: dict[str, Tag]
    moves: list[Move]
    end: int
    """The line number after the record's last line: where a missing decision would have stood."""


@dataclass(slots=True)
class Rebuilt:
    """The full JSON log a record gives back, and the record's line behind each of its events (by seq)."""

    log: dict[str, Any]
    line_of: list[int] = field(default_factory=list)
    signature_line: int | None = None

    def located(self, error: logfmt.LogError) -> RecordError:
        """A failure of the rebuilt log (its seq) as the record's (its line)."""
        seq = error.seq
        line = self.line_of[seq] if seq is not None and 0 <= seq < len(self.line_of) else self.signature_line
        detail = str(error)
        prefix = f"game {self.log['game_id']}: "
        detail = detail[len(prefix):] if detail.startswith(prefix) else detail
        if seq is not None:
            detail = detail.removeprefix(f"seq {seq}: ")
        return RecordError(self.log["game_id"], line, detail)


# -- writing --------------------------------------------------------------------------------


def write(log: dict[str, Any], labels: dict[str, str] | None = None) -> str:
    """The text record of a full log of a finished game, with ``labels`` (Event, Date, Key) among its tags.

    The record is read back before it is returned, and must give back the very log, event by event:
    a record is never written of a log it would not verify as. LogError otherwise, in one line.
    """
    return written(log, labels)[0]


def written(log: dict[str, Any], labels: dict[str, str] | None = None) -> tuple[str, Rebuilt]:
    """``write``'s record and what reading it back gave (``rebuild(parse(text))``, equal to ``log``): for a caller
    that checks the rebuilt log further (the tests hold its sorted JSON to the log's), without a second rebuild."""
    game = log.get("game_id")
    if log.get("view") != "full":
        raise logfmt.LogError(f"game {game}: a text record is always the full view (its lines are every seat's "
                              f"decisions); this log is the {log.get('view')} view: export the game as JSON")
    events = log["events"]
    if not events or events[-1]["type"] != GAME_ENDED:
        raise logfmt.LogError(f"game {game}: the game is not over: its seed is still secret, and a text record "
                              "draws every chance outcome from it; export it as JSON")
    try:
        moves, forfeit = _decisions(log)
    except Exception as error:  # a log from a file is untrusted: any refusal is one line, never a traceback
        raise logfmt.LogError(f"game {game}: its log does not fold ({type(error).__name__}: {error}): verify it "
                              "with `tourney replay verify`") from None
    text = "\n".join([*_tags(log, labels or {}, forfeit), "", *moves]) + "\n"
    try:
        again = rebuild(parse(text, f"game {game}"))
    except logfmt.LogError as error:
        raise logfmt.LogError(f"game {game}: its log does not verify, so no record is written of it ({error})") \
            from None
    if again.log != log:
        raise logfmt.LogError(f"game {game}: its log does not verify (its decisions, replayed, do not give its "
                              "events), so no record is written of it")
    return text, again


def _decisions(log: dict[str, Any]) -> tuple[list[str], dict[str, Any] | None]:
    """Each decision of a log as its line, folding the log with its engine to know who acted; and the forfeit."""
    engine = registry.get(log["game"], log["engine_version"])
    apply, actor_of, action_of = engine.apply, engine.actor, engine.action_of
    state, step, moves, forfeit = None, None, [], None
    group: list[dict[str, Any]] = []
    for event in [*log["events"][1:], None]:
        if event is not None and event["step"] == step:
            group.append(event)
            continue
        if group:
            actor = SETUP if state is None else actor_of(state)
            if actor >= 0:
                moves.append(_move_line(actor, action_of(_event(group[0])), group))
            for logged in group:
                state = apply(state, _event(logged))
        if event is None or event["type"] in (SEAT_FORFEITED, GAME_ENDED):
            if event is not None and event["type"] == SEAT_FORFEITED:
                forfeit = event["data"]
            break
        step, group = event["step"], [event]
    return moves, forfeit


def _move_line(seat: int, action: Any, group: list[dict[str, Any]]) -> str:
    if not isinstance(action, str) or not _ACTION.fullmatch(action):
        raise ValueError(f"seat {seat}'s action {action!r} is not a word of printable ASCII without spaces")
    salts = "".join(f" ~{event['salt']}" for event in group if "salt" in event)
    return f"{seat} {action}{salts} #{group[-1]['hash'][:CHECK_DIGITS]}"


def _tags(log: dict[str, Any], labels: dict[str, str], forfeit: dict[str, Any] | None) -> list[str]:
    ended = log["events"][-1]["data"]
    out = [FIRST_LINE, tag_line("FormatVersion", FORMAT_VERSION)]
    out += [tag_line(label, labels[label]) for label in LABELS if labels.get(label) is not None]
    out += [tag_line("Game", log["game"]), tag_line("Rules", log["engine_version"]),
            tag_line("Seats", log["config"]["seats"]), tag_line("Options", log["config"].get("options", {}))]
    for seat in log["seats"]:
        out += [tag_line(f"Seat{seat['seat']}", seat["bot"]), tag_line(f"Seat{seat['seat']}Hash", seat["hash"])]
    out += [tag_line("Result", result_text(ended["ranking"])), tag_line("Termination", ended["reason"])]
    if forfeit is not None:
        out += [tag_line("ForfeitSeat", forfeit["seat"]), tag_line("ForfeitReason", forfeit["reason"])]
    started = log["events"][0]["data"]
    out += [tag_line("GameId", log["game_id"]), tag_line("Prng", started["prng"]),
            tag_line("SeedCommitment", log["seed_commitment"]), tag_line("Seed", ended["seed"])]
    if not {"opening", "ranking", "reason", "seed"} <= ended.keys():  # a log written before game_ended named them
        out.append(tag_line("EndedKeys", sorted(ended)))
    out += [tag_line("Opening", log["events"][0]["hash"]), tag_line("Head", log["head"])]
    if "signature" in log:  # null too: the reader refuses it, as verify does a JSON log's
        out.append(tag_line("Signature", log["signature"]))
    return out


def result_text(ranking: list[int] | tuple[int, ...]) -> str:
    """The result as `tourney run` prints it: ``1-0``, ``0-1``, ``1/2-1/2``; more seats: ``places 2-1-4-3``."""
    if len(ranking) == 2:
        first, second = ranking
        return "1/2-1/2" if first == second else "1-0" if first < second else "0-1"
    return "places " + "-".join(str(rank) for rank in ranking)


def ranking_of(text: str, seats: int) -> list[int] | None:
    """The ranking a Result tag says, or None if it is not one of ``seats`` seats."""
    if seats == 2:
        return {"1-0": [1, 2], "0-1": [2, 1], "1/2-1/2": [1, 1]}.get(text)
    places = text.removeprefix("places ").split("-")
    if not text.startswith("places ") or len(places) != seats or not all(p.isdigit() for p in places):
        return None
    return [int(place) for place in places]


# -- reading --------------------------------------------------------------------------------


def is_record(path: str | Path) -> bool:
    """Whether a file is a text record (by its name, or by its first line), rather than a JSON log."""
    path = Path(path)
    if path.suffix == SUFFIX:
        return True
    try:
        with path.open("rb") as file:
            return file.read(len(FIRST_LINE)) == FIRST_LINE.encode()
    except OSError:
        return False


def read(path: str | Path) -> Rebuilt:
    """A record file read and rebuilt into its full JSON log (every line checked); LogError at the first bad line."""
    return rebuild(parse(read_text(path), str(path)))


def parse(text: str, name: str = "record") -> Parsed:
    """The tags and decision lines of a record; TextError naming the first line that is not of the grammar."""
    numbered = after_first_line(text, name, FIRST_LINE, "a tourney text record")
    tags: dict[str, Tag] = {}
    moves: list[Move] = []
    number, blank = 1, None
    for number, line in numbered:
        if blank is None:
            if line == "":
                blank = number
            elif is_tag(line):
                parse_tag(name, number, line, tags)
                _known_tag(name, number, line, tags)
            else:
                raise TextError(name, number, f"expected a tag [Name value] or the empty line after the tags, found "
                                f"{shown(line)}")
            continue
        match = _MOVE.fullmatch(line)
        if match is None:
            raise TextError(name, number, f"expected a decision: SEAT ACTION [~SALT ...] #CHECK, found {shown(line)}")
        seat, action, salts, check = match.groups()
        moves.append(Move(number, int(seat), action, tuple(salts.split(" ~")[1:]), check))
    if blank is None:
        raise TextError(name, number + 1, "expected the empty line after the tags, found the end of the record")
    for key in _REQUIRED:
        if key not in tags:
            raise TextError(name, blank, f"tag {key} missing: the tags end here without it")
    return Parsed(name, tags, moves, number + 1)


def _known_tag(name: str, number: int, line: str, tags: dict[str, Tag]) -> None:
    """A tag of the format, its value of the tag's kind; the format's version is checked as soon as it is read, so
    that a newer record is refused for what it is rather than for a line this version does not know."""
    key = line[1:].split(" ", 1)[0]
    kind = STRING if _SEAT_TAG.fullmatch(key) else _KINDS.get(key)
    if kind is None:
        raise TextError(name, number, f"unknown tag {key} (a record holds only the tags of its format)")
    check_kind(name, key, tags[key], kind)
    if key == "FormatVersion":
        check_version(name, tags[key], FORMAT_VERSION, "record")


class _Tags:
    """A parsed record's tags, each of its kind (``parse`` checked them, ``_KINDS``)."""

    def __init__(self, parsed: Parsed) -> None:
        self.name = parsed.name
        self.tags = parsed.tags

    def line(self, key: str) -> int:
        return self.tags[key].line

    def fail(self, key: str, message: str) -> TextError:
        return TextError(self.name, self.line(key), message)

    def value(self, key: str) -> Any:
        return self.tags[key].value


def rebuild(parsed: Parsed) -> Rebuilt:
    """The full JSON log a record gives back, checking each line as it is reached (``Rebuild``)."""
    return _Rebuild(parsed).run()


class _Rebuild:
    """Plays a record's decisions with the engine, drawing chance from the seed, and seals every event."""

    def __init__(self, parsed: Parsed) -> None:
        self.parsed = parsed
        self.tags = _Tags(parsed)
        self.game = self.tags.value("GameId")
        self.line_of: list[int] = []

    def fail(self, line: int | None, expected: str, found: str) -> RecordError:
        return RecordError(self.game, line, expected, found)

    def run(self) -> Rebuilt:
        tags = self.tags
        engine = self._engine()
        seats = tags.value("Seats")
        try:
            config = engine.configure(seats, tags.value("Options"))
        except Exception as error:  # untrusted input: any refusal is a bad line, never a crash
            raise self.fail(tags.line("Options"), f"a configuration {engine.name} accepts", _reason(error)) from None
        bots = self._seats(config.seats)
        commitment = tags.value("SeedCommitment")
        seed = tags.value("Seed")
        if seed_commitment(seed) != commitment:
            raise self.fail(tags.line("Seed"), f"a seed matching the commitment {commitment[:16]}…",
                            f"seed {shown(seed)}")
        ranking = ranking_of(tags.value("Result"), config.seats)
        if ranking is None:
            raise tags.fail("Result", f"Result must be 1-0, 0-1 or 1/2-1/2 for two seats, places A-B-... (a place per "
                            f"seat) for more; found {shown(tags.value('Result'))}")
        forfeit = self._forfeit()
        ended_keys = self._ended_keys()
        head = tags.value("Head")
        salts = deque[bytes]()
        sealer = Sealer(self.game, seed, lambda _seq: salts.popleft())
        moves = self.parsed.moves
        pending = moves[0].line if moves else self.parsed.end  # the line whose check covers the events sealed next
        opened = tags.value("Opening")
        self._seal(sealer, [Event(GAME_STARTED, {**started_data(engine, config, bots, seed),
                                                 "prng": tags.value("Prng")})], True, tags.line("Opening"), own=True)
        if sealer.records[0].hash != opened:
            raise self.fail(tags.line("Opening"), f"opening {sealer.records[0].hash} (the hash of game_started as "
                            f"the tags {OPENING_TAGS} give it)", f"opening {opened}")
        state, steps, stream = opening(engine, config, seed)
        for step in steps:
            self._seal(sealer, step.events, True, pending)
        actor_of, decide, apply = engine.actor, engine.decide, engine.apply
        for index, move in enumerate(moves):
            actor = actor_of(state)
            if actor < 0:
                raise self.fail(move.line, "nothing after the game's end" if actor == TERMINAL else "chance to draw",
                                f"a decision by seat {move.seat}")
            if move.seat != actor:
                raise self.fail(move.line, f"a decision by seat {actor}", f"seat {move.seat}")
            try:
                events = list(decide(state, move.action))
            except Exception as error:  # IllegalAction, or an engine choking on a forged action
                raise self.fail(move.line, f"a legal action for seat {actor}",
                                f"{move.action}, refused: {_reason(error)}") from None
            hidden = sum(event.private is not None for event in events)
            if hidden != len(move.salts):
                raise self.fail(move.line, f"{hidden} salts (one per hidden part of this decision)",
                                f"{len(move.salts)}")
            salts.extend(bytes.fromhex(salt) for salt in move.salts)
            for event in events:
                state = apply(state, event)
            self._seal(sealer, events, False, move.line)
            found = sealer.records[-1].hash[:CHECK_DIGITS]
            if found != move.check:
                raise self.fail(move.line, f"check #{found} (the hash chain after this decision)", f"#{move.check}")
            pending = moves[index + 1].line if index + 1 < len(moves) else self.parsed.end
            if actor_of(state) == CHANCE:
                state, dealt, stream = chance_steps(engine, state, seed, stream)
                for step in dealt:
                    self._seal(sealer, step.events, True, pending)
        outcome = self._outcome(engine, state, forfeit, ranking)
        end_line = tags.line("Termination")
        self.line_of += [end_line] * (2 if forfeit is not None else 1)
        sealer.end(engine, Played([], outcome, state), seed, ended_keys)
        if sealer.records[-1].hash != head:
            raise self.fail(tags.line("Head"), f"head {sealer.records[-1].hash} (the hash chain of this record)",
                            f"head {head}")
        log = logfmt.build(self.game, engine.name, engine.version, config.to_json(),
                           [{"seat": i, "bot": s.name, "hash": s.hash} for i, s in enumerate(bots)], sealer.records)
        signature = tags.tags.get("Signature")
        if signature is not None:
            log["signature"] = signature.value
        return Rebuilt(log, self.line_of, signature.line if signature is not None else None)

    def _engine(self) -> Any:
        tags = self.tags
        for key, version in (("Game", None), ("Rules", tags.value("Rules"))):
            try:
                engine = registry.get(tags.value("Game"), version)
            except EngineError as error:
                raise self.fail(tags.line(key), "a game and rules version this tourney knows", str(error)) from None
        return engine

    def _seats(self, count: int) -> list[SeatInfo]:
        tags = self.tags
        for key in tags.tags:
            found = _SEAT_TAG.fullmatch(key)
            if found is not None and int(found[1]) >= count:
                raise tags.fail(key, f"tag {key}, though the game has {count} seats (Seats)")
        bots = []
        for seat in range(count):
            for key in (f"Seat{seat}", f"Seat{seat}Hash"):
                if key not in tags.tags:
                    raise TextError(self.parsed.name, tags.line("Seats"), f"tag {key} missing: Seats says {count}")
            bots.append(SeatInfo(tags.value(f"Seat{seat}"), tags.value(f"Seat{seat}Hash")))
        return bots

    def _forfeit(self) -> tuple[int, str] | None:
        tags = self.tags
        termination = tags.value("Termination")
        if termination not in (FINISHED, FORFEIT):
            raise tags.fail("Termination", f"Termination must be {FINISHED} or {FORFEIT}, found {shown(termination)}")
        given = [key for key in ("ForfeitSeat", "ForfeitReason") if key in tags.tags]
        if termination == FINISHED:
            if given:
                raise tags.fail(given[0], f"no {given[0]}: the game finished (Termination)")
            return None
        for key in ("ForfeitSeat", "ForfeitReason"):
            if key not in tags.tags:
                raise tags.fail("Termination", f"tag {key} missing: the game ended by a forfeit (Termination)")
        return tags.value("ForfeitSeat"), tags.value("ForfeitReason")

    def _ended_keys(self) -> frozenset[str] | None:
        tag = self.tags.tags.get("EndedKeys")
        if tag is None:
            return None
        if tag.value != sorted(set(tag.value)) or not {"ranking", "reason", "seed"} <= set(tag.value) <= set(
                _ENDED_KEYS):  # sorted, each once: the one spelling the writer gives (a record has no other)
            raise self.tags.fail("EndedKeys", f"EndedKeys must list ranking, reason and seed, and only keys of "
                                 f"game_ended ({', '.join(_ENDED_KEYS)}), each once, in order; found "
                                 f"{shown(' '.join(tag.value))}")
        return frozenset(tag.value)

    def _outcome(self, engine: Any, state: Any, forfeit: tuple[int, str] | None, ranking: list[int]) -> Outcome:
        """How the game ended, as the rules give it after the last decision, checked against the tags."""
        tags, actor = self.tags, engine.actor(state)
        if forfeit is None:
            if actor != TERMINAL:
                who = "chance" if actor == CHANCE else f"seat {actor}"
                raise self.fail(self.parsed.end, f"a decision by {who} (the game is not over)", "the end of the record")
            outcome = Outcome(tuple(engine.ranking(state)), FINISHED)
        else:
            seat, reason = forfeit
            if actor < 0 or seat != actor:
                who = "nobody: the game is over" if actor == TERMINAL else f"seat {actor}"
                raise self.fail(tags.line("ForfeitSeat"), f"a forfeit by the seat to act ({who})", f"seat {seat}")
            outcome = Outcome(forfeit_ranking(engine.ranking(state), seat), FORFEIT, seat, reason)
        if list(outcome.ranking) != ranking:
            raise self.fail(tags.line("Result"), f"Result {result_text(outcome.ranking)} (what the rules give)",
                            f"{result_text(ranking)}")
        return outcome

    def _seal(self, sealer: Sealer, events: Any, chance: bool, line: int, own: bool = False) -> None:
        before = len(sealer.records)
        sealer.step(events, chance, own)
        self.line_of += [line] * (len(sealer.records) - before)


def _event(logged: dict[str, Any]) -> Event:
    audience = logged["audience"]
    return Event(logged["type"], logged["data"], logged.get("private"), () if audience == PUBLIC else tuple(audience))


def _reason(error: Exception) -> str:
    return str(error) if isinstance(error, EngineError) else f"{type(error).__name__}: {error}"
