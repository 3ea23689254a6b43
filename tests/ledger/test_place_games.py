"""The games of each place counted as they are stored (``place_games``, revision 0021; issue 39 item 3): every game,
a tournament's and a ladder's, with a forfeit or without. A list's total (of every game, a tournament's, a ladder's,
filtered by forfeit), the list of tournaments and a tournament's kept fit's stamp read these few rows, equal to a
count of the games, through a void (a voided game stays listed); the audit names a tampered row and --rebuild mends
it; a ledger of revision 0020 is counted by its upgrade; and the totals take the same SQLite steps at ten times the
games, where a count of the games takes ten times as many."""

from __future__ import annotations

import itertools
from contextlib import closing
from pathlib import Path

import pytest
from sqlalchemy import text

from ledger import read_fits, read_models, read_pages
from ledger.read_models import Outcome, Seated
from ledger.rows import ladder_rows, tournament_rows
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


def counted(connection, where: read_pages.Where) -> int:
    """The games a list without a bot keeps, counted one by one (its total before ``place_games``)."""
    clauses = ["1 = 1"]
    for column, value in (("tournament_id", where.tournament_id), ("ladder_id", where.ladder_id)):
        if value is not None:
            clauses.append(f"{column} = {int(value)}")
    if where.forfeited is not None:
        clauses.append(f"forfeit_seat IS {'NOT ' if where.forfeited else ''}NULL")
    return connection.execute(text(f"SELECT COUNT(*) FROM game_results WHERE {' AND '.join(clauses)}")).scalar()


def check_totals(ledger: Ledger) -> dict[str, int]:
    """Every list without a bot (every game, the cup's, the ladder's; with a forfeit, without, either): its kept
    total is the count of its games, and so is its page's; the cup's stamp and its row in the list of tournaments
    count them too. Returns the totals by place, to show what the ledger holds."""
    cup = tournament_rows.get(ledger, "cup")["id"]
    duel = ladder_rows.get(ledger, "duel")["id"]
    places = {"any": {}, "cup": {"tournament_id": cup}, "duel": {"ladder_id": duel}}
    found = {}
    with ledger.read() as connection:
        for (name, place), forfeited in itertools.product(places.items(), (None, True, False)):
            where = read_pages.Where(forfeited=forfeited, **place)
            games = counted(connection, where)
            assert read_pages.kept_total(connection, where) == games, where
            page, total = read_pages.game_page(connection, where, 0, 5)
            assert total == games and len(page) == min(5, games), where
            found[f"{name}{'' if forfeited is None else ' forfeited' if forfeited else ' whole'}"] = games
        assert read_fits.stamp(connection, cup).games == read_pages.tournament_result_count(connection, cup) \
            == found["cup"]
        # Both a tournament and a ladder named, or a result without a bot: no count is kept; the list counts.
        both = read_pages.Where(tournament_id=cup, ladder_id=duel)
        assert read_pages.kept_total(connection, both) is None and read_pages.game_page(connection, both, 0, 5)[1] == 0
        drawn = read_pages.Where(ladder_id=duel, result="draw")
        assert read_pages.kept_total(connection, drawn) is None
    listed = {row["name"]: row["games"] for row in tournament_rows.all_tournaments(ledger)}
    assert listed["cup"] == found["cup"] and tournament_rows.newest(ledger, 0, 5)[0][0]["games"] == found["cup"]
    return found


def test_each_places_kept_total_is_the_count_of_its_games_through_a_void(league_db):  # noqa: F811 (the fixture)
    """The cup (two games a pair of three bots, one of which forfeits) and a ladder: every list's total, by place
    and forfeit, is the count of its games; a voided ladder game stays listed, so the totals do not change with the
    void; `standings --check` and the audit hold the kept counts against the games' hashed results."""
    with closing(Ledger(league_db.url, ledger_key=league_db.key)) as ledger:
        before = check_totals(ledger)
        assert before["any"] == before["cup"] + before["duel"] == 24 + 12, before  # two seats a game
        assert before["cup forfeited"] > 0 and before["cup whole"] > 0, before
        voided = ladder_rows.game_ids(ledger, ladder_rows.get(ledger, "duel")["id"])[0]
        assert tourney("ladder", "void", "duel", voided, "--reason", "a test", "--db", league_db.url).exit_code == 0
        assert check_totals(ledger) == before
    checked = tourney("standings", "cup", "--check", "--db", league_db.url)
    assert checked.exit_code == 0, checked.output
    assert audited(league_db.url).differences == []


def test_the_audit_names_a_tampered_place_count_and_rebuild_mends_it(league_db):  # noqa: F811 (the fixture)
    """A kept count changed by hand: `tourney db audit` fails naming its row (stored and rebuilt games), a row the
    games do not give too; `db audit --rebuild` counts every game again, after which every total is right."""
    cup = fetch(league_db, "SELECT id FROM tournaments WHERE name = 'cup'")[0][0]
    tamper(league_db, ("UPDATE place_games SET games = games + 3 WHERE tournament_id = ? AND ladder_id = 0 AND "
                       "forfeited = 0", (cup,)))
    audit_names(league_db.url, f"place_games (tournament_id={cup}, ladder_id=0, forfeited=0)", "games")
    assert tourney("db", "audit", "--rebuild", "--db", league_db.url).exit_code == 0
    tamper(league_db, "INSERT INTO place_games (tournament_id, ladder_id, forfeited, games) VALUES (99, 0, 1, 2)")
    audit_names_absent(league_db.url, "place_games (tournament_id=99, ladder_id=0, forfeited=1)", "games", 2)
    with closing(Ledger(league_db.url, ledger_key=league_db.key)) as ledger:
        check_totals(ledger)


@pytest.mark.slow
def test_revision_0021_counts_a_ledger_of_0020(league_db):  # noqa: F811 (the fixture, imported)
    """A ledger at revision 0020 (a tournament and a ladder with a voided game, no ``place_games``): the upgrade
    counts every counted game of each place into it in SQL, equal to what the games add up to (the audit passes)
    and to every list's count; down to 0020 it goes again."""
    backend: Backend = league_db
    assert len(fetch(backend, "SELECT games FROM place_games")) >= 4  # every game's, the cup's, the ladder's
    recounted_by_upgrade(backend, "0020", "place_games", "tournament_id, ladder_id, forfeited, games")
    with closing(Ledger(backend.url, ledger_key=backend.key)) as ledger:
        check_totals(ledger)


# -- the totals do not grow with the games --------------------------------------------------------------------------


def long_tournament(path: Path, games: int) -> Ledger:
    """A real SQLite ledger whose tournament 1 holds ``games`` counted games of bots b1 and b2 (one in five with a
    forfeit), counted by the read models' own code (``add_game``, ``write``): no game's events."""
    ledger = Ledger(str(path))
    rows = read_models.empty()
    for number in range(1, games + 1):
        read_models.add_game(rows, Outcome(f"g{number:06d}", number, 1, "2026-01-01T00:00:00+00:00",
                                           (Seated(0, 1, "b1", 1), Seated(1, 2, "b2", 2)),
                                           1 if number % 5 == 0 else None))
    with ledger.write() as connection:
        read_models.write(connection, {table: found if table in ("game_results", "place_games") else {}
                                       for table, found in rows.items()})
    return ledger


def test_a_lists_total_takes_the_same_steps_at_ten_times_the_games(tmp_path):
    """400 and 4,000 games in: the totals of every game's list and the tournament's, whole and filtered by forfeit,
    and the tournament's fit's stamp take the same SQLite steps; counting the games takes about ten times as many,
    so the count does see the rows read."""
    from tests.web.test_leaderboard_histories import steps

    small, large = long_tournament(tmp_path / "small.db", 400), long_tournament(tmp_path / "large.db", 4000)
    lists = [read_pages.Where(tournament_id=tournament, forfeited=forfeited)
             for tournament, forfeited in itertools.product((None, 1), (None, True, False))]

    def read(connection) -> None:
        for where in lists:
            read_pages.kept_total(connection, where)
        read_fits.stamp(connection, 1)

    try:
        for ledger, games in ((small, 400), (large, 4000)):
            with ledger.read() as connection:
                for where in lists:
                    assert read_pages.kept_total(connection, where) == counted(connection, where), where
                assert read_pages.kept_total(connection, read_pages.Where(forfeited=True)) == games // 5
                assert read_fits.stamp(connection, 1) == read_fits.Stamp(games, games)
        kept = [steps(ledger, read, every=1) for ledger in (small, large)]
        whole = [steps(ledger, lambda c: [counted(c, where) for where in lists], every=1) for ledger in (small, large)]
        assert kept[0] > 0 and kept[1] <= kept[0] + 2, kept
        assert whole[1] > 5 * whole[0], whole
    finally:
        small.close()
        large.close()
