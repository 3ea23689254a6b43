"""Verify a JSON log offline: chain, seed, every chance outcome, every decision, the result.

``verify_log`` re-derives the whole game with the engine version the log names:

1. shape, hash chain, and the header against the hashed events;
2. the revealed seed against its commitment;
3. the opening against ``start(config)``; every chance step against the outcome drawn
   again from the seed (a private part the log withholds is checked against its
   commitment, whose salt the seed gives); every decision re-decided from its recorded
   action by the seat that had to decide at that point, its events compared one by one;
4. the result against the ranking of the final state (ALL-5 for a forfeit).

A redacted log (spectator or seat:K) is checked as far as it can be: a decision whose
private part is withheld is folded as recorded, and the report counts what could not be
checked. The first failure raises ``VerifyError`` naming the game, the seq, what was
expected there and what was found.
"""

from __future__ import annotations

import contextlib
import gc
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from engines import registry
from engines.base import CHANCE, SETUP, TERMINAL, Engine, EngineError, Event
from engines.chance import Prng
from engines.driver import forfeit_ranking
from ledger.canonical import CanonicalError, canonical
from ledger.chain import PUBLIC, ChainError, chance_salt, commitment
from replays import log as logfmt
from replays import text_record
from replays.record import GAME_ENDED, GAME_STARTED, SEAT_FORFEITED, seed_commitment
from replays.signing import check_signature


class VerifyError(logfmt.LogError):
    """A log that does not verify: the first bad seq, what was expected, what was found."""

    def __init__(self, game: str, seq: int, expected: str, found: str) -> None:
        super().__init__(f"game {game}: seq {seq}: expected {expected}, found {found}", seq)
        self.game = game
        self.expected = expected
        self.found = found


@dataclass(slots=True)
class Report:
    """What was verified in one log, and what could not be."""

    game_id: str
    view: str
    events: int
    chance_steps: int = 0
    decisions: int = 0
    hidden_decisions: int = 0
    hidden_chance_parts: int = 0
    signature: str = "unsigned"
    notes: list[str] = field(default_factory=list)
    final: Any = None
    """The state after the last move, once the result is checked (what derived rows are compared with)."""

    @property
    def unchecked(self) -> list[str]:
        out = []
        if self.hidden_decisions:
            out.append(f"{self.hidden_decisions} decisions whose private part is withheld were folded unchecked")
        out.extend(self.notes)
        return out


Watcher = Callable[[int, list[dict[str, Any]], Any], None]
"""Called after each step with (actor, the step's logged events, the state after it)."""


def check_envelope(log: dict[str, Any], name: str = "log") -> None:
    """Shape, chain, header against the hashed events, seed against its commitment, result."""
    logfmt.check_shape(log, name, events=False)
    game = log["game_id"]
    try:
        head = logfmt.chain_head(log, name)
    except ChainError as error:
        raise VerifyError(game, error.seq, "an intact hash chain", error.detail) from None
    if head != log["head"]:
        raise VerifyError(game, len(log["events"]) - 1, f"head {head}", f"head {log['head']}")
    started = logfmt.started(log)
    seats = [{"seat": s["seat"], "bot": s["bot"], "hash": s["hash"]} for s in log["seats"]]
    for key, header in (("game", log["game"]), ("engine_version", log["engine_version"]), ("config", log["config"]),
                        ("seed_commitment", log["seed_commitment"]), ("seats", seats)):
        if started.get(key) != header:
            raise VerifyError(game, 0, f"the header's {key} {_short(header)}", f"{_short(started.get(key))} hashed")
    last = log["events"][-1]
    if last["type"] != GAME_ENDED:
        if log.get("seed") is not None or log.get("result") is not None:
            raise VerifyError(game, last["seq"], "game_ended to reveal the seed and result", last["type"])
        return
    ended = last["data"]
    for key in ended:
        if key not in _ENDED_KEYS:
            raise VerifyError(game, last["seq"], f"game_ended data of {', '.join(sorted(_ENDED_KEYS))}",
                              f"unknown field {_short(key)}")
    if seed_commitment(str(ended.get("seed"))) != log["seed_commitment"]:
        raise VerifyError(game, last["seq"], f"a seed matching commitment {log['seed_commitment'][:16]}…",
                          f"seed {_short(ended.get('seed'))}")
    if log.get("seed") != ended.get("seed"):
        raise VerifyError(game, last["seq"], f"the header's seed {_short(log.get('seed'))}",
                          f"{_short(ended.get('seed'))} hashed")
    result = {"ranking": ended.get("ranking"), "reason": ended.get("reason")}
    if log.get("result") != result:
        raise VerifyError(game, last["seq"], f"the header's result {_short(log.get('result'))}",
                          f"{_short(result)} hashed")


def verify_log(log: dict[str, Any], name: str = "log", public_key: bytes | None = None,
               watch: Watcher | None = None) -> Report:
    """Verify one log completely (see the module docstring); VerifyError at the first failure.

    ``watch`` sees each step as it is checked (the replay page draws the states it is given).
    """
    check_envelope(log, name)
    game = log["game_id"]
    report = Report(game, log["view"], len(log["events"]))
    report.signature = check_signature(log, public_key)
    try:
        engine = registry.get(log["game"], log["engine_version"])
    except EngineError as error:
        raise VerifyError(game, 0, "a game and rules version this tourney knows", str(error)) from None
    Refold(engine, log, report, watch).run()
    return report


class Refold:
    """Walks the log step by step beside the engine, comparing everything it can derive."""

    def __init__(self, engine: Engine, log: dict[str, Any], report: Report, watch: Watcher | None = None) -> None:
        self.engine = engine
        self.log = log
        self.game = log["game_id"]
        self.seed = log.get("seed")
        self.report = report
        self.watch = watch
        self.apply = engine.apply

    def fail(self, seq: int, expected: str, found: str) -> NoReturn:
        raise VerifyError(self.game, seq, expected, found)

    def run(self) -> None:
        events = self.log["events"]
        steps = _steps(events, self.game)
        engine = self.engine
        config_json = self.log["config"]
        try:
            config = engine.configure(config_json["seats"], config_json.get("options"))
        except Exception as error:  # untrusted input: any refusal is a failed log, never a crash
            self.fail(0, "a configuration the engine accepts", _reason(error))
        if steps[0][0]["type"] != GAME_STARTED or len(steps[0]) != 1:
            self.fail(0, "game_started alone in step 0", _short([e["type"] for e in steps[0]]))
        body = steps[1:]
        if not body:
            return
        actor_of, chance, decide, action_of = engine.actor, engine.chance, engine.decide, engine.action_of
        apply, watch, report, seed = self.apply, self.watch, self.report, self.seed
        # The opening: start(config), checked as a chance step.
        state = self.fold_checked(None, list(engine.start(config)), body[0])
        if watch:
            watch(SETUP, body[0], state)
        stream = 0
        # The log's own ending (seat_forfeited, game_ended) is looked for only where a step is not a
        # decision the engine can read (action_of knows no such event), to keep it off the common path.
        for index in range(1, len(body)):
            group = body[index]
            first = group[0]
            actor = actor_of(state)
            if actor >= 0 and ("private" in first or first["commitment"] is None):
                # The common case: a decision whose events the log shows in full.
                try:
                    action = action_of(_event(first))
                except Exception as error:  # untrusted data the engine cannot read
                    if first["type"] in _LOG_ENDINGS:
                        break
                    self.fail(first["seq"], f"a decision by seat {actor}", f"{first['type']}: {_reason(error)}")
                if action.__class__ is not str:
                    if first["type"] in _LOG_ENDINGS:
                        break
                    self.fail(first["seq"], f"a decision by seat {actor}", f"{first['type']} {_short(first['data'])}")
                try:
                    produced = decide(state, action)
                except Exception as error:  # IllegalAction, or an engine choking on a forged action
                    self.fail(first["seq"], f"a legal action for seat {actor}",
                              f"{action!r}, refused: {_reason(error)}")
                report.decisions += 1
                # Compare the step's events with the logged ones, and fold them (the common case
                # inline: as many events as logged, each public and equal to the one logged).
                if produced.__class__ is not list:
                    produced = list(produced)
                if len(produced) != len(group):
                    self._lengths_differ(produced, group)
                # (Not zip: its strict= keyword makes a slow call, costlier than this loop's body.)
                for position, logged in enumerate(group):
                    event = produced[position]
                    if (event.private is not None or event.type != logged["type"] or logged["audience"] != PUBLIC
                            or event.data != logged["data"]):
                        self.compare(event, logged, False)
                    state = apply(state, event)
            elif first["type"] in _LOG_ENDINGS:
                break
            elif actor >= 0:
                state = self.hidden_decision(state, actor, group)
            elif actor == CHANCE:
                if seed is None:
                    report.notes.append("the seed is not revealed: chance steps and all that follows unchecked")
                    return
                state = self.fold_checked(state, list(chance(state, Prng(seed, stream))), group)
                stream += 1
                report.chance_steps += 1
            else:
                self.fail(first["seq"], "game_ended (the game is over)", first["type"])
            if watch:
                watch(actor, group, state)
        else:
            report.notes.append("the game did not end in this log: the result is unchecked")
            return
        self.finish(state, body[index:])

    def fold_checked(self, state: Any, produced: list[Event], group: list[dict[str, Any]]) -> Any:
        """Compare a drawn step's events (the opening, a chance step) with the logged ones and fold them."""
        if len(produced) != len(group):
            self._lengths_differ(produced, group)
        apply = self.apply
        for event, logged in zip(produced, group, strict=False):
            self.compare(event, logged, True)
            state = apply(state, event)
        return state

    def hidden_decision(self, state: Any, seat: int, group: list[dict[str, Any]]) -> Any:
        """A redacted log withholds this decision's private part: fold it as recorded; the state after it."""
        for logged in group:
            try:
                state = self.engine.apply(state, _event(logged))
            except Exception as error:  # untrusted data the engine cannot fold
                self.fail(logged["seq"], f"an event seat {seat} could cause", _reason(error))
        self.report.hidden_decisions += 1
        return state

    def _lengths_differ(self, produced: list[Event], group: list[dict[str, Any]]) -> None:
        """Name the first event where the step's produced and logged events part ways."""
        for event, logged in zip(produced, group, strict=False):
            self.compare(event, logged, False)
        if len(produced) > len(group):
            event = produced[len(group)]
            self.fail(group[-1]["seq"] + 1, f"{event.type} {_short(event.data)} in this step", "the step already over")
        extra = group[len(produced)]
        self.fail(extra["seq"], "the step to be over", f"{extra['type']} {_short(extra['data'])}")

    def compare(self, event: Event, logged: dict[str, Any], chance: bool) -> None:
        seq = logged["seq"]
        if event.type != logged["type"] or not _same(event.data, logged["data"]):
            self.fail(seq, f"{event.type} {_short(event.data)}", f"{logged['type']} {_short(logged['data'])}")
        audience = PUBLIC if event.private is None else list(event.audience)
        if audience != logged["audience"]:
            self.fail(seq, f"audience {audience}", f"audience {logged['audience']}")
        if event.private is None:
            return
        if "private" in logged:
            if not _same(event.private, logged["private"]):
                self.fail(seq, f"{event.type} private part {_short(event.private)}",
                          f"{_short(logged['private'])}")
        elif chance and self.seed is not None:
            expected = commitment(chance_salt(self.seed, seq), canonical(event.private))
            if expected != logged["commitment"]:
                self.fail(seq, f"the commitment of the drawn {event.type} ({expected[:16]}…)",
                          f"{str(logged['commitment'])[:16]}…")
            self.report.hidden_chance_parts += 1

    def finish(self, state: Any, tail: list[list[dict[str, Any]]]) -> None:
        """The log's own ending: forfeits by the seat to act, then game_ended with the ranking ``state`` gives."""
        engine = self.engine
        forfeit_seat = None
        for group in tail:
            for logged in group:
                seq = logged["seq"]
                if logged["type"] == SEAT_FORFEITED:
                    actor = engine.actor(state)
                    forfeit_seat = logged["data"].get("seat")
                    if actor < 0 or forfeit_seat != actor:
                        self.fail(seq, f"a forfeit by the seat to act ({_actor(actor)})", f"seat {forfeit_seat}")
                elif logged["type"] == GAME_ENDED:
                    data = logged["data"]
                    if forfeit_seat is None:
                        if engine.actor(state) != TERMINAL:
                            self.fail(seq, f"play to go on ({_actor(engine.actor(state))} to act)",
                                      "game_ended")
                        expected = (list(engine.ranking(state)), "finished")
                    else:
                        expected = (list(forfeit_ranking(engine.ranking(state), forfeit_seat)), "forfeit")
                    found = (data.get("ranking"), data.get("reason"))
                    if found != expected:
                        self.fail(seq, f"ranking {expected[0]} ({expected[1]})", f"ranking {found[0]} ({found[1]})")
                    opening = self.log["events"][0]["hash"]
                    if "opening" in data and data["opening"] != opening:
                        self.fail(seq, f"game_ended naming the opening's hash {opening[:16]}…",
                                  f"opening {_short(data['opening'])}")
                    scores = engine.scores(state)
                    expected_scores = None if scores is None else list(scores)
                    if data.get("scores") != expected_scores and ("scores" in data or "opening" in data):
                        # (A log written before game_ended named its opening carries no scores either.)
                        self.fail(seq, f"scores {_short(expected_scores)}", f"scores {_short(data.get('scores'))}")
                    self.report.final = state
                    if seq != self.log["events"][-1]["seq"]:
                        self.fail(seq + 1, "nothing after game_ended", self.log["events"][seq + 1]["type"])
                else:
                    self.fail(seq, "seat_forfeited or game_ended", logged["type"])


def _steps(events: list[dict[str, Any]], game: str) -> list[list[dict[str, Any]]]:
    """The log's events grouped by step, checking steps run 0, 1, 2, ... without gaps."""
    groups: list[list[dict[str, Any]]] = []
    group: list[dict[str, Any]] = []
    last, following = None, 0  # the step of ``group`` (the last of ``groups``), and the next one
    for event in events:
        step = event["step"]
        if step == last:
            group.append(event)
        elif step == following:
            group = [event]
            groups.append(group)
            last, following = step, step + 1
        else:
            expected = f"step {following}" if last is None else f"step {last} or {following}"
            raise VerifyError(game, event["seq"], expected, f"step {step}")
    return groups


def _event(logged: dict[str, Any]) -> Event:
    """The engine's Event for a logged event (made as a plain tuple of Event's fields: a hot path)."""
    audience = logged["audience"]
    return _new_event(Event, (logged["type"], logged["data"], logged.get("private"),
                              () if audience == PUBLIC else tuple(audience)))


# Speed, paid for by this module's bench: `python bench/verify.py --only ratio --game nine-tails`, whose goal
# (verified over played events/s >= 2) holds by a thin margin ("nine-tails played=11588 events/s ... verified=25855
# events/s ratio: 2.23", docs/benchmarks.md). One Event per logged event, made without NamedTuple's generated
# __new__ (a Python call): 131 ns instead of 220 ns an event (timeit, 2026-12-02).
_new_event = tuple.__new__
_LOG_ENDINGS = (SEAT_FORFEITED, GAME_ENDED)
_ENDED_KEYS = frozenset(("ranking", "reason", "seed", "opening", "scores"))
"""What game_ended's data may hold (a log written before opening and scores were added holds neither)."""


def _same(a: Any, b: Any) -> bool:
    if a == b:
        return True
    try:  # tuples against lists: equal if their canonical bytes are
        return canonical(a) == canonical(b)
    except CanonicalError:
        return False


def _reason(error: Exception) -> str:
    return str(error) if isinstance(error, EngineError) else f"{type(error).__name__}: {error}"


def _actor(actor: int) -> str:
    return "chance" if actor == CHANCE else "nobody: the game is over" if actor == TERMINAL else f"seat {actor}"


def _short(value: Any, limit: int = 80) -> str:
    try:
        text = canonical(value).decode() if not isinstance(value, str) else repr(value)
    except CanonicalError:  # a float, or an integer past 64 bits: shown as JSON spells it, never as Python does
        try:
            text = json.dumps(value, sort_keys=True, separators=(",", ":"))
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector off while one log is read and verified.

    A log's parsed JSON and the engines' folds (tuples built from tuples) make many
    short-lived objects and no reference cycles, so the collector's passes over them find
    nothing; parsing a large log triggers many of them. Paused per log, not per run: anything
    cyclic (an exception's traceback) is collected between logs. Not done for play, where
    in-process bots are the authors' code and may well build cycles.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def read_file(path: str | Path) -> tuple[dict[str, Any], text_record.Rebuilt | None]:
    """A log file, or a text record rebuilt into its full log with the record line behind each event (else None).

    A file is a text record by its name (``.record``) or its first line (replays.text_record.is_record).
    LogError for a path that is not a regular file (a device or a FIFO would be read without end).
    """
    if Path(path).exists() and not Path(path).is_file():
        raise logfmt.LogError(f"{path}: not a regular file: a log or a text record is a file")
    if text_record.is_record(path):
        rebuilt = text_record.read(path)
        return rebuilt.log, rebuilt
    return logfmt.read(path), None


def verify_read(log: dict[str, Any], rebuilt: text_record.Rebuilt | None, name: str = "log",
                public_key: bytes | None = None) -> Report:
    """``verify_log`` of what ``read_file`` read: a text record's failure named by its line, not by seq."""
    try:
        return verify_log(log, name, public_key)
    except logfmt.LogError as error:
        if rebuilt is None:
            raise
        raise rebuilt.located(error) from None
