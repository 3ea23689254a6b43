"""A tournament's games counted as they are stored (``tournament_games``, revision 0021; issue 39 item 3): the list
of tournaments, a tournament's page, its kept fit's stamp and `tourney run`'s running standings read one row, equal
to a count of its games; the audit and `standings --check` name a tampered row and --rebuild mends it; a ledger of
revision 0020 is counted by its upgrade; and the count takes the same SQLite steps at ten times the games, where a
count of its games takes ten times as many."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text

import migrations
from ledger import read_fits, read_models, read_pages
from ledger.read_models import Outcome, Seated
from ledger.rows import tournament_rows
from ledger.store import Ledger
from tests.backends import Backend
from tests.tamper import fetch, tamper
from tests.test_read_models import audit_names, audited, league_db, league_db_templates, tourney  # noqa: F401
from tests.web.test_leaderboard_histories import steps


def counted(connection, tournament_id: int) -> int:
    """The tournament's counted games, counted one by one (what its readers did before ``tournament_games``)."""
    return connection.execute(text("SELECT COUNT(*) FROM game_results WHERE tournament_id = :id"),
                              {"id": tournament_id}).scalar()


def check_counts(ledger: Ledger) -> int:
    """Every reader of the cup's count gives the count of its games (which the ledger's games table agrees with);
    returns it."""
    listed = {row["name"]: row for row in tournament_rows.all_tournaments(ledger)}
    cup = listed["cup"]["id"]
    with ledger.read() as connection:
        games = counted(connection, cup)
        assert read_pages.tournament_result_count(connection, cup) == games
        assert read_fits.stamp(connection, cup).games == games
        assert read_pages.game_page(connection, read_pages.Where(tournament_id=cup), 0, 5)[1] == games
        assert connection.execute(text("SELECT COUNT(*) FROM games WHERE tournament_id = :id"), {"id": cup}
                                  ).scalar() == games
    assert listed["cup"]["games"] == games and tournament_rows.newest(ledger, 0, 5)[0][0]["games"] == games
    return games


def test_a_tournaments_kept_count_is_the_count_of_its_games(league_db):  # noqa: F811 (the fixture, imported)
    """The cup (two games a pair of three bots, one of which forfeits): its pages, the list, its fit's stamp read
    the count of its games; `standings --check` and the audit hold it against the games' hashed results."""
    ledger = Ledger(league_db.url, ledger_key=league_db.key)
    try:
        assert check_counts(ledger) > 0
    finally:
        ledger.close()
    checked = tourney("standings", "cup", "--check", "--db", league_db.url)
    assert checked.exit_code == 0, checked.output
    assert audited(league_db.url).differences == []


def test_the_audit_names_a_tampered_tournament_count_and_rebuild_mends_it(league_db):  # noqa: F811 (the fixture)
    """The cup's count changed by hand: `tourney db audit` fails naming its row, `standings --check` refuses,
    `db audit --rebuild` counts every game again, after which every reader is right."""
    cup = fetch(league_db, "SELECT id FROM tournaments WHERE name = 'cup'")[0][0]
    tamper(league_db, ("UPDATE tournament_games SET games = games + 3 WHERE tournament_id = ?", (cup,)))
    audit_names(league_db.url, f"tournament_games (tournament_id={cup})", "games")
    refused = tourney("standings", "cup", "--check", "--db", league_db.url)
    assert refused.exit_code == 1 and "a read model differs from the games' hashed results" in refused.output, \
        refused.output
    assert tourney("db", "audit", "--rebuild", "--db", league_db.url).exit_code == 0
    ledger = Ledger(league_db.url, ledger_key=league_db.key)
    try:
        check_counts(ledger)
    finally:
        ledger.close()


@pytest.mark.slow
def test_revision_0021_counts_a_ledger_of_0020(league_db):  # noqa: F811 (the fixture, imported)
    """A ledger at revision 0020 (no ``tournament_games``): the upgrade counts every counted game of each
    tournament into it in SQL, equal to what the games add up to (the audit passes); down to 0020 it goes again."""
    backend: Backend = league_db
    kept = sorted(fetch(backend, "SELECT tournament_id, games FROM tournament_games"))
    assert kept and all(games > 0 for _tournament, games in kept)
    old = Ledger(backend.url, upgrade=False)
    old.downgrade("0020")
    assert old.current() == "0020" and "tournament_games" not in backend.tables()
    old.close()
    upgraded = tourney("db", "upgrade", "--db", backend.url)
    assert upgraded.exit_code == 0 and f"at revision {migrations.HEAD}" in upgraded.output, upgraded.output
    assert sorted(fetch(backend, "SELECT tournament_id, games FROM tournament_games")) == kept
    assert audited(backend.url).differences == []
    ledger = Ledger(backend.url, ledger_key=backend.key)
    try:
        check_counts(ledger)
    finally:
        ledger.close()


# -- the count does not grow with the games ---------------------------------------------------------------------


def long_tournament(path: Path, games: int) -> Ledger:
    """A real SQLite ledger whose tournament 1 holds ``games`` counted games of bots b1 and b2, counted by the read
    models' own code (``add_game``, ``write``): no game's events."""
    ledger = Ledger(str(path))
    rows = read_models.empty()
    for number in range(1, games + 1):
        read_models.add_game(rows, Outcome(f"g{number:06d}", number, 1, "2026-01-01T00:00:00+00:00",
                                           (Seated(0, 1, "b1", 1), Seated(1, 2, "b2", 2)), None))
    with ledger.write() as connection:
        read_models.write(connection, {table: found if table in ("game_results", "tournament_games") else {}
                                       for table, found in rows.items()})
    return ledger


def test_a_tournaments_count_takes_the_same_steps_at_ten_times_its_games(tmp_path):
    """400 and 4,000 games in: the tournament's count, its fit's stamp and its list's total take the same SQLite
    steps; a count of its games takes about ten times as many, so the count does see the rows read."""
    small, large = long_tournament(tmp_path / "small.db", 400), long_tournament(tmp_path / "large.db", 4000)

    def read(connection) -> None:
        read_pages.tournament_result_count(connection, 1)
        read_fits.stamp(connection, 1)
        read_pages.place_total(connection, read_pages.Where(tournament_id=1))

    try:
        for ledger, games in ((small, 400), (large, 4000)):
            with ledger.read() as connection:
                assert read_pages.tournament_result_count(connection, 1) == counted(connection, 1) == games
                assert read_fits.stamp(connection, 1) == read_fits.Stamp(games, games)
                assert read_pages.place_total(connection, read_pages.Where(tournament_id=1)) == games
        kept = [steps(ledger, read, every=1) for ledger in (small, large)]
        whole = [steps(ledger, lambda c: counted(c, 1), every=1) for ledger in (small, large)]
        assert kept[0] > 0 and kept[1] <= kept[0] + 2, kept
        assert whole[1] > 5 * whole[0], whole
    finally:
        small.close()
        large.close()
