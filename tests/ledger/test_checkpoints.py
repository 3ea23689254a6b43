"""Signed checkpoints: extended game by game, recomputed whole by the audit, append-only, on every backend."""

from __future__ import annotations

import pytest

from ledger import checkpoints
from ledger.checkpoints import Member, Scope
from tests.backends import opened_ledger
from tests.ledger.test_keys import stored_game


@pytest.fixture
def ledger(backend):
    yield from opened_ledger(backend)


@pytest.fixture
def scoped(ledger):
    """A ledger with a tournament row and five games in it; its scope."""
    with ledger.write() as connection:
        connection.exec_driver_sql(
            "INSERT INTO tournaments (name, game, spec, seed, created_at) VALUES ('cup', 'toy', '{}', '1', 'now')")
    for number in range(5):
        stored_game(ledger, f"g{number}")
    with ledger.write() as connection:
        connection.exec_driver_sql("UPDATE games SET tournament_id = 1, game_key = id")
    return ledger, Scope(checkpoints.TOURNAMENT, 1, "cup")


def audit(ledger, scope):
    """The audit keeping the chain; the one that reads it a page at a time (two games here) must say the same."""
    with ledger.read() as connection:
        kept = checkpoints.audit(connection, scope, ledger.public_key())
        paged = checkpoints.PAGE
        checkpoints.PAGE = 2
        try:
            streamed = checkpoints.audit(connection, scope, ledger.public_key(), keep=False)
        finally:
            checkpoints.PAGE = paged
    assert streamed.members == [] and kept.stored == len(kept.members)
    assert (streamed.problems, streamed.covered, streamed.stored, streamed.checkpoints) == \
        (kept.problems, kept.covered, kept.stored, kept.checkpoints)
    if not kept.problems:
        assert streamed.uncovered == kept.uncovered and streamed.stored_after == len(kept.uncovered)
    return kept


def test_extending_a_root_equals_computing_it_whole():
    """The root over a chain is the same computed at once or extended piece by piece."""
    members = [Member(i, f"g{i}", f"k{i}", f"{i:064x}", None) for i in range(7)]
    assert checkpoints.extend(checkpoints.extend(None, members[:3]), members[3:]) == checkpoints.extend(None, members)
    assert checkpoints.extend(None, members) != checkpoints.extend(None, members[::-1])


def test_each_checkpoint_extends_the_last_and_an_unchanged_scope_writes_none(scoped):
    """A checkpoint covers every game so far; writing again with nothing new writes nothing, unless the state
    changes to complete."""
    ledger, scope = scoped
    first = checkpoints.write(ledger, scope)
    assert first.games == 5 and checkpoints.write(ledger, scope) is None
    stored_game(ledger, "g5")
    with ledger.write() as connection:
        connection.exec_driver_sql("UPDATE games SET tournament_id = 1, game_key = id WHERE id = 'g5'")
    second = checkpoints.write(ledger, scope, complete=True)
    assert (second.games, second.state) == (6, checkpoints.COMPLETE)
    with ledger.read() as connection:
        assert second.root == checkpoints.extend(None, checkpoints.members(connection, scope))
    result = audit(ledger, scope)
    assert result.problems == [] and result.covered == 6 and result.uncovered == []


@pytest.mark.parametrize("tamper, problem", [
    (["DELETE FROM sealed_games WHERE store_seq = (SELECT store_seq FROM games WHERE id = 'g2')",
      "DELETE FROM seats WHERE game_id = 'g2'", "DELETE FROM games WHERE id = 'g2'"], "a game was removed"),
    (["UPDATE games SET head = 'ff' WHERE id = 'g2'"], "a game it covers was changed"),
    (["UPDATE games SET store_seq = 9 WHERE id = 'g0'"], "a game was removed"),
    (["UPDATE games SET game_key = 'other' WHERE id = 'g3'"], "a game it covers was changed"),
    (["UPDATE checkpoints SET signature = '00'"], "signature does not hold"),
])
def test_the_audit_names_what_breaks_a_checkpoint(scoped, backend, tamper, problem):
    """A game removed, re-sealed (another head), reordered or re-keyed, or a forged checkpoint signature, breaks
    the checkpoint that covers it (the attacker has the owner's rights, and lifts the append-only rule first)."""
    ledger, scope = scoped
    checkpoints.write(ledger, scope)
    backend.lift_append_only("events", "checkpoints", "sealed_games")
    with backend.raw() as connection:
        for statement in tamper:
            connection.execute(statement)
        connection.commit()
    found = audit(ledger, scope).problems
    assert len(found) == 1 and problem in found[0][1], found


def test_the_games_after_the_last_checkpoint_are_counted_and_listed(scoped):
    """Three games covered, two stored after: both audits count five, three covered, and list the last two."""
    ledger, scope = scoped
    with ledger.write() as connection:
        connection.exec_driver_sql("UPDATE games SET tournament_id = NULL WHERE id IN ('g3', 'g4')")
    checkpoints.write(ledger, scope)
    with ledger.write() as connection:
        connection.exec_driver_sql("UPDATE games SET tournament_id = 1 WHERE id IN ('g3', 'g4')")
    result = audit(ledger, scope)
    assert (result.problems, result.covered, result.stored) == ([], 3, 5)
    assert [member.game_id for member in result.uncovered] == ["g3", "g4"]


def test_a_game_added_after_a_complete_checkpoint_is_named(scoped):
    """After the checkpoint that says the tournament is complete, any further game is named as added."""
    ledger, scope = scoped
    checkpoints.write(ledger, scope, complete=True)
    stored_game(ledger, "late")
    with ledger.write() as connection:
        connection.exec_driver_sql("UPDATE games SET tournament_id = 1, game_key = 'late' WHERE id = 'late'")
    assert audit(ledger, scope).problems == [("late", "stored after the complete checkpoint 1 of tournament 'cup': "
                                                      "a game was added")]


def test_checkpoints_cannot_be_changed_or_removed(scoped, backend):
    """The database refuses UPDATE and DELETE of a checkpoint (revision 0005's triggers), and on PostgreSQL
    TRUNCATE too (SQLite has no TRUNCATE: its DELETE without WHERE meets the DELETE trigger)."""
    ledger, scope = scoped
    checkpoints.write(ledger, scope)
    statements = ["UPDATE checkpoints SET root = 'x'", "DELETE FROM checkpoints"]
    if backend.path is None:
        statements.append("TRUNCATE checkpoints")
    for statement in statements:
        with backend.raw() as connection, pytest.raises(backend.errors, match="checkpoints are append-only"):
            connection.execute(statement)
    result = audit(ledger, scope)
    assert result.problems == [] and result.covered == 5
