"""The ladder match queue on every backend: batches queued by plan, claims that never share a match (real
processes at once), leases that run out and are claimed again, a late worker's store refused, sessions that end
only when nothing of them is left; on PostgreSQL, a claim that steps over rows another claim holds."""

from __future__ import annotations

import multiprocessing

import pytest

from ledger import seeds
from ledger.rows import ladder_rows, match_rows
from ledger.store import Ledger
from tests.backends import backend_for, opened_ledger

EXPIRED = -1.0
"""A lease that has run out the moment it is taken (the database's clock is past it)."""


@pytest.fixture
def ledger(backend):
    """This module's tests run on every backend (tests/backends.py)."""
    yield from opened_ledger(backend)


def open_session(ledger: Ledger, planned: int, batch: int, players: int = 2) -> tuple[int, int]:
    """A ladder of ``players`` seats and a session of ``planned`` games queued ``batch`` deals at a time."""
    ladder = ladder_rows.create(ledger, f"ladder-{planned}-{batch}-{players}", "tails-on-fire", players)
    return ladder, ladder_rows.open_session(ledger, ladder, seeds.chosen("s"), "s", planned, batch)


def plan_recorder(calls: list[tuple[int, int]]) -> match_rows.Plan:
    """A plan whose tables name the deal (entries [deal, deal + 1]) and which records each call."""
    def plan(_connection, first: int, count: int) -> list[list[int]]:
        calls.append((first, count))
        return [[first + i, first + i + 1] for i in range(count)]
    return plan


def claim_all(ledger: Ledger, ladder: int, worker: str, lease: float = 60.0) -> list[match_rows.Match]:
    return match_rows.claim(ledger, ladder, worker, lease, 100)


def test_a_session_queues_its_deals_a_batch_at_a_time_and_only_when_none_waits(ledger):
    """Nine games at two seats are five deals: queued 2, 2, then 1, each batch only once the last was claimed."""
    ladder, session = open_session(ledger, planned=9, batch=2)
    calls: list[tuple[int, int]] = []
    plan = plan_recorder(calls)
    assert match_rows.top_up(ledger, session, plan) == 2
    assert match_rows.top_up(ledger, session, plan) == 0  # two deals still wait
    taken = []
    for _ in range(3):
        taken += claim_all(ledger, ladder, "w")
        match_rows.top_up(ledger, session, plan)
    assert calls == [(0, 2), (2, 2), (4, 1)]
    assert [(m.deal, m.entries, m.session_id) for m in taken] == [(d, (d, d + 1), session) for d in range(5)]
    assert match_rows.top_up(ledger, session, plan) == 0  # every deal is queued


def test_two_workers_never_hold_one_match_and_a_run_out_lease_is_claimed_again(ledger):
    """A claimed match is nobody else's while its lease runs; once it has run out another worker takes it,
    the first worker's renewal and store are refused, and the second one's succeed."""
    ladder, session = open_session(ledger, planned=4, batch=2)
    match_rows.top_up(ledger, session, plan_recorder([]))
    (first,) = match_rows.claim(ledger, ladder, "a", 60.0, 1)
    (second,) = match_rows.claim(ledger, ladder, "b", 60.0, 1)
    assert first.id != second.id and first.attempts == 1
    assert match_rows.claim(ledger, ladder, "c", 60.0, 5) == []
    assert match_rows.renew(ledger, "a", [first.id], EXPIRED) == {first.id}  # a's lease runs out (a died)
    (again,) = match_rows.claim(ledger, ladder, "b", 60.0, 5)  # the second is b's own and still leased
    assert again.id == first.id and again.attempts == 2
    assert match_rows.renew(ledger, "a", [first.id], 60.0) == set()
    assert match_rows.renew(ledger, "b", [first.id, second.id], 60.0) == {first.id, second.id}
    with pytest.raises(match_rows.Lost, match=f"match {first.id} is no longer this worker's"), ledger.write() as c:
        match_rows.finish(c, first.id, "a")
    with ledger.write() as connection:
        match_rows.finish(connection, first.id, "b")
    assert [m["status"] for m in match_rows.matches(ledger, ladder)] == ["stored", "playing"]
    assert claim_all(ledger, ladder, "c") == []


def test_a_stopped_worker_gives_its_matches_back_and_a_session_ends_when_nothing_of_it_is_left(ledger):
    """Released matches are claimable at once; stopping a session cancels what waits and plans no more; it is
    done only when no match of it is waiting or being played, and it ends (its seed revealed) once."""
    ladder, session = open_session(ledger, planned=8, batch=2)
    match_rows.top_up(ledger, session, plan_recorder([]))
    held = claim_all(ledger, ladder, "a")
    assert match_rows.release(ledger, "a", [m.id for m in held]) == 2
    (playing, waiting) = claim_all(ledger, ladder, "b")
    match_rows.release(ledger, "b", [waiting.id])
    match_rows.stop_queueing(ledger, session)
    assert match_rows.top_up(ledger, session, plan_recorder([])) == 0
    with ledger.read() as connection:
        assert not match_rows.done(connection, session)  # b still plays one
    assert match_rows.open_sessions(ledger, ladder, with_work=True) == []
    assert match_rows.open_sessions(ledger, ladder) == [session]
    with ledger.write() as connection:
        match_rows.finish(connection, playing.id, "b")
        assert match_rows.done(connection, session)
        assert ladder_rows.reveal(connection, session, "s") and not ladder_rows.reveal(connection, session, "s")
    assert [m["status"] for m in match_rows.matches(ledger, ladder)] == ["stored", "cancelled"]
    assert match_rows.open_sessions(ledger, ladder) == []


def test_a_session_with_work_left_is_found_by_its_unqueued_deals_or_its_run_out_leases(ledger):
    """open_sessions(with_work) lists a session with deals still to queue, or a match whose lease has run out."""
    ladder, session = open_session(ledger, planned=4, batch=2)
    assert match_rows.open_sessions(ledger, ladder, with_work=True) == [session]  # nothing queued yet
    match_rows.top_up(ledger, session, plan_recorder([]))
    claim_all(ledger, ladder, "a", lease=60.0)
    assert match_rows.open_sessions(ledger, ladder, with_work=True) == []
    match_rows.release(ledger, "a", [m["id"] for m in match_rows.matches(ledger, ladder)])
    claim_all(ledger, ladder, "a", lease=EXPIRED)
    assert match_rows.open_sessions(ledger, ladder, with_work=True) == [session]


def claimer(url: str, ladder: int, worker: str) -> list[int]:
    """One worker process: claims one match at a time until the queue is empty, storing each."""
    ledger = Ledger(url)
    taken = []
    while claimed := match_rows.claim(ledger, ladder, worker, 60.0, 1):
        with ledger.write() as connection:
            match_rows.finish(connection, claimed[0].id, worker)
        taken.append(claimed[0].id)
    ledger.close()
    return taken


@pytest.mark.slow
def test_claimers_in_separate_processes_take_every_match_exactly_once(ledger, backend):
    """Four processes claim from one queue at the same time: each match is taken by exactly one of them."""
    ladder, session = open_session(ledger, planned=120, batch=60)
    match_rows.top_up(ledger, session, plan_recorder([]))
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        taken = pool.starmap(claimer, [(backend.url, ladder, f"w{n}") for n in range(4)])
    every = sorted(match for worker in taken for match in worker)
    assert every == sorted(m["id"] for m in match_rows.matches(ledger, ladder)) and len(every) == 60
    assert {m["status"] for m in match_rows.matches(ledger, ladder)} == {"stored"}


@pytest.mark.postgres
def test_on_postgresql_a_claim_steps_over_a_row_another_claim_holds(tmp_path, monkeypatch):
    """SELECT ... FOR UPDATE SKIP LOCKED: while another transaction holds the oldest match's row, a claim takes
    the next one at once instead of waiting for it."""
    with backend_for("postgresql", tmp_path) as backend:
        monkeypatch.setenv("TOURNEY_LEDGER_KEY", str(tmp_path / "ledger.key"))
        ledger = Ledger(backend.url)
        ladder, session = open_session(ledger, planned=4, batch=2)
        match_rows.top_up(ledger, session, plan_recorder([]))
        oldest, newest = (m["id"] for m in match_rows.matches(ledger, ladder))
        with backend.raw() as admin:  # a claim that waited for the lock would fail after 2 s, not hang
            admin.execute(f"ALTER DATABASE \"{backend.database}\" SET lock_timeout = '2s'")
            admin.commit()
        ledger.engine.dispose()
        with backend.raw() as other:
            other.execute("SELECT id FROM ladder_matches WHERE id = %s FOR UPDATE", (oldest,))
            (claimed,) = match_rows.claim(ledger, ladder, "b", 60.0, 1)
            assert claimed.id == newest
        (claimed,) = match_rows.claim(ledger, ladder, "b", 60.0, 1)
        assert claimed.id == oldest
        ledger.close()
