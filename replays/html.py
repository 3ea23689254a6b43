"""The replay page: one self-contained HTML file that shows a game step by step and checks its log.

``page_data(log, view)`` verifies the log as `tourney replay verify` does, folds it with the
engine and gathers what the page shows: every event's canonical body (the exact bytes that
were hashed, so the browser can recompute the chain), its sentence in the game's words, who
acted at each step with the action chosen and the legal actions it had (each also in words),
and the engine's views after every step, delta-encoded (replays/delta.py). ``document(data)`` wraps it in
HTML with the viewer's CSS and JavaScript inline (replays/viewer/) and a Content-Security-
Policy that allows those two blocks and nothing else: no request of any kind.

Which views a page holds (docs/replays.md, "The HTML page"): a page made for ``view`` offers
``log.views_of(view)``: a full page every seat's view, the spectator's, and "full" (the table
with every hand); a ``seat:K`` page seat K's and the spectator's; a spectator page the
spectator's alone. Views are computed from the log given: a full log can make any page,
a redacted log only the pages its view allows (a spectator log knows no seat's hand).
"""

from __future__ import annotations

import base64
import hashlib
import html
import importlib.resources
import re
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from engines import registry
from engines.base import CHANCE, SETUP, Engine, Event
from engines.words import seat_name
from ledger.canonical import canonical
from ledger.chain import PUBLIC
from replays import delta
from replays import log as logfmt
from replays.narration import Narrator
from replays.record import GAME_ENDED, GAME_STARTED, SEAT_FORFEITED
from replays.render import verified
from replays.verify import read_file

PAGE_FORMAT = 2
"""The version of the data block the page's script reads (``"page"`` in it)."""

TITLES = {"tails-on-fire": "Tails on Fire", "nine-tails": "Nine Tails", "lemur-tails": "Lemur Tails"}

# Who acted at a step, for steps that are not a seat's decision.
ACTORS = {SETUP: "setup", CHANCE: "chance"}
LOG_STEP = "log"
"""The log's own steps: game_started, game_ended (seat_forfeited is the forfeiting seat's)."""
UNCHECKED = "unchecked"
"""Steps verification did not reach (a log whose seed is not revealed): shown, not drawn anew."""

_ESCAPES = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026", 0x2028: "\\u2028", 0x2029: "\\u2029"}


def page_data(log: dict[str, Any], view: str | None = None, name: str = "log") -> dict[str, Any]:
    """Everything the page of ``log`` as ``view`` (default: the log's own) shows; LogError if the
    log does not verify or cannot be shown that way (a redacted log shows only what its view allows)."""
    watched: dict[int, tuple[int, Any]] = {}  # step -> (who acted, the state after it)

    def watch(actor: int, group: list[dict[str, Any]], state: Any) -> None:
        watched[group[0]["step"]] = (actor, state)

    # Checked as `replay show` checks a log; the rules version is looked up only once the header is known
    # to be the hashed events' (a header naming another game or version gets verification's verdict).
    view, report = verified(log, view, name, watch)
    seats = len(log["seats"])
    engine = registry.get(log["game"], log["engine_version"])
    shown = logfmt.redact(log, view)
    narrator = Narrator(log["game"])
    own_seats = range(seats) if view == "full" else [] if view == "spectator" else [int(view.split(":")[1])]
    events, privates = _events(shown, narrator)
    steps, views, phrases = _steps(engine, shown, watched, view, own_seats, narrator)
    return {
        "page": PAGE_FORMAT,
        "game": log["game"],
        "title": TITLES.get(log["game"], log["game"]),
        "game_id": log["game_id"],
        "engine_version": log["engine_version"],
        "view": view,
        "views": logfmt.views_of(view, seats),
        "seats": [{"seat": s["seat"], "bot": s["bot"], "hash": s["hash"], "name": seat_name(s["seat"])}
                  for s in log["seats"]],
        "result": _result(shown, narrator, views.last),
        "head": log["head"],
        "signature": log.get("signature"),
        "events": events,
        "private": privates,
        "steps": steps,
        "phrases": phrases,
        "spectator": views.spectator,
        "own": {str(seat): patches for seat, patches in views.own.items()},
        "unchecked": report.unchecked,
    }


def decode_views(data: dict[str, Any]) -> dict[str, list[Any]]:
    """Every view of every step, from a page's delta-encoded data (what the page's script does):
    ``"spectator"`` and ``"seat:K"`` -> one view per step (None before the table is laid)."""
    out: dict[str, list[Any]] = {"spectator": []}
    view = None
    for ops in data["spectator"]:
        view = delta.patch(view, ops)
        out["spectator"].append(view)
    for seat, patches in data["own"].items():
        ops: list[Any] = []
        seat_views = out[f"seat:{seat}"] = []
        for step, own in enumerate(patches):
            ops = ops if own is None else own
            seat_views.append(delta.patch(out["spectator"][step], ops))
    return out


# -- the document -----------------------------------------------------------------------------


def document(data: dict[str, Any]) -> str:
    """The page: HTML with the viewer's CSS and script inline and ``data`` embedded, escaped so
    that nothing in it can close its script element or be read as markup."""
    css = _asset("viewer.css")
    # Only the three games have a drawing; any other is drawn as a list of its view's fields.
    drawing = _asset(f"games/{data['game']}.js") if data["game"] in TITLES else ""
    script = _asset("viewer.js") + drawing + "\nTourney.start();\n"
    title = f"{data['title']} · {data['game_id']} · tourney replay"
    return _fill(_asset("page.html"), {
        "head": _head(title, content_security_policy(script, css), css),
        "data": embed(data),
        "script": script,
    })


def embed(value: Any) -> str:
    """``value`` as JSON for a ``<script type="application/json">`` block: ``<``, ``>``, ``&``,
    U+2028 and U+2029 as \\u escapes (JSON reads them back as the same characters)."""
    return orjson.dumps(value).decode().translate(_ESCAPES)


def content_security_policy(script: str, css: str) -> str:
    """Only this page's own script and style run; no request, no image, no font, no form."""
    return (f"default-src 'none'; script-src '{_sha256(script)}'; style-src '{_sha256(css)}'; "
            "base-uri 'none'; form-action 'none'")


def write_page(log: dict[str, Any], out: Path, view: str | None = None, name: str = "log") -> dict[str, Any]:
    """Write the page of ``log`` to ``out``; returns its data. Nothing is written for a log that
    does not verify."""
    data = page_data(log, view, name)
    _write(out, document(data))
    return data


def file_name(game_id: str) -> str:
    """A page's file name for a game id: only letters, digits, ".", "_" and "-" kept (an imported
    log's id is anyone's text, and must not lead out of the folder)."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", game_id).lstrip(".") + ".html"


@dataclass(slots=True)
class Folder:
    """What ``write_folder`` made: the pages (file name, data) and the logs it could not show."""

    pages: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def write_folder(logs: Iterable[tuple[str, Path]], out: Path, view: str | None = None) -> Folder:
    """A page per log (named after its file) and an index.html listing them; a log that cannot
    be read or does not verify is named in ``failures`` and the others are still written."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise logfmt.LogError(f"{out}: cannot make the folder: {error.strerror or error}") from None
    folder = Folder()
    for name, path in logs:
        try:
            page = f"{path.stem}.html"
            folder.pages.append((page, write_page(read_file(path)[0], out / page, view, name)))
        except logfmt.LogError as error:
            folder.failures.append(f"{name}: {error}")
    _write(out / "index.html", index(folder.pages))
    return folder


def index(pages: list[tuple[str, dict[str, Any]]]) -> str:
    """The index page: one row per game (game, bots, result) linking to its page."""
    rows = []
    for page, data in pages:
        result = data["result"]
        bots = ", ".join(f"{s['name']}: {s['bot']}" for s in data["seats"])
        if result is None:
            outcome = "not finished"
        else:
            order = sorted(range(len(data["seats"])), key=lambda seat: result["ranking"][seat])
            outcome = ", ".join(f"{result['ranking'][s]}. {data['seats'][s]['bot']}"
                                + (f" ({result['scores'][s]})" if result["scores"][s] else "") for s in order)
            if result["forfeit"]:
                outcome += f"; {data['seats'][result['forfeit']['seat']]['bot']} forfeited"
        rows.append("<tr><td><a href=\"{}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>".format(
            html.escape(urllib.parse.quote(page), quote=True), html.escape(data["game_id"]), html.escape(data["title"]),
            html.escape(data["view"]), html.escape(bots), html.escape(outcome)))
    css = _asset("viewer.css")
    return _fill(_asset("index.html"), {
        "head": _head("tourney replays", f"default-src 'none'; style-src '{_sha256(css)}'; base-uri 'none'; "
                                         "form-action 'none'", css),
        "count": str(len(pages)),
        "rows": "\n".join(rows),
    })


# -- gathering --------------------------------------------------------------------------------


def _events(log: dict[str, Any], narrator: Narrator) -> tuple[list[list[str]], list[list[Any]]]:
    """Per event [canonical body, hash, sentence, (sentence with the private part)], and per
    private part the page holds [seq, its canonical text, salt] (the page checks its commitment)."""
    bodies = logfmt.records_of(log)
    events, privates = [], []
    for record, event in zip(bodies, log["events"], strict=True):
        told = narrator.sentence(event["type"], event["data"])
        row = [record.body.decode(), record.hash, told]
        if "private" in event:
            privates.append([event["seq"], canonical(event["private"]).decode(), event["salt"]])
            secret = narrator.sentence(event["type"], event["data"], event["private"])
            if secret != told:
                row.append(secret)
        events.append(row)
    return events, privates


@dataclass(slots=True)
class _Views:
    """The delta-encoded views: the spectator's per step, and each seat's as a patch of the spectator's
    view of the same step (None: the same patch as the step before, as a hand often stays put)."""

    spectator: list[list[Any]] = field(default_factory=list)
    own: dict[int, list[Any]] = field(default_factory=dict)
    last: Any = None
    _own_last: dict[int, list[Any] | None] = field(default_factory=dict)

    def add(self, spectator: Any, seats: dict[int, Any]) -> None:
        self.spectator.append(delta.diff(self.last, spectator))
        self.last = spectator
        for seat, view in seats.items():
            previous = self._own_last.get(seat)
            if previous is not None and delta.same(delta.patch(spectator, previous), view):
                self.own.setdefault(seat, []).append(None)
                continue
            ops = delta.diff(spectator, view)
            self.own.setdefault(seat, []).append(ops)
            self._own_last[seat] = ops


def _steps(engine: Engine, log: dict[str, Any], watched: dict[int, tuple[int, Any]], view: str,
           own_seats: Iterable[int], narrator: Narrator) -> tuple[list[list[Any]], _Views, list[str]]:
    """Per step [actor, first seq, action, legal actions, said], the views after each step, and the
    phrases ``said`` points into: [the action's words, [each legal action's words]] by index (an
    action is worded with the public view before it), or None where the step has neither."""
    groups: list[list[dict[str, Any]]] = []
    for event in log["events"]:
        if event["step"] == len(groups):
            groups.append([])
        groups[-1].append(event)
    own_seats = list(own_seats)
    views = _Views()
    phrases: dict[str, int] = {}

    def said(action: str, before: Any) -> int:
        return phrases.setdefault(narrator.action(action, before), len(phrases))

    steps: list[list[Any]] = []
    state = None
    for number, group in enumerate(groups):
        before = state
        first = group[0]
        legal = action = None
        if number in watched:
            actor, state = watched[number]
        elif first["type"] == SEAT_FORFEITED:
            actor = first["data"]["seat"]
        elif first["type"] in (GAME_STARTED, GAME_ENDED):
            actor = LOG_STEP
        else:
            actor = UNCHECKED
        if type(actor) is int and actor >= 0:
            if before is not None and (view == "full" or actor in own_seats):
                legal = list(engine.legal_actions(before))
            if number in watched:
                action = _action(engine, first)
        words = None
        if action is not None or legal is not None:
            words = [None if action is None else said(action, views.last),
                     None if legal is None else [said(option, views.last) for option in legal]]
        steps.append([ACTORS.get(actor, actor), first["seq"], action, legal, words])
        if state is None:
            views.add(None, dict.fromkeys(own_seats))
        else:
            views.add(_json(engine.view(state, None)), {seat: _json(engine.view(state, seat)) for seat in own_seats})
    return steps, views, list(phrases)


def _action(engine: Engine, logged: dict[str, Any]) -> str | None:
    """The action a decision's first event records, as far as the page's log shows it."""
    audience = logged["audience"]
    event = Event(logged["type"], logged["data"], logged.get("private"), () if audience == PUBLIC else tuple(audience))
    try:
        action = engine.action_of(event)
    except Exception:  # an engine that cannot read a withheld part: the action stays unshown
        return None
    return action if isinstance(action, str) else None


def _result(log: dict[str, Any], narrator: Narrator, final_view: Any) -> dict[str, Any] | None:
    last = log["events"][-1]
    if last["type"] != GAME_ENDED:
        return None
    forfeit = next((e["data"] for e in log["events"] if e["type"] == SEAT_FORFEITED), None)
    ranking = last["data"]["ranking"]
    return {
        "ranking": ranking,
        "reason": last["data"]["reason"],
        "scores": [narrator.score(final_view, seat) for seat in range(len(ranking))],
        "forfeit": {"seat": forfeit["seat"], "reason": forfeit["reason"]} if forfeit else None,
    }


def _json(view: Any) -> Any:
    """A view as plain JSON values (tuples become lists), as the page will read it."""
    return orjson.loads(orjson.dumps(view))


def _head(title: str, policy: str, css: str) -> str:
    """The document's head: its policy first (before anything it governs), its title, its style."""
    return _fill(_asset("head.html"), {"csp": policy, "title": html.escape(title), "css": css})


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise logfmt.LogError(f"{path}: cannot write: {error.strerror or error}") from None


def _asset(name: str) -> str:
    return (importlib.resources.files("replays") / "viewer" / name).read_text(encoding="utf-8")


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


_SLOT = re.compile(r"\{\{(\w+)\}\}")


def _fill(template: str, values: dict[str, str]) -> str:
    """Put each value in its ``{{name}}`` slot, in one pass: a value is never searched for slots."""
    return _SLOT.sub(lambda match: values[match.group(1)], template)
