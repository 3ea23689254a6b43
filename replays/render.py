"""A game turn by turn, as one viewer saw it: the frames that `tourney replay show` prints.

The log is verified first (a game that does not verify is not shown), folding it with
the engine; after each step the viewer's frame holds the step's events in words
(redacted for the viewer) and the table as the viewer saw it (the engine's view; for
the full view, the spectator's table plus every seat's own hidden part).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engines import registry
from engines.base import CHANCE, SETUP
from ledger.chain import PUBLIC
from replays import log as logfmt
from replays.verify import Refold, Report, check_envelope


@dataclass(slots=True)
class Frame:
    """One step: who acted, its events in words, and the table after it."""

    step: int
    actor: str
    lines: list[str]
    table: dict[str, Any]
    seats: dict[int, dict[str, Any]] = field(default_factory=dict)
    turn_over: bool = True


def words(event: dict[str, Any], seat: int | str | None) -> str:
    """An event in the game's words, with its hidden part only if the viewer may see it."""
    text = event["type"].replace("_", " ")
    details = [f"{key} {show_value(value)}" for key, value in event["data"].items()]
    visible = seat == "full" or event["audience"] == PUBLIC or (isinstance(seat, int) and seat in event["audience"])
    if "private" in event and visible:
        details += [f"{key} {show_value(value)}" for key, value in event["private"].items()]
    elif event["audience"] != PUBLIC:
        details.append("(hidden)")
    return text + (": " + ", ".join(details) if details else "")


def frames(log: dict[str, Any], view: str = "full") -> list[Frame]:
    """Every step of a (verified) log as ``view`` saw it."""
    check_envelope(log)
    seat = logfmt.parse_view(view, len(log["seats"]))
    engine = registry.get(log["game"], log["engine_version"])
    seats = len(log["seats"])
    out: list[Frame] = []

    def watch(actor: int, group: list[dict[str, Any]], state: Any) -> None:
        who = "setup" if actor == SETUP else "chance" if actor == CHANCE else f"seat {actor} ({_bot(log, actor)})"
        lines = [words(event, seat) for event in group]
        if seat == "full":
            table = engine.view(state, None)
            hidden = {}
            for s in range(seats):
                own = engine.view(state, s)
                hidden[s] = {k: v for k, v in own.items() if table.get(k) != v and k != "seat"}
        else:
            table = engine.view(state, seat)
            hidden = {}
        if out and out[-1].actor == who:
            out[-1].turn_over = False
        out.append(Frame(group[0]["step"], who, lines, table, hidden, turn_over=actor >= 0))

    Refold(engine, log, Report(log["game_id"], view, len(log["events"])), watch).run()
    ending = [words(event, seat) for event in log["events"] if event["step"] > (out[-1].step if out else 0)]
    if ending:
        last = out[-1] if out else None
        out.append(Frame(log["events"][-1]["step"], "end", ending, last.table if last else {},
                         last.seats if last else {}))
    return out


def _bot(log: dict[str, Any], seat: int) -> str:
    return log["seats"][seat]["bot"]


def show_value(value: Any) -> str:
    """A view or event value in compact words: lists in brackets, objects as key value pairs."""
    if isinstance(value, list):
        return "[" + " ".join(show_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} {show_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def label(key: str) -> str:
    """A view's key in words: ``fire_stack`` reads "fire stack"."""
    return key.replace("_", " ")


def final_scores(log: dict[str, Any]) -> list[int] | None:
    """Each seat's score when the (verified) log ends, for a game that keeps scores; else None."""
    engine = registry.get(log["game"], log["engine_version"])
    scores = getattr(engine, "scores", None)
    if scores is None:
        return None
    states: list[Any] = []
    Refold(engine, log, Report(log["game_id"], "full", len(log["events"])),
           lambda _actor, _group, state: states.append(state)).run()
    return list(scores(states[-1])) if states else None
