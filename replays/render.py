"""A game turn by turn, as one viewer saw it: the frames that `tourney replay show` prints.

The log is verified first, as the replay page's is (``verified``: a game that does not verify
is not shown), folding it with the engine; after each step the viewer's frame holds the
step's events in the game's words (replays/narration, the sentences of the replay page,
with a hidden part only where the viewer may see it) and the table as the viewer saw it:
the engine's view, plus the own view of each seat whose hidden cards the viewer may see
(every seat for the full view). The table is told by the game's own summary (narration
``summary``), drawn from those views alone; a game without one is shown as its view's fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engines import registry
from engines.base import CHANCE, SETUP, Engine
from engines.words import seat_name
from ledger.chain import PUBLIC
from replays import log as logfmt
from replays.narration import Narrator
from replays.verify import Refold, Report, Watcher, verify_log

ACTORS = {SETUP: "setup", CHANCE: "chance"}


@dataclass(slots=True)
class Frame:
    """One step: who acted, its events in words, and the table after it."""

    step: int
    actor: str
    """"setup", "chance", "end", or the seat by colour and bot: "Red (random_bot)"."""
    lines: list[str]
    table: dict[str, Any]
    """The engine's view as the viewer saw it (the full view: a spectator's, with ``own`` beside it)."""
    own: dict[int, dict[str, Any]] = field(default_factory=dict)
    """Each seat's own view, for the seats whose hidden cards the viewer may see."""
    turn_over: bool = True
    summary: list[str] | None = None
    """The table in the game's words, for a frame that ends a turn; None for a game without a summary."""

    @property
    def hidden(self) -> dict[int, dict[str, Any]]:
        """What each seat's own view adds to the table (its hand, say), field by field."""
        return {seat: {k: v for k, v in view.items() if self.table.get(k) != v and k != "seat"}
                for seat, view in self.own.items()}


def seat_labels(log: dict[str, Any]) -> list[str]:
    """Each seat by colour and bot: "Red (heuristic_tails_on_fire)"."""
    return [f"{seat_name(s['seat'])} ({s['bot']})" for s in log["seats"]]


def words(event: dict[str, Any], seat: int | str | None, narrator: Narrator) -> str:
    """An event in the game's words, with its hidden part only if the viewer may see it."""
    visible = seat == "full" or event["audience"] == PUBLIC or (isinstance(seat, int) and seat in event["audience"])
    private = event.get("private") if visible else None
    told = narrator.sentence(event["type"], event["data"], private)
    if private is None and event["audience"] != PUBLIC and not narrator.knows(event["type"]):
        # A game's own sentences word what a viewer sees of a hidden part; the plain fallback cannot.
        told += " (hidden)"
    return told


def verified(log: dict[str, Any], view: str | None = None, name: str = "log",
             watch: Watcher | None = None) -> tuple[str, Report]:
    """The view to show ``log`` as (``view``, or None: the log's own) once the log verifies as `replay verify`
    verifies it (shape, chain, header, seed, every step, result, signature), and the report; LogError naming
    ``name`` otherwise. `replay show` and `replay html` both check a log here, so that neither shows a log the
    other, or `replay verify`, refuses; ``watch`` sees each step as it is checked."""
    logfmt.check_shape(log, name, events=False)
    view = logfmt.view_to_show(log, view, name)
    return view, verify_log(log, name, watch=watch)


def frames(log: dict[str, Any], view: str = "full") -> list[Frame]:
    """Every step of ``log`` as ``view`` saw it (LogError if the log does not verify)."""
    return shown(log, view)[1]


def shown(log: dict[str, Any], view: str | None = None, name: str = "log") -> tuple[str, list[Frame]]:
    """The view ``log`` is shown as (``verified``) and every step as that view saw it; each frame that ends a
    turn has its summary. Nothing is told of a log that does not verify."""
    watched: list[tuple[int, list[dict[str, Any]], Any]] = []
    view, _ = verified(log, view, name, lambda actor, group, state: watched.append((actor, group, state)))
    seat = logfmt.parse_view(view, len(log["seats"]))
    engine = registry.get(log["game"], log["engine_version"])  # known: verification folded the log with it
    narrator = Narrator(log["game"])
    names = seat_labels(log)
    seats = len(log["seats"])
    out: list[Frame] = []
    for actor, group, state in watched:
        who = ACTORS[actor] if actor in ACTORS else names[actor]
        lines = [words(event, seat, narrator) for event in group]
        if seat == "full":
            table = engine.view(state, None)
            own = {s: engine.view(state, s) for s in range(seats)}
        elif seat is None:
            table, own = engine.view(state, None), {}
        else:
            table = engine.view(state, seat)
            own = {seat: table}
        if out and out[-1].actor == who:
            out[-1].turn_over = False
        out.append(Frame(group[0]["step"], who, lines, table, own, turn_over=actor >= 0))
    ending = [words(event, seat, narrator) for event in log["events"]
              if event["step"] > (out[-1].step if out else 0)]
    if ending:
        last = out[-1] if out else None
        out.append(Frame(log["events"][-1]["step"], "end", ending, last.table if last else {},
                         last.own if last else {}))
    for frame in out:
        if frame.turn_over and frame.table:
            frame.summary = narrator.summary(frame.table, names, frame.own)
    return view, out


def label(key: str) -> str:
    """A view's key in words: ``fire_stack`` reads "fire stack"."""
    return key.replace("_", " ")


def final_scores(log: dict[str, Any]) -> list[int] | None:
    """Each seat's score when the (verified) log ends, for a game that keeps scores; else None."""
    engine = registry.get(log["game"], log["engine_version"])
    if type(engine).scores is Engine.scores:
        return None  # the protocol's default: a game that keeps no scores needs no refold
    states: list[Any] = []
    Refold(engine, log, Report(log["game_id"], "full", len(log["events"])),
           lambda _actor, _group, state: states.append(state)).run()
    scores = engine.scores(states[-1]) if states else None
    return None if scores is None else list(scores)
