"""Verify a ladder as a whole: its checkpoints, its ratings and history, its sessions' seeds.

Each game is verified on its own by replays.game_audit; this checks the ladder's derived rows:

* the checkpoints hold over its games, in rating order (ledger.checkpoints.audit);
* every rating and games count of ``ladder_entries``, and every row of ``ladder_ratings``
  (the history), is the fold of the games' hashed results (voided games left out), and every
  seat's bot is one of the ladder's entries;
* each session's seed: revealed (or chosen) and matching its commitment, and every game of
  the session dealt from the deal seed its key derives from it; a session whose seed is
  not revealed yet (its session is still being played, or its last worker was killed) is reported, not failed.

The games are read a page at a time, twice (once for the seeds, once folded for the ratings, each page's history
held against the stored rows of its games), and nothing per game is kept: the memory does not grow with the
ladder's games (bench/league.py's `replay verify --ladder` line).
"""

from __future__ import annotations

import re
from typing import Any

from ledger import checkpoints, closing, seeds
from ledger.rows import ladder_rows
from ledger.store import Ledger
from replays import facts
from tournaments.ladder import rated_games
from tournaments.play.schedule import deal_seed
from tournaments.play.tournament_audit import Verdict, checked_facts, hold_checkpoints

SESSION_KEY = re.compile(r"s(\d+)-d(\d+)-r(\d+)")


def ladder(ledger: Ledger, row: dict[str, Any], public: bytes | None) -> Verdict:
    """Verify one ladder (the module docstring says what)."""
    scope = ladder_rows.scope(row)
    with ledger.read() as connection:
        verdict = Verdict(str(scope))
        hold_checkpoints(verdict, checkpoints.audit(connection, scope, public, keep=False))
        dealt = _Sessions(ledger, row)
        for chunk in closing.in_chunks(connection, scope):
            verdict.games += len(chunk)
            dealt.check(checked_facts(chunk))
        try:
            history = _ratings(ledger, row, connection, verdict)
        except facts.Tampered as error:
            verdict.fail(error.game_id, error.reason)
            return verdict
    for game_id, what in history:
        verdict.fail(game_id, what)
    dealt.tell(verdict)
    return verdict


def _ratings(ledger: Ledger, row: dict[str, Any], connection: Any, verdict: Verdict) -> list[tuple[str | None, str]]:
    """The ladder's ratings held against the fold of its games (rated_games.checked_fold, a page at a time; a
    difference into ``verdict``), and each page's history against the stored rows of its games: the history's
    first difference and first row no rated game gives, to be told after it. facts.Tampered if a game's rows
    disagree with its events."""
    differs: list[tuple[str | None, str]] = []
    extra: list[tuple[str | None, str]] = []
    last = 0

    def held(through: int, expected: dict[tuple[int, int], Any]) -> None:
        nonlocal last
        found = ladder_rows.rating_history(connection, row["id"], last, through)
        for (seq, entry), value in expected.items():
            if not differs and found.get((seq, entry)) != value:
                differs.append((_game_at(connection, row, seq), f"ladder game {seq}: entry {entry}'s history row "
                                                                f"says {found.get((seq, entry))}, the fold of the "
                                                                f"games {value}"))
        if not extra:
            extra.extend(_extra(connection, row, found, expected))
        last = through

    try:
        rated_games.checked_fold(ledger, row, connection, held)
    except rated_games.RatingsDiffer as error:
        verdict.fail(None, error.reason)
    if not extra:  # rows after the last rated game
        extra.extend(_extra(connection, row, ladder_rows.rating_history(connection, row["id"], last), {}))
    return differs + extra


def _extra(connection: Any, row: dict[str, Any], found: dict, expected: dict) -> list[tuple[str | None, str]]:
    """The first stored history row (by ladder seq, then entry) that no rated game gives, if any."""
    rows = sorted(set(found) - set(expected))[:1]
    return [(_game_at(connection, row, seq), f"ladder game {seq}: a history row for entry {entry} that no rated "
                                             "game gives") for seq, entry in rows]


def _game_at(connection: Any, row: dict[str, Any], seq: int) -> str | None:
    return next(iter(ladder_rows.games_after(connection, row["id"], seq - 1, seq)), None)


class _Sessions:
    """The ladder's sessions' seeds, and each game held against the deal seed its key names (read as the games are
    read, a page at a time); what it found, told to the verdict last."""

    def __init__(self, ledger: Ledger, row: dict[str, Any]) -> None:
        self.notes: list[str] = []
        self.failures: list[tuple[str | None, str]] = []
        self.known: dict[int, str | None] = {}
        self.unkeyed = 0
        for session in ladder_rows.sessions(ledger, row["id"]):
            seed = session["seed"]
            if seed is None:
                self.notes.append(f"session {session['id']}: seed not revealed yet (still being played, or its last "
                                  "worker was killed: the next worker of the ladder ends it)")
            elif seeds.commitment(seed) != session["commitment"]:
                self.failures.append((None, f"session {session['id']}: its revealed seed does not match its "
                                            "commitment"))
                seed = None
            self.known[session["id"]] = seed
        self.dealt: list[tuple[str | None, str]] = []

    def check(self, found: list[facts.Fact]) -> None:
        for fact in found:
            match = SESSION_KEY.fullmatch(fact.key or "")
            if match is None:
                self.unkeyed += 1
                continue
            session, deal = int(match[1]), int(match[2])
            if session not in self.known:
                self.dealt.append((fact.game_id, f"its key {fact.key} names session {session}, which the ladder "
                                                 "does not have"))
            elif self.known[session] is not None and fact.seed != deal_seed(self.known[session], 0, deal):
                self.dealt.append((fact.game_id, f"it was not dealt from the seed of deal {deal} that session "
                                                 f"{session}'s seed gives"))

    def tell(self, verdict: Verdict) -> None:
        verdict.notes += self.notes
        for game_id, what in [*self.failures, *self.dealt]:
            verdict.fail(game_id, what)
        if self.unkeyed:
            verdict.notes.append(f"{self.unkeyed} games played before ladder sessions: their seeds come from no "
                                 "commitment")
