"""Verify a ladder as a whole: its checkpoints, its ratings and history, its sessions' seeds.

Each game is verified on its own by replays.game_audit; this checks the ladder's derived rows:

* the checkpoints hold over its games, in rating order (ledger.checkpoints.audit);
* every rating and games count of ``ladder_entries``, and every row of ``ladder_ratings``
  (the history), is the fold of the games' hashed results (voided games left out), and every
  seat's bot is one of the ladder's entries;
* each session's seed: revealed (or chosen) and matching its commitment, and every game of
  the session dealt from the deal seed its key derives from it; a session whose seed is
  not revealed yet (its session is still being played, or its last worker was killed) is reported, not failed.
"""

from __future__ import annotations

import re
from typing import Any

from ledger import checkpoints, seeds
from ledger.rows import ladder_rows
from ledger.store import Ledger
from replays import facts
from tournaments.ladder import rated_games
from tournaments.play.schedule import deal_seed
from tournaments.play.tournament_audit import Verdict, opened

SESSION_KEY = re.compile(r"s(\d+)-d(\d+)-r(\d+)")


def ladder(ledger: Ledger, row: dict[str, Any], public: bytes | None) -> Verdict:
    """Verify one ladder (the module docstring says what)."""
    with ledger.read() as connection:
        verdict, audit, games = opened(connection, ladder_rows.scope(row), public)
        try:
            fold, _results, _reading = rated_games.folded(ledger, row, connection)
        except facts.Tampered as error:
            verdict.fail(error.game_id, error.reason)
            return verdict
        try:
            rated_games.check_ratings(ledger, row, connection)
        except facts.Tampered as error:
            verdict.fail(None, error.reason)
        expected = fold.history
        found = ladder_rows.rating_history(connection, row["id"])
    order = {game_id: seq for game_id, seq in _order(audit)}
    for (seq, entry), value in expected.items():
        if found.get((seq, entry)) != value:
            verdict.fail(_game_at(order, seq), f"ladder game {seq}: entry {entry}'s history row says "
                                               f"{found.get((seq, entry))}, the fold of the games {value}")
            break
    extra = sorted(set(found) - set(expected))
    if extra:
        verdict.fail(_game_at(order, extra[0][0]), f"ladder game {extra[0][0]}: a history row for entry "
                                                   f"{extra[0][1]} that no rated game gives")
    _sessions(ledger, verdict, row, games)
    return verdict


def _order(audit: checkpoints.Audit) -> list[tuple[str, int]]:
    return [(member.game_id, member.order) for member in audit.members]


def _game_at(order: dict[str, int], seq: int) -> str | None:
    return next((game_id for game_id, at in order.items() if at == seq), None)


def _sessions(ledger: Ledger, verdict: Verdict, row: dict[str, Any], found: list[facts.Fact]) -> None:
    known: dict[int, str | None] = {}
    for session in ladder_rows.sessions(ledger, row["id"]):
        seed = session["seed"]
        if seed is None:
            verdict.notes.append(f"session {session['id']}: seed not revealed yet (still being played, or its last "
                                 "worker was killed: the next worker of the ladder ends it)")
        elif seeds.commitment(seed) != session["commitment"]:
            verdict.fail(None, f"session {session['id']}: its revealed seed does not match its commitment")
            seed = None
        known[session["id"]] = seed
    unkeyed = 0
    for fact in found:
        match = SESSION_KEY.fullmatch(fact.key or "")
        if match is None:
            unkeyed += 1
            continue
        session, deal = int(match[1]), int(match[2])
        if session not in known:
            verdict.fail(fact.game_id, f"its key {fact.key} names session {session}, which the ladder does not have")
        elif known[session] is not None and fact.seed != deal_seed(known[session], 0, deal):
            verdict.fail(fact.game_id, f"it was not dealt from the seed of deal {deal} that session {session}'s "
                                       "seed gives")
    if unkeyed:
        verdict.notes.append(f"{unkeyed} games played before ladder sessions: their seeds come from no commitment")
