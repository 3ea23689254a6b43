"""Verify the games stored in a ledger: each refolded, its derived rows and its signature checked.

For every game named (whatever its status), in this order, stopping at its first failure:

1. its full log, as `replay export` writes it (the ledger's signature included), passes
   ``verify_log``: chain, seed, every chance step, every decision, the result, the signature;
2. its derived rows agree with its hashed events (replays.facts.check): status, event count,
   head, seed, end reason, config, and each seat's bot, rank and score;
3. its signature: a game stored since the ledger had a key must carry one, and it must hold
   under the ledger's public key (with ``trusted``, under that key, and the ledger's key must
   be it). A game written before ledger keys is reported "unsigned (written before ledger
   keys)", not failed.

A game still playing (its events do not end with game_ended, its status says so) is
reported as open: what it holds so far is verified, its result cannot be.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import TypeVar

from ledger import closing
from ledger.signing_keys import fingerprint
from ledger.store import Ledger, LedgerError
from replays import archive, facts
from replays import log as logfmt
from replays.verify import Report, collector_paused, verify_log
from replays.verify_many import Pool, in_batches

OK = "ok"
OPEN = "open"
FAIL = "FAIL"
UNSIGNED = "unsigned (written before ledger keys)"
Item = TypeVar("Item")


@dataclass(frozen=True, slots=True)
class Verdict:
    """What verifying one stored game found: OK, OPEN (still playing) or FAIL, with a line to print."""

    game_id: str
    state: str
    line: str
    report: Report | None = None

    @property
    def name(self) -> str:
        return f"game {self.game_id}"


WINDOW = 10_000
"""Games handed to a pool at once: ids read from the ledger a page at a time are cut into windows of this many,
so that neither the ids nor the verdicts finished out of order are ever held for every game (a window restarts a
local pool's workers: at 10,000 games that costs well under a second of CPU in minutes of verifying)."""
CHUNK = 200
"""Games whose rows are read at once when verifying here."""


def windows(items: Iterable[Item], size: int) -> Iterator[list[Item]]:
    """``items`` (read once, as they come) in lists of ``size``, the last one shorter."""
    iterator = iter(items)
    while window := list(islice(iterator, size)):
        yield window


def stored_games(ledger: Ledger, game_ids: Iterable[str], trusted: bytes | None = None,
                 pool: Pool | None = None) -> Iterator[Verdict]:
    """Verify each game of ``game_ids`` (see the module docstring), one verdict per game, in that order.

    ``game_ids`` is read once, as it goes (ledger.rows.game_rows.ids_in_order streams them from the ledger): what is
    held at once is a window of ids and its verdicts, whatever the number of games. With ``pool``, batches of games are
    verified there at once, each batch by a worker that opens the database itself (read-only): the same verdicts,
    in the same order.
    """
    if pool is not None:
        work = functools.partial(verify_batch, ledger.reopen_url(), trusted)
        for window in windows(game_ids, WINDOW):
            yield from in_batches(pool, work, window, (LedgerError,))
        return
    with ledger.read() as connection:
        key = ledger.key_row(connection)
    public, signs_from = key if key is not None else (None, None)
    if trusted is not None and public is not None and public != trusted:
        for game_id in game_ids:
            yield Verdict(game_id, FAIL, f"the ledger's key is {fingerprint(public)}, not the given key "
                                         f"{fingerprint(trusted)}")
        return
    for chunk in windows(game_ids, CHUNK):
        with ledger.read() as connection:
            stored = {game.game_id: game for game in closing.of_games(connection, chunk)}
        for game_id in chunk:
            yield _one(ledger, stored.pop(game_id), trusted, public, signs_from)


def verify_batch(url: str, trusted: bytes | None, game_ids: list[str]) -> list[Verdict]:
    """One batch of a pool's work: the database at ``url`` opened read-only, its games ``game_ids`` verified."""
    ledger = Ledger(url, read_only=True)
    try:
        verdicts = list(stored_games(ledger, game_ids, trusted))
    finally:
        ledger.close()
    for verdict in verdicts:
        if verdict.report is not None:
            verdict.report.final = None  # the last state is not sent back from a worker
    return verdicts


def _one(ledger: Ledger, stored: closing.Closing, trusted: bytes | None, public: bytes | None,
         signs_from: int | None) -> Verdict:
    game_id = stored.game_id
    try:
        with collector_paused():
            report = verify_log(archive.export(ledger, game_id), f"game {game_id}", trusted)
        fact = facts.check(stored)
    except logfmt.LogError as error:
        reason = error.reason if isinstance(error, facts.Tampered) else str(error)
        return Verdict(game_id, FAIL, reason.removeprefix(f"game {game_id}: "))
    game = stored.game
    if fact is None:
        return Verdict(game_id, OPEN, f"still playing (status {game['status']!r}): {report.events} events verified "
                                      "so far, no result yet", report)
    if game["signature"] is not None and public is None:
        return Verdict(game_id, FAIL, "signed, but the database names no ledger key to check it with", report)
    if game["signature"] is None:
        if signs_from is not None and fact.store_seq >= signs_from:
            return Verdict(game_id, FAIL, f"not signed, though the ledger key signs every game stored since number "
                                          f"{signs_from} (it is number {fact.store_seq})", report)
        report.signature = UNSIGNED
    else:
        report.signature = report.signature.replace("(valid, key not checked)", "(the ledger's key)")
    extra = "; could not check: " + "; ".join(report.unchecked) if report.unchecked else ""
    return Verdict(game_id, OK, f"{report.events} events, {report.decisions} decisions, {report.chance_steps} "
                                f"chance steps, {report.signature}{extra}", report)
