"""The sealed form of a finished game: all its events in one compressed block (docs/log-format.md, "Sealed games").

A block keeps only what cannot be derived, and reading it rebuilds every event byte for byte:

* once per game: the game id, the revealed seed, the event types and audiences it uses (each event
  names them by index), and the hash before its last ``TAIL`` events (32 raw bytes), so a reader of
  its result needs only its first and last events (ledger.closing);
* per event, in columns (like with like, so zstd finds the repeats): the type and audience indexes,
  the step as the rise from the previous event's, a flags byte, the event's ``data`` as the canonical
  bytes inside its hashed body, its private part;
* dropped and rebuilt on read: the seq (its place), the body's frame (audience, commitment, game,
  seq, step, type around the data), the commitment (SHA-256 of salt and private part), the salt of a
  chance event (HMAC of the seed, ledger.chain.chance_salt), the salt of a decision (HMAC of the game's
  salt key, which the block then keeps: ledger.chain.decision_salt) and every hash (the chain
  recomputed from seq 0).

What the template cannot rebuild (a body spelt otherwise, a decision's salt) is kept as it is, so
any chain seals; records whose chain does not hold (a hash that is not SHA-256 of the previous hash
and the body) cannot, and ``Unsealable`` names the first such seq.

The block is compressed as one zstd frame with its checksum, with the dictionary of its game and
rules version when the ledger has one (ledger.dictionaries).
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate
from typing import NamedTuple

import orjson

from ledger.chain import CHANCE_SALT, DECISION_SALT, GENESIS, PUBLIC, Record

FORMAT = 1
"""The version of the block's layout (its first byte): a reader keeps every version it ever wrote."""
TAIL = 3
"""Events at the end whose previous hash the block keeps: game_ended, seat_forfeited before it, one more."""

PRIVATE, OWN_SALT, OWN_BODY, KEY_SALT = 1, 2, 4, 8
"""An event's flags: it has a private part; its salt is kept (neither the seed's chance salt nor the salt key's
decision salt); its body is kept whole (the template does not spell it); its salt is the salt key's."""
WIDE, SMALL_RISES, JOINED, NAMES_JOINED = 1, 2, 4, 8
"""A block's layout flags: indexes take two bytes (over 256 types or audiences); every step rises by 0-255
(else each step is kept as 8 bytes); data and private parts are joined by newlines (else length-prefixed);
so are the names of types and audiences."""

_SEP = b"\n"  # canonical JSON never holds a raw newline (a string's is escaped)
_BODY = b'%b%b%b,"game":%b,"seq":%d,"step":%d%b'
_GAME_KEY = b',"game":'


class Unsealable(ValueError):
    """Records that cannot be sealed faithfully; ``seq`` is the first bad one."""

    def __init__(self, seq: int, message: str, game_id: str | None = None) -> None:
        super().__init__(f"seq {seq}: {message}")
        self.seq = seq
        self.detail = message
        self.game_id = game_id


class Damaged(ValueError):
    """A block that cannot be read back (changed, cut, or decompressed with another dictionary)."""


class StoredEvent(NamedTuple):
    """One event as a reader of results needs it: its seq, hashed body and hash."""

    seq: int
    body: bytes
    hash: str


# -- sealing -------------------------------------------------------------------------------


def pack(game_id: str, seed: str | None, records: Sequence[Record], salt_key: bytes | None = None) -> bytes:
    """The uncompressed block of a whole game's records; Unsealable if their chain does not hold. With the game's
    salt key (replays.record), its decisions' salts are derived from it instead of kept."""
    if not records:
        raise Unsealable(0, "a game without events")
    game_json = orjson.dumps(game_id)
    chance = _key(seed.encode("utf-8") if seed is not None else None)
    decision = _key(salt_key)
    derived: dict[str, int] = {}  # event type -> the flag of the salt its last private part had
    types: dict[str, int] = {}
    audiences: dict[str, int] = {}
    frames: dict[tuple[str, str], tuple[bytes, bytes]] = {}
    type_column: list[int] = []
    audience_column: list[int] = []
    flags = bytearray()
    steps: list[int] = []
    data: list[bytes] = []
    privates: list[bytes] = []
    salts: list[bytes] = []
    bodies: list[bytes] = []
    prev = GENESIS
    tail_prev = b""
    before_tail = len(records) - TAIL - 1
    sha256 = hashlib.sha256
    step = 0
    for seq, record in enumerate(records):
        seq_, type_, audience, body, private, salt, hash_ = record
        if seq_ != seq:
            raise Unsealable(seq, f"expected seq {seq}, found seq {seq_}")
        digest = sha256(prev + body).digest()
        if digest.hex() != hash_:
            raise Unsealable(seq, f"its hash {hash_} is not SHA-256 of the previous hash and its body")
        type_column.append(types.setdefault(type_, len(types)))
        audience_column.append(audiences.setdefault(audience, len(audiences)))
        frame = frames.get((type_, audience))
        if frame is None:
            frame = frames[type_, audience] = _frame(type_, audience)
        opening, closing = frame
        if private is None:
            if salt is not None:
                raise Unsealable(seq, "a salt without a private part")
            flag = 0
            opening += b'null,"data":'
        else:
            if salt is None or len(salt) != 16:
                raise Unsealable(seq, "a private part without its 16-byte salt")
            flag = PRIVATE
            privates.append(private)
            opening += b'"%b","data":' % sha256(salt + private).hexdigest().encode()
            flag |= _derivation(salt, seq, derived.get(type_, 0), chance, decision)
            derived[type_] = flag & (OWN_SALT | KEY_SALT)
            if flag & OWN_SALT:
                salts.append(salt)
        found = _split(body, opening, b',"game":%b,"seq":%d,"step":' % (game_json, seq), closing)
        if found is None:
            flag |= OWN_BODY
            bodies.append(body)
        else:
            step, end = found
            data.append(body[len(opening):end])
        steps.append(step)
        flags.append(flag)
        prev = digest
        if seq == before_tail:
            tail_prev = digest
    used_key = salt_key if _count(flags, KEY_SALT) else None
    return _layout(game_id, seed, used_key, types, audiences, type_column, audience_column, steps, flags, data,
                   privates, salts, bodies, tail_prev)


def _key(key: bytes | None) -> hmac.HMAC | None:
    return None if key is None else hmac.new(key, digestmod=hashlib.sha256)


def _salt(mac: hmac.HMAC, label: bytes, seq: int) -> bytes:
    """HMAC-SHA256(key, label % seq)[:16]: ledger.chain.chance_salt and decision_salt, the key's state set up once."""
    mac = mac.copy()
    mac.update(label % seq)
    return mac.digest()[:16]


def _derivation(salt: bytes, seq: int, first: int, chance: hmac.HMAC | None, decision: hmac.HMAC | None) -> int:
    """The flag of the salt's origin: 0 (the seed's chance salt), KEY_SALT (the salt key's) or OWN_SALT
    (kept). ``first`` is tried first: events of one type draw their salts alike."""
    for flag in (first, *{0, KEY_SALT} - {first}):
        if flag == 0 and chance is not None and _salt(chance, CHANCE_SALT, seq) == salt:
            return 0
        if flag == KEY_SALT and decision is not None and _salt(decision, DECISION_SALT, seq) == salt:
            return KEY_SALT
    return OWN_SALT


def _frame(type_: str, audience: str) -> tuple[bytes, bytes]:
    """What a body of this type and audience starts with (up to its commitment) and ends with (its type)."""
    audience_json = b'"public"' if audience == PUBLIC else audience.encode()
    return b'{"audience":%b,"commitment":' % audience_json, b',"type":%b}' % orjson.dumps(type_)


def _split(body: bytes, opening: bytes, middle: bytes, closing: bytes) -> tuple[int, int] | None:
    """(step, where the data ends) if ``body`` is opening + data + middle + step + closing, else None."""
    end = body.rfind(_GAME_KEY)  # a JSON string escapes its quotes, so the frame's key is the last one
    if end < len(opening) or not body.startswith(opening) or not body.endswith(closing) \
            or not body.startswith(middle, end):
        return None
    digits = body[end + len(middle):len(body) - len(closing)]
    try:
        step = int(digits)
    except ValueError:
        return None
    return (step, end) if b"%d" % step == digits else None


def _layout(game_id: str, seed: str | None, salt_key: bytes | None, types: dict[str, int], audiences: dict[str, int],
            type_column: list[int], audience_column: list[int], steps: list[int], flags: bytearray,
            data: list[bytes], privates: list[bytes], salts: list[bytes], bodies: list[bytes],
            tail_prev: bytes) -> bytes:
    count = len(flags)
    rises = [b - a for a, b in zip([0, *steps], steps, strict=False)]
    wide = len(types) > 256 or len(audiences) > 256
    small_rises = all(0 <= rise < 256 for rise in rises)
    joined = all(item and _SEP not in item for item in data) and all(item and _SEP not in item for item in privates)
    names = [[name.encode("utf-8") for name in table] for table in (types, audiences)]
    names_joined = all(name and _SEP not in name for table in names for name in table)
    out = bytearray([FORMAT, (WIDE if wide else 0) | (SMALL_RISES if small_rises else 0) | (JOINED if joined else 0)
                     | (NAMES_JOINED if names_joined else 0)])
    out += _text(game_id)
    out += b"\x00" if seed is None else b"\x01" + _text(seed)
    out += _number(len(salt_key or b"")) + (salt_key or b"")
    out += _number(count)
    out += _stream(names[0], names_joined)
    out += _stream(names[1], names_joined)
    out += tail_prev
    out += struct.pack(f"<{count}H", *type_column) if wide else bytes(type_column)
    out += struct.pack(f"<{count}H", *audience_column) if wide else bytes(audience_column)
    out += bytes(rises) if small_rises else struct.pack(f"<{count}q", *steps)
    out += flags
    out += _stream(data, joined)
    out += _stream(privates, joined)
    out += b"".join(salts)
    out += _stream(bodies, False)
    return bytes(out)


def _number(value: int) -> bytes:
    """An unsigned LEB128 varint."""
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _text(value: str) -> bytes:
    raw = value.encode("utf-8")
    return _number(len(raw)) + raw


def _stream(items: list[bytes], joined: bool) -> bytes:
    """Items as one stream: its byte length, then the items joined by newlines or each length-prefixed."""
    raw = _SEP.join(items) if joined else b"".join(_number(len(item)) + item for item in items)
    return _number(len(raw)) + raw


# -- reading -------------------------------------------------------------------------------


class Block:
    """A parsed block: rebuilds all of a game's records, or the bodies of some of its events."""

    __slots__ = ("audience_column", "audiences", "bodies", "count", "data", "flags", "game_id", "privates",
                 "salt_key", "salts", "seed", "steps", "tail_prev", "type_column", "types")

    def __init__(self, raw: bytes) -> None:
        try:
            self._parse(raw)
        except (IndexError, ValueError, struct.error, UnicodeDecodeError) as error:
            raise Damaged(f"its sealed block cannot be read ({error})") from None

    def _parse(self, raw: bytes) -> None:
        reader = _Reader(raw)
        version, layout = reader.byte(), reader.byte()
        if version != FORMAT:
            raise ValueError(f"layout version {version}, not {FORMAT}")
        self.game_id = reader.text()
        self.seed = reader.text() if reader.byte() else None
        self.salt_key = reader.take(reader.number()) or None
        count = self.count = reader.number()
        names_joined = bool(layout & NAMES_JOINED)
        self.types = [name.decode("utf-8") for name in reader.stream(names_joined)]
        self.audiences = [name.decode("utf-8") for name in reader.stream(names_joined)]
        self.tail_prev = reader.take(32) if count > TAIL else b""
        wide = layout & WIDE
        self.type_column = reader.column(count, wide)
        self.audience_column = reader.column(count, wide)
        if layout & SMALL_RISES:
            self.steps = list(accumulate(reader.take(count)))
        else:
            self.steps = list(struct.unpack(f"<{count}q", reader.take(8 * count)))
        self.flags = reader.take(count)
        joined = bool(layout & JOINED)
        self.data = reader.stream(joined)
        self.privates = reader.stream(joined)
        salts = reader.take(16 * _count(self.flags, OWN_SALT))
        self.salts = [salts[at:at + 16] for at in range(0, len(salts), 16)]
        self.bodies = reader.stream(False)
        reader.end()
        if max(self.type_column, default=0) >= len(self.types) or \
                max(self.audience_column, default=0) >= len(self.audiences):
            raise ValueError("an index past its table")
        private, own = _count(self.flags, PRIVATE), _count(self.flags, OWN_BODY)
        if (len(self.privates), len(self.bodies), len(self.data)) != (private, own, count - own):
            raise ValueError("its columns disagree on how many events it holds")

    def records(self) -> list[Record]:
        """Every event of the game, each hash recomputed from seq 0; Damaged if the kept tail hash disagrees."""
        records = []
        prev = GENESIS
        sha256 = hashlib.sha256
        before_tail = self.count - TAIL - 1
        types, audiences = self.types, self.audiences
        for seq, body, private, salt in self._events(None):
            prev = sha256(prev + body).digest()
            records.append(Record(seq, types[self.type_column[seq]], audiences[self.audience_column[seq]], body,
                                  private, salt, prev.hex()))
            if seq == before_tail and prev != self.tail_prev:
                raise Damaged(f"its sealed block's tail hash is not the hash of its seq {seq}")
        return records

    def closing(self) -> tuple[StoredEvent, list[StoredEvent]]:
        """Its first event and its last ``TAIL`` (seq order), hashed from the kept tail hash (no walk of the chain)."""
        count = self.count
        if count <= TAIL + 1:
            every = [StoredEvent(r.seq, r.body, r.hash) for r in self.records()]
            return every[0], every[-TAIL:]
        wanted = [0, *range(count - TAIL, count)]
        events = {seq: body for seq, body, _private, _salt in self._events(wanted)}
        first = StoredEvent(0, events[0], hashlib.sha256(GENESIS + events[0]).hexdigest())
        last, prev = [], self.tail_prev
        for seq in range(count - TAIL, count):
            prev = hashlib.sha256(prev + events[seq]).digest()
            last.append(StoredEvent(seq, events[seq], prev.hex()))
        return first, last

    def bodies_of(self, type_: str) -> list[bytes]:
        """The hashed bodies of its events of one type, in seq order (their chain is not walked)."""
        if type_ not in self.types:
            return []
        index = self.types.index(type_)
        wanted = [seq for seq, found in enumerate(self.type_column) if found == index]
        return [body for _seq, body, _private, _salt in self._events(wanted)]

    def _events(self, wanted: Iterable[int] | None) -> Iterator[tuple[int, bytes, bytes | None, bytes | None]]:
        """(seq, body, private, salt) of every event, or of the seqs ``wanted`` (ascending), in seq order."""
        game_json = orjson.dumps(self.game_id)
        chance = _key(self.seed.encode("utf-8") if self.seed is not None else None)
        decision = _key(self.salt_key)
        frames: dict[tuple[int, int], tuple[bytes, bytes]] = {}
        flags, steps, type_column, audience_column = self.flags, self.steps, self.type_column, self.audience_column
        sha256 = hashlib.sha256
        if wanted is None:
            places: Iterable[tuple[int, int, int, int, int]] = _places(flags)
        else:  # each wanted event's place in the streams, counted in C: no walk over the others
            places = ((seq, _count(flags, OWN_BODY, seq), _count(flags, PRIVATE, seq), _count(flags, OWN_SALT, seq),
                       seq - _count(flags, OWN_BODY, seq)) for seq in wanted)
        for seq, own_body, private_at, salt_at, data_at in places:
            flag = flags[seq]
            private = salt = None
            if flag & PRIVATE:
                private = self.privates[private_at]
                if flag & OWN_SALT:
                    salt = self.salts[salt_at]
                elif flag & KEY_SALT:
                    if decision is None:
                        raise Damaged(f"seq {seq}: a decision's salt, but the block keeps no salt key")
                    salt = _salt(decision, DECISION_SALT, seq)
                elif chance is None:
                    raise Damaged(f"seq {seq}: a chance salt, but the block keeps no seed")
                else:
                    salt = _salt(chance, CHANCE_SALT, seq)
            if flag & OWN_BODY:
                yield seq, self.bodies[own_body], private, salt
                continue
            key = (type_column[seq], audience_column[seq])
            frame = frames.get(key)
            if frame is None:
                frame = frames[key] = _frame(self.types[key[0]], self.audiences[key[1]])
            commit = b'null,"data":' if private is None else \
                b'"%b","data":' % sha256(salt + private).hexdigest().encode()
            body = _BODY % (frame[0], commit, self.data[data_at], game_json, seq, steps[seq], frame[1])
            yield seq, body, private, salt


def _places(flags: bytes) -> Iterator[tuple[int, int, int, int, int]]:
    """(seq, and its index among kept bodies, private parts, kept salts, data) for every event."""
    own_body = private = salt = data = 0
    for seq, flag in enumerate(flags):
        yield seq, own_body, private, salt, data
        if flag & OWN_BODY:
            own_body += 1
        else:
            data += 1
        if flag & PRIVATE:
            private += 1
            if flag & OWN_SALT:
                salt += 1


_FLAG_TABLES = {flag: bytes(1 if byte & flag else 0 for byte in range(256))
                for flag in (PRIVATE, OWN_SALT, OWN_BODY, KEY_SALT)}


def _count(flags: bytes, flag: int, end: int | None = None) -> int:
    """How many of ``flags[:end]`` have ``flag`` set."""
    return flags[:end].translate(_FLAG_TABLES[flag]).count(1)


class _Reader:
    __slots__ = ("at", "raw")

    def __init__(self, raw: bytes) -> None:
        self.raw, self.at = raw, 0

    def take(self, size: int) -> bytes:
        end = self.at + size
        if end > len(self.raw):
            raise ValueError("it ends early")
        out = self.raw[self.at:end]
        self.at = end
        return out

    def byte(self) -> int:
        at = self.at
        self.at = at + 1
        return self.raw[at]  # IndexError past the end: Block reports it as damage

    def number(self) -> int:
        value = self.byte()
        if value < 0x80:  # nearly every count and length: one byte
            return value
        value &= 0x7F
        shift = 7
        while True:
            byte = self.byte()
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return value
            shift += 7

    def text(self) -> str:
        return self.take(self.number()).decode("utf-8")

    def column(self, count: int, wide: int) -> Sequence[int]:
        return struct.unpack(f"<{count}H", self.take(2 * count)) if wide else self.take(count)

    def stream(self, joined: bool) -> list[bytes]:
        raw = self.take(self.number())
        if joined:
            return raw.split(_SEP) if raw else []
        items, inner = [], _Reader(raw)
        while inner.at < len(raw):
            items.append(inner.take(inner.number()))
        return items

    def end(self) -> None:
        if self.at != len(self.raw):
            raise ValueError(f"{len(self.raw) - self.at} bytes past its end")
