"""A bot's seats counted by result and forfeit (``bot_results``, revision 0020; issue 39 item 3): a list of a bot's
games (a ladder's filtered by bot and result, a tournament's, every game) takes its total from these few rows, equal
to a count of the bot's seats for every filter, through a void (the voided game stays listed); the audit names a
tampered row and --rebuild mends it; a ledger of revision 0019 is counted by its upgrade; and the total takes the
same SQLite steps at ten times the bot's games, where a count of its seats takes ten times as many."""

from __future__ import annotations

import itertools
from contextlib import closing
from pathlib import Path

import pytest
from sqlalchemy import text

from ledger import read_models, read_pages
from ledger.read_models import Outcome, Seated
from ledger.rows import ladder_rows
from ledger.store import Ledger
from tests.backends import Backend
from tests.tamper import fetch, tamper
from tests.test_read_models import (  # noqa: F401 (fixtures)
    audit_names,
    audit_names_absent,
    audited,
    league_db,
    league_db_templates,
    recounted_by_upgrade,
    tourney,
)
from tests.web.test_leaderboard_histories import steps


def seats(connection, where: read_pages.Where) -> int:
    """The bot's seats ``where`` keeps, counted one by one (the list's total before ``bot_results``)."""
    clauses = ["s.bot = :bot"]
    for column, value in (("g.tournament_id", where.tournament_id), ("g.ladder_id", where.ladder_id),
                          ("s.result", where.result), ("s.forfeited", where.forfeited)):
        if value is not None:
            clauses.append(f"{column} = :{column[2:]}")
    return connection.execute(text(
        "SELECT COUNT(*) FROM seat_results s JOIN game_results g ON g.game_id = s.game_id WHERE "
        + " AND ".join(clauses)), {"bot": where.bot, "tournament_id": where.tournament_id, "ladder_id": where.ladder_id,
                                   "result": where.result, "forfeited": None if where.forfeited is None
                                   else int(where.forfeited)}).scalar()


def every_filter(ledger: Ledger) -> list[read_pages.Where]:
    """Every bot that sat, in every place (any, the tournament, the ladder), with every result and forfeit filter."""
    with ledger.read() as connection:
        bots = connection.execute(text("SELECT DISTINCT bot FROM seat_results ORDER BY bot")).scalars().all()
    places = ({}, {"tournament_id": 1}, {"ladder_id": 1})
    return [read_pages.Where(bot=bot, result=result, forfeited=forfeited, **place) for bot, place, result, forfeited
            in itertools.product(bots, places, (None, *read_models.RESULTS), (None, True, False))]


def check_totals(ledger: Ledger) -> dict[str, int]:
    """For every filter: the kept total is the count of the bot's seats, and the list's total is it. The sums of
    the counts by place (any, tournament, ladder), to show what the ledger holds."""
    found = {"any": 0, "tournament": 0, "ladder": 0, "forfeits": 0}
    with ledger.read() as connection:
        for where in every_filter(ledger):
            counted = seats(connection, where)
            assert read_pages.kept_total(connection, where) == counted, where
            page, total = read_pages.game_page(connection, where, 0, 5)
            assert total == counted and len(page) == min(5, counted), where
            if where.result is None and where.forfeited is None:
                found["tournament" if where.tournament_id else "ladder" if where.ladder_id else "any"] += counted
            found["forfeits"] += counted if where.forfeited and where.result is None and not where.ladder_id \
                and not where.tournament_id else 0
        # Both a tournament and a ladder named: no row counts those; the list counts the seats.
        both = read_pages.Where(tournament_id=1, ladder_id=1, bot="b0")
        assert read_pages.kept_total(connection, both) is None
        assert read_pages.game_page(connection, both, 0, 5)[1] == seats(connection, both) == 0
    return found


def test_a_bots_list_counts_its_total_from_its_kept_results_through_a_void(league_db):  # noqa: F811 (the fixture, imported)
    """On a tournament (one bot forfeits) and a ladder: every bot's total, by place, result and forfeit, is the
    count of its seats; a voided ladder game stays listed, so the ladder's totals do not change with the void; the
    audit holds the kept counts against the games' hashed results."""
    with closing(Ledger(league_db.url, ledger_key=league_db.key)) as ledger:
        before = check_totals(ledger)
        assert before == {"any": 72, "tournament": 48, "ladder": 24, "forfeits": before["forfeits"]}
        assert before["forfeits"] > 0
        voided = ladder_rows.game_ids(ledger, ladder_rows.get(ledger, "duel")["id"])[0]
        assert tourney("ladder", "void", "duel", voided, "--reason", "a test", "--db", league_db.url).exit_code == 0
        assert check_totals(ledger) == before
    assert audited(league_db.url).differences == []


def test_the_audit_names_a_tampered_bot_results_row_and_rebuild_mends_it(league_db):  # noqa: F811 (the fixture, imported)
    """A kept count changed by hand: `tourney db audit` fails naming its row (stored and rebuilt seats), a row the
    games do not give too; `db audit --rebuild` counts every game again, after which the lists' totals are right."""
    bot, result = fetch(league_db, "SELECT bot, result FROM bot_results WHERE ladder_id = 1 AND forfeited = 0 "
                                   "ORDER BY bot, result LIMIT 1")[0]
    tamper(league_db, ("UPDATE bot_results SET seats = seats + 3 WHERE bot = ? AND ladder_id = 1 AND result = ? AND "
                       "forfeited = 0", (bot, result)))
    audit_names(league_db.url, f"bot_results (bot={bot!r}, tournament_id=0, ladder_id=1, result={result!r}, "
                "forfeited=0)", "seats")
    assert tourney("db", "audit", "--rebuild", "--db", league_db.url).exit_code == 0
    tamper(league_db, "INSERT INTO bot_results (bot, tournament_id, ladder_id, result, forfeited, seats) VALUES "
                      "('nobody', 0, 0, 'win', 0, 1)")
    audit_names_absent(league_db.url, "bot_results (bot='nobody', tournament_id=0, ladder_id=0, result='win', "
                       "forfeited=0)", "seats", 1)
    with closing(Ledger(league_db.url, ledger_key=league_db.key)) as ledger:
        check_totals(ledger)


@pytest.mark.slow
def test_revision_0020_counts_a_ledger_of_0019(league_db):  # noqa: F811 (the fixture, imported)
    """A ledger at revision 0019 (a tournament and a ladder with a voided game, no ``bot_results``): the upgrade
    counts every counted seat into it in SQL, equal to what the games add up to (the audit passes) and to every
    list's count of seats; down to 0019 it goes again."""
    backend: Backend = league_db
    recounted_by_upgrade(backend, "0019", "bot_results", "bot, tournament_id, ladder_id, result, forfeited, seats")
    with closing(Ledger(backend.url, ledger_key=backend.key)) as ledger:
        check_totals(ledger)


# -- the total does not grow with the bot's games -------------------------------------------------------------------


def long_list(path: Path, games: int) -> Ledger:
    """A real SQLite ledger whose ladder 1 holds ``games`` counted games of bots b1 and b2 (b1 wins two in three),
    counted by the read models' own code (``add_game``, ``add_ladder_game``, ``write``): no game's events."""
    ledger = Ledger(str(path))
    rows = read_models.empty()
    for number in range(1, games + 1):
        first = 1 if number % 3 else 2
        outcome = Outcome(f"g{number:06d}", number, None, "2026-01-01T00:00:00+00:00",
                          (Seated(0, first, f"b{first}", 1), Seated(1, 3 - first, f"b{3 - first}", 2)), None)
        read_models.add_game(rows, outcome)
        read_models.add_ladder_game(rows, 1, number, outcome, {1: 1, 2: 2})
    with ledger.write() as connection:
        read_models.write(connection, {table: found if table in ("game_results", "seat_results", "bot_results")
                                       else {} for table, found in rows.items()})
    return ledger


def test_a_bots_total_takes_the_same_steps_at_ten_times_its_games(tmp_path):
    """A ladder's list of b1's wins, 400 and 4,000 games in: its page and total take the same SQLite steps; a count
    of b1's seats takes about ten times as many, so the count does see the rows read."""
    small, large = long_list(tmp_path / "small.db", 400), long_list(tmp_path / "large.db", 4000)
    where = read_pages.Where(ladder_id=1, bot="b1", result="win")
    try:
        for ledger, games in ((small, 400), (large, 4000)):
            with ledger.read() as connection:
                assert read_pages.game_page(connection, where, 0, 20)[1] == seats(connection, where) == \
                    len([n for n in range(1, games + 1) if n % 3])
        listed = [steps(ledger, lambda c: read_pages.game_page(c, where, 0, 20), every=5) for ledger in (small, large)]
        counted = [steps(ledger, lambda c: seats(c, where), every=5) for ledger in (small, large)]
        assert listed[0] > 0 and listed[1] <= 1.1 * listed[0] + 2, listed
        assert counted[1] > 5 * counted[0], counted
    finally:
        small.close()
        large.close()


def test_the_kept_counts_are_what_the_bots_seats_add_up_to(tmp_path):
    """The rows ``add_game`` and ``add_ladder_game`` add: per bot, one a place (every game, its tournament's, its
    ladder's) and result and forfeit, each the seats it had there (a game of no tournament and no ladder counts in
    every game only)."""
    rows = read_models.empty()
    seated = (Seated(0, 1, "b1", 1), Seated(1, 2, "b2", 2), Seated(2, 1, "b1", 2))
    read_models.add_game(rows, Outcome("t", 1, 7, "2026", seated, 2))
    read_models.add_game(rows, Outcome("l", 2, None, "2026", seated[:2], None))
    read_models.add_ladder_game(rows, 3, 1, Outcome("l", 2, None, "2026", seated[:2], None), {1: 10, 2: 20}, False)
    read_models.add_game(rows, Outcome("free", 3, None, "2026", seated[:2], 1))
    assert rows["bot_results"] == {
        ("b1", 0, 0, "win", 0): [3], ("b1", 0, 0, "loss", 1): [1], ("b1", 7, 0, "win", 0): [1],
        ("b1", 7, 0, "loss", 1): [1], ("b1", 0, 3, "win", 0): [1], ("b2", 0, 0, "loss", 0): [2],
        ("b2", 0, 0, "loss", 1): [1], ("b2", 7, 0, "loss", 0): [1], ("b2", 0, 3, "loss", 0): [1]}

