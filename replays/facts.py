"""Results as the hashed events state them, checked against the derived rows on every read.

Standings, `tourney games`, ladder standings and `ladder rebuild` take each game's ranks,
scores, end reason and forfeit from its hashed ``game_ended`` and ``seat_forfeited`` events
and its seats' bots from its hashed ``game_started``; the derived rows (seats, the game
row's status, seed, end reason, head, event count) must say the same, and a row that does
not is an error naming the game (``Tampered``), never used. docs/replays.md, "What reading
checks", says exactly what is checked here and what only `replay verify` checks.

Per read, without refolding any game (a few events per game, one SHA-256 link or two per
game, one SHA-256 per game for the checkpoint chain, one signature per checkpoint):

1. the game's last event is the one its row's head names, and its body hashes, with the
   hash before it, to that head: so ``game_ended`` (and ``seat_forfeited`` before it,
   linked the same way) are the events the head covers;
2. ``game_ended`` names the hash of ``game_started`` (``opening``), whose body hashes to it:
   so the seats' bots are the ones the head covers too;
3. the head is vouched for by the ledger key: by a checkpoint whose signed root covers the
   game (ledger.checkpoints), or, for a game stored after the last checkpoint, by the
   game's own signature. A game written before the ledger had a key is counted as unsigned,
   not refused.

What reading cannot see: a change inside a game's events that leaves its last events and
opening intact (a move rewritten without touching the end) breaks a link only the whole
chain shows, and a result the rules would not give needs the refold: `replay verify --db`
does both.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from sqlalchemy import bindparam, text
from sqlalchemy.engine import Connection

from ledger import checkpoints, closing
from ledger.canonical import loads
from ledger.chain import link
from ledger.checkpoints import Checkpoint, Scope
from ledger.signing_keys import fingerprint, log_message, signature_holds
from ledger.store import Ledger
from replays.log import LogError
from replays.record import GAME_ENDED, GAME_STARTED, SEAT_FORFEITED

HINT = "the database was changed outside tourney (`tourney replay verify --db` lists every difference)"


class Tampered(LogError):
    """A derived row that disagrees with the hashed events, or a head the ledger key does not vouch for."""

    def __init__(self, game_id: str | None, reason: str) -> None:
        where = f"game {game_id}: " if game_id else ""
        super().__init__(f"{where}{reason}: {HINT}")
        self.game_id = game_id
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Seat:
    seat: int
    bot_id: int
    bot: str
    hash: str
    rank: int
    score: int | None


@dataclass(frozen=True, slots=True)
class Forfeit:
    seat: int
    reason: str


@dataclass(frozen=True, slots=True)
class Fact:
    """One finished game's result, as its hashed events state it."""

    game_id: str
    key: str | None
    created_at: str
    seats: tuple[Seat, ...]
    reason: str
    forfeit: Forfeit | None
    seed: str
    head: str
    store_seq: int
    signature: str | None
    legacy: bool
    """Written before game_ended named its opening: its seats' bots are read from an unlinked game_started."""

    @property
    def ranking(self) -> list[int]:
        return [seat.rank for seat in self.seats]


@dataclass(slots=True)
class Trust:
    """Who vouches for the games of one read: the ledger key, by checkpoint or one by one."""

    key: str | None = None
    """The ledger key's fingerprint (None: written before ledger keys)."""
    checkpoint: Checkpoint | None = None
    covered: int = 0
    signed_alone: int = 0
    unsigned: int = 0
    unfinished: int = 0

    def to_json(self) -> dict[str, Any]:
        latest = self.checkpoint
        return {
            "ledger_key": self.key,
            "checkpoint": None if latest is None else {
                "seq": latest.seq, "games": latest.games, "root": latest.root, "state": latest.state,
                "fingerprint": latest.fingerprint, "created_at": latest.created_at},
            "games_after_checkpoint": self.signed_alone, "unsigned_games": self.unsigned,
            "unfinished_games": self.unfinished,
        }

    def lines(self) -> list[str]:
        """What a reader is told under the standings."""
        out = []
        if self.checkpoint is not None:
            latest = self.checkpoint
            out.append(f"checkpoint {latest.fingerprint} over {_games(latest.games)} ({latest.state}), signed by "
                       f"ledger key {self.key}")
        if self.signed_alone:
            out.append(f"{_games(self.signed_alone)} stored after the last checkpoint, each checked by its own "
                       "signature")
        if self.unsigned:
            out.append(f"{_games(self.unsigned)} unsigned (written before ledger keys): `tourney replay verify --db` "
                       "refolds them; `tourney db sign` signs them after that audit")
        if self.unfinished:
            out.append(f"{_games(self.unfinished)} still playing (not counted)")
        return out


def _games(count: int) -> str:
    return f"{count:,} game" if count == 1 else f"{count:,} games"


@dataclass(slots=True)
class Reading:
    """The finished games of a scope (by game id), in chain order, and who vouches for them."""

    facts: list[Fact]
    trust: Trust = field(default_factory=Trust)
    order: dict[str, int] = field(default_factory=dict)
    """Game id -> its order number in the chain (store_seq in a tournament, the ladder seq in a ladder)."""


def read(ledger: Ledger, scope: Scope, connection: Connection | None = None) -> Reading:
    """Every finished game of a tournament or ladder, checked as the module docstring says: ``pages`` kept in one
    list (a reader of a scope of any size takes the pages one at a time instead).

    Tampered, naming the first game that fails (in chain order), if any does.
    """
    if connection is None:
        with ledger.read() as connection:
            return read(ledger, scope, connection)
    found = Reading([])
    for page in pages(ledger, scope, connection, trust=found.trust):
        for order, fact in page:
            found.facts.append(fact)
            found.order[fact.game_id] = order
    return found


def pages(ledger: Ledger, scope: Scope, connection: Connection, size: int | None = None, trust: Trust | None = None
          ) -> Iterator[list[tuple[int, Fact]]]:
    """``read``'s finished games a page of ``size`` (None: checkpoints.PAGE) at a time, in chain order, each
    with its order number (the ladder seq in a ladder), none kept: what a reader of a scope of any size holds is
    a page. The same checks (the checkpoints first, each game's rows against its events, the signature of each
    no checkpoint covers, a finished game left out of the chain), Tampered at the first that fails: in chain
    order, not by game id. ``trust`` (if given) is filled as the pages are read: who vouches for the games, the
    games still playing counted, whole once the last page is read."""
    key = ledger.key_row(connection)
    public, signs_from = key if key is not None else (None, None)
    audit = checkpoints.audit(connection, scope, public, keep=False)
    if audit.problems:
        raise Tampered(*audit.problems[0])
    trust = Trust() if trust is None else trust
    trust.key = None if public is None else fingerprint(public)
    trust.checkpoint, trust.covered = audit.latest, audit.covered
    size = size or checkpoints.PAGE
    members = checkpoints.paged_members(connection, scope, size)
    done = 0
    while chunk := list(islice(members, size)):
        stored = {game.game_id: game for game in closing.of_games(connection, [m.game_id for m in chunk])}
        page = []
        for member in chunk:
            fact = check(stored[member.game_id])
            if fact is not None:
                if done >= audit.covered:
                    _vouch(fact, public, signs_from, trust)
                page.append((member.order, fact))
            done += 1
        del stored  # the page's rows and events, let go before the next page's are read (and the page itself)
        yield page
        del page
    for game in closing.unnumbered(connection, scope):
        if check(game) is not None:  # a finished game is numbered: check says so first
            raise Tampered(game.game_id, f"finished, but not among the games of {scope}")
        trust.unfinished += 1


def trust(ledger: Ledger, scope: Scope, connection: Connection) -> Trust:
    """Who vouches for a scope's games, without reading a game's events: the checkpoints (their chain
    recomputed, their signatures checked) and, for each game stored after the last one, its own signature.
    What a command that shows read models says under them; Tampered as ``read`` says it. (``read`` also
    checks each game's rows against its events: `tourney db audit` and `replay verify --db` do that.)"""
    key = ledger.key_row(connection)
    public, signs_from = key if key is not None else (None, None)
    audit = checkpoints.audit(connection, scope, public, keep=False)
    if audit.problems:
        raise Tampered(*audit.problems[0])
    found = Trust(None if public is None else fingerprint(public), audit.latest, audit.covered)
    uncovered = audit.uncovered
    numbers: dict[str, int] = {}
    for start in range(0, len(uncovered), 500):  # bound the parameters of one statement
        chunk = [member.game_id for member in uncovered[start:start + 500]]
        numbers.update(connection.execute(text("SELECT id, store_seq FROM games WHERE id IN :ids").bindparams(
            bindparam("ids", expanding=True)), {"ids": chunk}).fetchall())
    for member in uncovered:
        _vouch(Fact(member.game_id, member.key or None, "", (), "", None, "", member.head, numbers[member.game_id],
                    member.signature, False), public, signs_from, found)
    if scope.kind == checkpoints.TOURNAMENT:
        found.unfinished = connection.execute(text(
            "SELECT COUNT(*) FROM games WHERE tournament_id = :id AND status = 'playing'"), {"id": scope.id}).scalar()
    return found


def read_games(ledger: Ledger, game_ids: Sequence[str], connection: Connection) -> list[Fact]:
    """The finished games of ``game_ids`` (in that order; games still playing left out), each checked as
    ``read`` checks a game no checkpoint covers: its rows against its events, its head by its own signature.
    What reads a few games (those stored after a refold began) without auditing their whole scope."""
    key = ledger.key_row(connection)
    public, signs_from = key if key is not None else (None, None)
    trust = Trust()
    by_id = {}
    for game in closing.of_games(connection, list(game_ids)):
        fact = check(game)
        if fact is not None:
            _vouch(fact, public, signs_from, trust)
            by_id[fact.game_id] = fact
    return [by_id[game_id] for game_id in game_ids if game_id in by_id]


def _vouch(fact: Fact, public: bytes | None, signs_from: int | None, trust: Trust) -> None:
    """A game no checkpoint covers is vouched for by its own signature (or counted unsigned, if stored before
    the ledger key signed games); Tampered if it is neither."""
    if fact.signature is not None:
        if public is None or not signature_holds(public, fact.signature, log_message(fact.game_id, fact.head)):
            raise Tampered(fact.game_id, "its signature does not hold under the ledger key (its events were "
                                         "changed and re-sealed, or the signature was)")
        trust.signed_alone += 1
    elif public is None or fact.store_seq < signs_from:
        trust.unsigned += 1
    else:
        raise Tampered(fact.game_id, "it is not signed, though the ledger key signs every game stored since "
                                     f"number {signs_from} (it is number {fact.store_seq})")


def check(stored: closing.Closing) -> Fact | None:
    """A finished game's result from its hashed events, its rows checked against them; None for a game
    still playing. Tampered naming what disagrees."""
    game = stored.game
    game_id = game["id"]
    if stored.damage is not None:
        raise Tampered(game_id, stored.damage)
    if stored.first is None:
        raise Tampered(game_id, "it has no events")
    if not stored.last:
        raise Tampered(game_id, f"its row counts {game['events']} events, fewer are stored")
    last = stored.last[-1]
    if game["events"] != last.seq + 1:
        raise Tampered(game_id, f"its row counts {game['events']} events, {last.seq + 1} are stored")
    if game["head"] != last.hash:
        raise Tampered(game_id, f"its row's head {_hex(game['head'])} is not its last event's hash {_hex(last.hash)}")
    ended = _envelope(game_id, last)
    if ended.get("type") != GAME_ENDED:
        if game["status"] != "playing" or game["store_seq"] is not None or stored.seats:
            raise Tampered(game_id, f"its status is {game['status']!r}, but its events do not end with game_ended")
        return None
    if game["status"] != "finished":
        raise Tampered(game_id, f"its status is {game['status']!r}, but its events end with game_ended")
    if game["store_seq"] is None:
        raise Tampered(game_id, "it is finished, but not numbered among the stored games")
    _linked(game_id, stored.last, len(stored.last) - 1)
    data = ended["data"]
    ranking, reason = data.get("ranking"), data.get("reason")
    started = _envelope(game_id, stored.first)
    opening = data.get("opening")
    if opening is not None and (opening != stored.first.hash or link(None, stored.first.body) != stored.first.hash):
        raise Tampered(game_id, "its game_started is not the one its game_ended names (opening "
                                f"{_hex(opening)}, stored {_hex(stored.first.hash)})")
    if started.get("type") != GAME_STARTED:
        raise Tampered(game_id, f"its first event is {started.get('type')!r}, not game_started")
    opened = started["data"]
    hashed_seats = opened.get("seats") or []
    if not isinstance(ranking, list) or len(ranking) != len(hashed_seats) or len(stored.seats) != len(hashed_seats):
        raise Tampered(game_id, f"{len(stored.seats)} seat rows, {len(hashed_seats)} seats in its hashed "
                                f"game_started, a ranking of {_count(ranking)}")
    scores = data.get("scores")
    seats = []
    for row, hashed in zip(stored.seats, hashed_seats, strict=True):
        if row.seat != hashed.get("seat") or (row.bot, row.hash) != (hashed.get("bot"), hashed.get("hash")):
            raise Tampered(game_id, f"seat {row.seat}: its row names bot {row.bot!r} ({_hex(row.hash)}), its hashed "
                                    f"game_started {hashed.get('bot')!r} ({_hex(str(hashed.get('hash')))})")
        rank = ranking[row.seat]
        if row.rank != rank:
            raise Tampered(game_id, f"seat {row.seat}: its row says rank {row.rank}, its hashed game_ended {rank}")
        score = None if scores is None else scores[row.seat]
        if row.score != score:
            raise Tampered(game_id, f"seat {row.seat}: its row says score {row.score}, its hashed game_ended {score}")
        seats.append(Seat(row.seat, row.bot_id, row.bot, row.hash, rank, score))
    for column, hashed in (("seed", data.get("seed")), ("end_reason", reason),
                           ("seed_commitment", opened.get("seed_commitment")), ("game", opened.get("game")),
                           ("engine_version", opened.get("engine_version"))):
        if game[column] != hashed:
            raise Tampered(game_id, f"its row's {column} {_short(game[column])} is not the hashed {_short(hashed)}")
    if loads(game["config"]) != opened.get("config"):
        raise Tampered(game_id, "its row's config is not the one its hashed game_started names")
    return Fact(game_id, game["game_key"], game["created_at"], tuple(seats), reason, _forfeit(stored, reason),
                data.get("seed"), game["head"], game["store_seq"], game["signature"], opening is None)


def _forfeit(stored: closing.Closing, reason: str) -> Forfeit | None:
    """The forfeit before game_ended (ALL-5), linked to it; Tampered if the end reason and events disagree."""
    game_id = stored.game_id
    before = stored.last[-2] if len(stored.last) >= 2 else None
    envelope = _envelope(game_id, before) if before is not None else {}
    if envelope.get("type") != SEAT_FORFEITED:
        if reason == "forfeit":
            raise Tampered(game_id, "its hashed game_ended says forfeit, but no seat_forfeited comes before it")
        return None
    _linked(game_id, stored.last, len(stored.last) - 2)
    data = envelope["data"]
    return Forfeit(int(data["seat"]), str(data["reason"]))


def _linked(game_id: str, events: Sequence[closing.StoredEvent], index: int) -> None:
    """events[index]'s body hashes, with the hash before it, to its stored hash."""
    event = events[index]
    if event.seq == 0:
        prev = None
    elif index > 0 and events[index - 1].seq == event.seq - 1:
        prev = events[index - 1].hash
    else:
        raise Tampered(game_id, f"seq {event.seq}: the event before it is missing")
    if link(prev, event.body) != event.hash:
        raise Tampered(game_id, f"seq {event.seq}: its body does not hash to its stored hash {_hex(event.hash)}")


def _envelope(game_id: str, event: closing.StoredEvent) -> dict[str, Any]:
    try:
        envelope = loads(event.body)
    except ValueError:
        raise Tampered(game_id, f"seq {event.seq}: its body is not canonical JSON") from None
    if not isinstance(envelope, dict) or envelope.get("game") != game_id or envelope.get("seq") != event.seq:
        raise Tampered(game_id, f"seq {event.seq}: its body names another game or seq")
    return envelope


def _hex(value: str | None) -> str:
    return "none" if not value else f"{value[:16]}…"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _count(ranking: Any) -> str:
    return f"{len(ranking)} seats" if isinstance(ranking, list) else repr(ranking)
