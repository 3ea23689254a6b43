"""The JSON log format, version 1: a self-contained record of one game.

See docs/log-format.md (and docs/log-format.schema.json) for every field. A log is
built from a recorded game or a stored one, parsed back into ledger records, and
checked for shape with a one-line error naming what is wrong and where.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, NoReturn

import orjson

from ledger.canonical import CanonicalError, canonical, loads
from ledger.chain import GENESIS, PUBLIC, ChainError, Record, audience_text, bodies_of, commitment
from replays.record import GAME_ENDED, GAME_STARTED, Recorded

FORMAT = "tourney-log"
FORMAT_VERSION = 1
SUPPORTED_VERSIONS = frozenset({1})
VIEWS = ("full", "spectator", "seat:K")
_HEX32 = re.compile("[0-9a-f]{32}")


class LogError(ValueError):
    """A log that cannot be read or does not hold; the message is one clear line."""

    def __init__(self, message: str, seq: int | None = None) -> None:
        super().__init__(message)
        self.seq = seq


# -- building -------------------------------------------------------------------------


def event_json(record: Record, include_private: bool = True) -> dict[str, Any]:
    """One record as a log event (its private part and salt only if included)."""
    envelope = loads(record.body)
    out = {
        "seq": record.seq,
        "step": envelope["step"],
        "type": record.type,
        "audience": envelope["audience"],
        "data": envelope["data"],
        "commitment": envelope["commitment"],
        "hash": record.hash,
    }
    if include_private and record.private is not None:
        out["private"] = loads(record.private)
        out["salt"] = record.salt.hex()
    return out


def build(
    game_id: str,
    game: str,
    engine_version: int,
    config: dict[str, Any],
    seats: list[dict[str, Any]],
    records: list[Record],
) -> dict[str, Any]:
    """A full-view log from stored records; header fields come from the hashed events."""
    if not records:
        raise LogError(f"game {game_id} has no events")
    last = loads(records[-1].body)
    ended = last["data"] if last["type"] == GAME_ENDED else None
    started = loads(records[0].body)["data"]
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game_id": game_id,
        "game": game,
        "engine_version": engine_version,
        "config": config,
        "seats": seats,
        "seed_commitment": started.get("seed_commitment"),
        "seed": ended.get("seed") if ended else None,
        "view": "full",
        "events": [event_json(record) for record in records],
        "result": {"ranking": ended["ranking"], "reason": ended["reason"]} if ended else None,
        "head": records[-1].hash,
    }


def from_recorded(recorded: Recorded) -> dict[str, Any]:
    """The full-view log of a game just recorded."""
    seats = [{"seat": i, "bot": s.name, "hash": s.hash} for i, s in enumerate(recorded.seats)]
    return build(recorded.game_id, recorded.game, recorded.engine_version, recorded.config, seats, recorded.records)


def redact(log: dict[str, Any], view: str) -> dict[str, Any]:
    """The log as ``view`` ("full", "spectator" or "seat:K") may see it.

    Private parts (and their salts) stay only where the viewer is in the audience;
    every commitment and hash stays, so the chain still verifies.
    """
    seat = parse_view(view, len(log["seats"]))
    if seat == "full":
        return log
    events = []
    for event in log["events"]:
        audience = event["audience"]
        visible = audience == PUBLIC or (seat is not None and seat in audience)
        if visible or "private" not in event:
            events.append(event)
        else:
            events.append({k: v for k, v in event.items() if k not in ("private", "salt")})
    return {**log, "view": view, "events": events}


def views_of(view: str, seats: int) -> list[str]:
    """The views a log (or page) of ``view`` can show, the one it is for first."""
    if view == "full":
        return ["full", "spectator", *(f"seat:{seat}" for seat in range(seats))]
    if view == "spectator":
        return ["spectator"]
    return [view, "spectator"]


def view_to_show(log: dict[str, Any], view: str | None, name: str = "log") -> str:
    """The view to show ``log`` as: ``view``, or (None) the log's own; LogError if the log cannot be shown so
    (a redacted log lacks the hidden cards a fuller view sees). `replay html` and `replay show` both ask it."""
    seats = len(log["seats"])
    view = log["view"] if view is None else view
    parse_view(view, seats)
    parse_view(log["view"], seats)
    if view not in views_of(log["view"], seats):
        raise LogError(f"{name}: a {log['view']} log cannot be shown as {view}: it lacks the hidden cards that view "
                       f"sees (use {' or '.join(views_of(log['view'], seats))}, or export the game again with --view "
                       f"{view})")
    return view


def parse_view(view: str, seats: int) -> int | str | None:
    """"full" -> "full", "spectator" -> None, "seat:K" -> K; LogError otherwise."""
    if view in ("full", "spectator"):
        return "full" if view == "full" else None
    kind, _, number = view.partition(":")
    if kind == "seat" and number.isdigit() and int(number) < seats:
        return int(number)
    raise LogError(f"unknown view {view!r}: use full, spectator or seat:K with K from 0 to {seats - 1}")


def dumps(log: dict[str, Any]) -> bytes:
    return orjson.dumps(log, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"


# -- reading --------------------------------------------------------------------------


def read(path: str | Path) -> dict[str, Any]:
    """Parse a log file; LogError if it is not a readable tourney log of a known version."""
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise LogError(f"{path}: cannot read: {error.strerror or error}") from None
    return parse(raw, str(path))


def parse(raw: bytes | str, name: str = "log") -> dict[str, Any]:
    log = loads_strictly(raw, name)
    check_header(log, name)
    return log


_WRITTEN = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS


def loads_strictly(raw: bytes | str, name: str = "log", written: bool = True) -> Any:
    """JSON text's value; LogError for text that is not JSON, or whose objects repeat a key (``result: duplicate
    key``, by the path of the first): orjson keeps a repeated key's last value, and a reader keeping the first
    would see another log than the one verified.

    Cheap where it can be: text that is exactly what ``dumps`` writes of the value it parses to (every log tourney
    writes) repeats no key, for a serializer writes each key of an object once; any other text (``written=False``:
    text never in that form) is parsed again by the standard library, whose hook sees every pair, and its value is
    the one returned (an integer past 64 bits stays that integer, where orjson reads a float: ``1e+30``).
    """
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        raise LogError(f"{name}: not JSON ({error})") from None
    if written:
        data = raw.encode() if isinstance(raw, str) else raw
        try:
            again = orjson.dumps(value, option=_WRITTEN)
        except orjson.JSONEncodeError:
            again = b""
        if data.startswith(again) and data[len(again):] in (b"", b"\n"):
            return value
    return _unique_keys(raw, name)


class _Repeated(dict):
    """An object whose text repeats ``key``."""

    key: str


def _unique_keys(raw: bytes | str, name: str) -> Any:
    """The value of JSON text (which orjson read); LogError naming the first object, in the text's order, that
    repeats a key, by its path."""
    found = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(items)
        if len(obj) == len(items):
            return obj
        seen: set[str] = set()
        repeated = _Repeated(obj)
        repeated.key = next(key for key, _value in items if key in seen or seen.add(key))
        found.append(repeated)
        return repeated

    try:
        tree = json.loads(raw, object_pairs_hook=pairs)
    except (ValueError, RecursionError) as error:  # text orjson read: only nesting deeper than Python's limit
        raise LogError(f"{name}: not JSON ({type(error).__name__}: {str(error)[:80]})") from None
    if not found:
        return tree
    stack: list[tuple[str, Any]] = [("", tree)]
    while stack:  # the first repeat in the text's order, without recursion (the nesting may be deep)
        path, value = stack.pop()
        if isinstance(value, _Repeated):
            raise LogError(f"{name}: {path}{_key(value.key)}: duplicate key")
        if isinstance(value, dict):
            stack.extend((f"{path}{_key(key)}.", item) for key, item in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((f"{path.removesuffix('.')}[{index}].", item)
                         for index, item in reversed(list(enumerate(value))))
    raise LogError(f"{name}: an object repeats a key")  # not reached: a repeat is in the tree


def _key(key: str) -> str:
    """A key of an untrusted file as a path names it: escaped unless printable, so the message is one line."""
    return key if key.isprintable() else repr(key)


def check_header(log: Any, name: str = "log") -> None:
    """Format name and version first, so a future log is refused before anything else."""
    if not isinstance(log, dict):
        raise LogError(f"{name}: a log is a JSON object, found {json_type(log)}")
    if log.get("format") != FORMAT:
        raise LogError(f"{name}: not a tourney log (format is {log.get('format')!r}, expected {FORMAT!r})")
    version = log.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise LogError(f"{name}: format_version must be an integer, found {version!r}")
    if version not in SUPPORTED_VERSIONS:
        newest = max(SUPPORTED_VERSIONS)
        if version > newest:
            raise LogError(f"{name}: log format version {version} is newer than this tourney reads ({newest}); "
                           "upgrade tourney")
        raise LogError(f"{name}: unknown log format version {version}")


_HEADER_TYPES: dict[str, type | tuple[type, ...]] = {
    "game_id": str,
    "game": str,
    "engine_version": int,
    "config": dict,
    "seats": list,
    "seed_commitment": str,
    "view": str,
    "events": list,
    "head": str,
}
# Every key a log may hold: a key nobody checks could carry anything past a "passed" verdict.
_TOP_KEYS = frozenset((*_HEADER_TYPES, "format", "format_version", "seed", "result", "signature"))
_REQUIRED_TOP_KEYS = _TOP_KEYS - {"signature"}
_SEAT_KEYS = frozenset(("seat", "bot", "hash"))
_PART_KEYS = {  # the objects inside the header, by their key
    "config": frozenset(("seats", "options")),
    "result": frozenset(("ranking", "reason")),
    "signature": frozenset(("algorithm", "public_key", "signature")),
}
_EVENT_KEYS = frozenset(("seq", "step", "type", "data", "hash", "audience", "commitment", "salt", "private"))


def check_shape(log: dict[str, Any], name: str = "log", events: bool = True) -> None:
    """Every field present with the right JSON type, and no field unknown; LogError naming the first
    that is not (by its path: ``seats[1].colour: unknown field``).

    ``events=False`` leaves the events to the caller (``chain_head`` checks each as it goes).
    """
    check_header(log, name)
    if log.keys() != _TOP_KEYS and log.keys() != _REQUIRED_TOP_KEYS:
        _name_odd_key(log, _TOP_KEYS, "", name, _REQUIRED_TOP_KEYS)
    for key, kind in _HEADER_TYPES.items():
        value = log.get(key)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise LogError(f"{name}: field {key!r} must be {_kind_name(kind)}, found {_describe(value)}")
    if log.get("seed") is not None and not isinstance(log["seed"], str):
        raise LogError(f"{name}: field 'seed' must be a string or null, found {_describe(log['seed'])}")
    for key, known in _PART_KEYS.items():
        part = log.get(key)
        if isinstance(part, dict) and not part.keys() <= known:
            _name_odd_key(part, known, f"{key}.", name)
    for index, seat in enumerate(log["seats"]):
        if not (isinstance(seat, dict) and isinstance(seat.get("bot"), str) and isinstance(seat.get("hash"), str)
                and seat.get("seat") == index):
            raise LogError(f"{name}: seats[{index}] must be {{seat: {index}, bot: string, hash: string}}")
        if seat.keys() != _SEAT_KEYS:
            _name_odd_key(seat, _SEAT_KEYS, f"seats[{index}].", name)
    try:
        viewer = parse_view(log["view"], len(log["seats"]))
    except LogError as error:
        raise LogError(f"{name}: view: {error}") from None
    if events:
        for index, event in enumerate(log["events"]):
            fields = _fields(event)
            if fields is None:
                _check_event(event, index, name)
            check_private(fields[5], fields[6], fields[7] is not None, viewer, index, name)
    if not log["events"]:
        raise LogError(f"{name}: a log has at least one event")


def _name_odd_key(part: dict[str, Any], known: frozenset[str], path: str, name: str,
                  required: frozenset[str] = frozenset()) -> None:
    """Raise LogError naming the first key of ``part`` that is not known, or the first required one missing."""
    for key in part:
        if key not in known:  # a key of an untrusted file: escaped unless printable, so the message is one line
            raise LogError(f"{name}: {path}{_key(key)}: unknown field")
    missing = sorted(required - part.keys())
    if missing:
        raise LogError(f"{name}: {path}{missing[0]}: missing")


def check_private(audience: Any, commit: str | None, carried: bool, viewer: int | str | None, index: int,
                  name: str = "log") -> None:
    """An event carries its private part exactly when the log's view may: a full log every one, a
    spectator's none, seat K's those whose audience holds K. LogError naming the field otherwise."""
    if commit is None:
        if carried:
            raise LogError(f"{name}: events[{index}].private: a public event (commitment null) has no private part",
                           index)
        return
    may = viewer == "full" or (viewer is not None and audience != PUBLIC and viewer in audience)
    if carried and not may:
        who = "a spectator log" if viewer is None else f"seat {viewer}, not in its audience {audience},"
        raise LogError(f"{name}: events[{index}].private: {who} may not carry it", index)
    if may and not carried:
        view = "full" if viewer == "full" else f"seat:{viewer}"
        raise LogError(f"{name}: events[{index}].private: missing, though the log's view {view} sees it", index)


def _fields(event: Any) -> tuple | None:
    """The common case in one pass: an event's fields when its shape holds, else None.

    (seq, step, type, data, hash, audience, commitment, salt, private), salt and private
    None for a public event; None for an event with a key beyond these. ``_check_event``
    explains a None.
    """
    if type(event) is not dict:
        return None
    try:
        fields = (event["seq"], event["step"], event["type"], event["data"], event["hash"], event["audience"],
                  event["commitment"], event.get("salt"), event.get("private"))
    except KeyError:
        return None
    seq, step, type_, data, hash_, audience, commitment, salt, _ = fields
    if not (type(seq) is int and type(step) is int and type(type_) is str and type(data) is dict
            and type(hash_) is str and (commitment is None or type(commitment) is str)):
        return None
    if audience != PUBLIC and not (type(audience) is list and all(type(s) is int for s in audience)):
        return None
    # The seven keys read above are there, so the count of keys says there is no other: no salt,
    # private or unknown key beside a public event's, only private beside a salt.
    if salt is None:
        return fields if len(event) == 7 else None
    return fields if len(event) == 9 and "private" in event and type(salt) is str and _HEX32.fullmatch(salt) else None


def _check_event(event: Any, index: int, name: str) -> NoReturn:
    """Name what is wrong with an event ``_fields`` refused."""
    where = f"{name}: events[{index}]"
    if not isinstance(event, dict):
        raise LogError(f"{where} must be an object, found {_describe(event)}", index)
    for key in event:
        if key not in _EVENT_KEYS:
            raise LogError(f"{where}.{key}: unknown field", index)
    for key, kind in (("seq", int), ("step", int), ("type", str), ("data", dict), ("hash", str)):
        value = event.get(key)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise LogError(f"{where}: {key!r} must be {_kind_name(kind)}, found {_describe(value)}", index)
    audience = event.get("audience")
    if not (audience == PUBLIC or (isinstance(audience, list) and all(type(s) is int for s in audience))):
        raise LogError(f"{where}: 'audience' must be \"public\" or a list of seats, found {_describe(audience)}",
                       index)
    if "commitment" not in event:
        raise LogError(f"{where}: 'commitment' is missing (null for a public event)", index)
    commitment = event["commitment"]
    if commitment is not None and not isinstance(commitment, str):
        raise LogError(f"{where}: 'commitment' must be a string or null", index)
    if ("private" in event) != ("salt" in event):
        raise LogError(f"{where}: 'private' and 'salt' come together", index)
    if "salt" in event and not (isinstance(event["salt"], str) and _HEX32.fullmatch(event["salt"])):
        raise LogError(f"{where}: 'salt' must be 32 hex digits", index)
    raise LogError(f"{where} is malformed", index)  # not reached while the two agree


def chain_head(log: dict[str, Any], name: str = "log") -> str:
    """Check each event's shape, re-make its body, check each link and commitment; the head.

    The same checks as ledger.chain.verify_links over ``records_of``, in one pass that
    builds no records: verification's hot path. Raises ChainError at the first bad seq, and
    LogError at the first event whose private part the log's view may not carry or must
    carry (``check_private``, reached only where a private part is carried outside a full
    log or withheld outside a spectator's).
    """
    body_of = bodies_of(log["game_id"])
    viewer = parse_view(log["view"], len(log["seats"]))
    full = viewer == "full"
    prev: bytes = GENESIS
    for index, event in enumerate(log["events"]):
        fields = _fields(event)
        if fields is None:
            _check_event(event, index, name)
        seq, step, type_, data, hash_, audience, commit, salt, private = fields
        if seq != index:
            raise ChainError(index, f"expected seq {index}, found seq {seq}")
        try:
            body = body_of(seq, type_, audience, data, commit, step)
            if salt is not None:
                if not full or commit is None:
                    check_private(audience, commit, True, viewer, index, name)
                if commitment(bytes.fromhex(salt), canonical(private)) != commit:
                    raise ChainError(seq, f"private part does not match its commitment {commit}")
            elif commit is not None and viewer is not None:  # withheld: only a spectator withholds them all
                check_private(audience, commit, False, viewer, index, name)
        except CanonicalError as error:
            raise LogError(f"{name}: events[{seq}]: {error}", seq) from None
        prev = hashlib.sha256(prev + body).digest()
        if prev.hex() != hash_:
            raise ChainError(seq, f"expected hash {prev.hex()}, found {hash_}")
    return prev.hex()


def records_of(log: dict[str, Any], name: str = "log") -> list[Record]:
    """The ledger records a (shape-checked) log describes, bodies re-made canonically."""
    records = []
    body_of = bodies_of(log["game_id"])
    for index, event in enumerate(log["events"]):
        try:
            body = body_of(event["seq"], event["type"], event["audience"], event["data"], event.get("commitment"),
                           event["step"])
            private = canonical(event["private"]) if "private" in event else None
        except CanonicalError as error:
            raise LogError(f"{name}: events[{index}]: {error}", index) from None
        salt = bytes.fromhex(event["salt"]) if "salt" in event else None
        records.append(Record(event["seq"], event["type"], audience_text(event["audience"]), body, private, salt,
                              event["hash"]))
    return records


def started(log: dict[str, Any]) -> dict[str, Any]:
    """The data of the log's ``game_started`` event (LogError if it does not open the log)."""
    first = log["events"][0]
    if first["type"] != GAME_STARTED:
        raise LogError(f"seq 0: expected {GAME_STARTED}, found {first['type']}", 0)
    return first["data"]


def json_type(value: Any) -> str:
    """The JSON name of a parsed value's type (null, boolean, integer, number, string, array, object)."""
    if value is None:
        return "null"
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "array",
            dict: "object"}.get(type(value), type(value).__name__)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {str: "a string", int: "an integer", dict: "an object", list: "a list"}
    return names.get(kind, str(kind))


def _describe(value: Any) -> str:
    if value is None:
        return "nothing"
    try:
        text = orjson.dumps(value).decode()
    except TypeError:  # bytes, a 65-bit int: what JSON has no spelling for
        text = repr(value)
    return f"{type(value).__name__} {text[:40]}"
