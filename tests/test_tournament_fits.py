"""A tournament's kept Elo fit (ledger/read_fits.py, revision 0018; issue 39 item 3): stored by `tourney run`,
read while no game of the tournament was stored since (never refitted then), refitted when one was (and kept
again by a reader that may write, never by a read-only one), forgotten by a rebuild of the read models; and
revision 0018 up and down on both backends."""

from __future__ import annotations

import hashlib

import pytest

from ledger import read_fits, read_models, read_pages
from ledger.canonical import canonical
from ledger.rows import tournament_rows
from ledger.store import Ledger
from replays import projections
from replays.archive import finished_game
from tests.cli import invoke
from tests.tamper import fetch
from tournaments.bots.spec import BUILTIN, BotSpec
from tournaments.play import runner, standings
from tournaments.play.schedule import Scheduled, deal_seed
from tournaments.ratings import elo as ratings

GAME = "lemur-tails"
NAMES = ["ant", "bee", "cat", "doe"]


def cup(ledger: Ledger, name: str = "cup") -> dict:
    bots = tuple(BotSpec(bot, BUILTIN, "", hashlib.sha256(bot.encode()).hexdigest()) for bot in NAMES)
    spec = runner.Spec(GAME, 2, 1, "s", 1.0, 5.0, bots)
    with ledger.write() as connection:
        ids = [ledger.ensure_bot(b.name, b.content_hash, BUILTIN, connection) for b in bots]
    tournament_rows.create(ledger, name, GAME, canonical(spec.to_json()).decode(), "s", ids)
    return tournament_rows.get(ledger, name)


def play(ledger: Ledger, row: dict, first: int, deals: int) -> None:
    """``deals`` deals of two of the cup's bots (each from both seats), stored as the tournament writer stores."""
    bots = tuple(BotSpec(bot, BUILTIN, "", hashlib.sha256(bot.encode()).hexdigest()) for bot in NAMES)
    spec = runner.Spec(GAME, 2, 1, "s", 1.0, 5.0, bots)
    with ledger.read() as connection:
        ids = dict(connection.exec_driver_sql("SELECT name, id FROM bots").fetchall())
    jobs = []
    for number in range(first, first + deals):
        pair = [NAMES[number % len(NAMES)], NAMES[(number + 1 + number // len(NAMES)) % len(NAMES)]]
        if pair[0] == pair[1]:
            pair[1] = NAMES[(number + 2) % len(NAMES)]
        for rotation in range(2):
            jobs.append(runner.Job(spec, Scheduled(f"g{number}-r{rotation}", number, 0, rotation,
                                                   tuple(pair[rotation:] + pair[:rotation]),
                                                   deal_seed("s", number, 0))))
    played = list(runner.results(jobs, 0))
    with ledger.write() as connection:
        ledger.store_games([finished_game(r.recorded, [ids[s.name] for s in r.recorded.seats], r.scores, row["id"],
                                          r.key) for r in played], connection)


@pytest.fixture
def kept(backend):
    """A cup of four builtin bots with 12 games stored and its fit kept, as `tourney run` keeps it."""
    ledger = Ledger(backend.url, ledger_key=backend.key)
    row = cup(ledger)
    play(ledger, row, 0, 6)
    assert standings.refresh_fit(ledger, row["id"])
    ledger.close()
    return backend


def refits(monkeypatch) -> list[int]:
    """Counts each Elo fit from the pairs (the whole-pairs work a kept fit saves)."""
    calls: list[int] = []
    fit = ratings.mle_elo_of_pairs

    def counted(*args, **kwargs):
        calls.append(1)
        return fit(*args, **kwargs)

    monkeypatch.setattr(ratings, "mle_elo_of_pairs", counted)
    return calls


def test_a_kept_fit_is_read_not_refitted_and_gives_the_standings_of_a_refit(kept, monkeypatch):
    """While no game of the tournament is stored after it, the kept fit is what the standings show: no fit runs,
    and every figure is the one a refit from the pairs gives."""
    ledger = Ledger(kept.url, read_only=kept.url.startswith("sqlite"))
    calls = refits(monkeypatch)
    shown = standings.of_tournament(ledger, "cup").to_json()
    assert calls == []
    with ledger.read() as connection:
        bots, pairs = read_pages.tournament(connection, tournament_rows.get(ledger, "cup")["id"])
    refit = standings.of_counts("cup", GAME, 12, bots, pairs).to_json()
    assert calls == [1]
    assert shown["standings"] == [{**row, "bot_id": shown_row["bot_id"]}
                                  for row, shown_row in zip(refit["standings"], shown["standings"], strict=True)]
    assert shown["los"] == refit["los"] and shown["head_to_head"] == refit["head_to_head"]
    assert fetch(kept, "SELECT DISTINCT games FROM tournament_fits") == [(12,)]
    ledger.close()


def test_a_new_game_makes_the_fit_stale_a_reader_refits_once_and_a_writer_keeps_it(kept, monkeypatch):
    """A game stored after the fit: the next reader refits (the new game counted), a read-only one without
    storing; a reader that may write stores the fit stamped with the new games, and the reader after it refits
    nothing."""
    ledger = Ledger(kept.url, ledger_key=kept.key)
    row = tournament_rows.get(ledger, "cup")
    before = {r.bot: r.elo for r in standings.of_tournament(ledger, "cup").rows}
    play(ledger, row, 6, 1)
    calls = refits(monkeypatch)
    if kept.url.startswith("sqlite"):
        reader = Ledger(kept.url, read_only=True)
        seen = standings.of_tournament(reader, "cup")
        reader.close()
        assert calls == [1] and seen.games == 14
        assert {r.bot: r.elo for r in seen.rows} != before
        assert fetch(kept, "SELECT DISTINCT games FROM tournament_fits") == [(12,)]  # read-only: nothing stored
        calls.clear()
    fresh = standings.of_tournament(ledger, "cup")
    assert calls == [1] and fresh.games == 14
    with ledger.read() as connection:
        now = read_fits.stamp(connection, row["id"])
    assert now.games == 14
    assert fetch(kept, "SELECT DISTINCT games, store_seq FROM tournament_fits") == [(now.games, now.store_seq)]
    again = standings.of_tournament(ledger, "cup")
    assert calls == [1] and again.rows == fresh.rows
    ledger.close()


def test_refresh_fit_refits_only_when_stale(kept, monkeypatch):
    ledger = Ledger(kept.url, ledger_key=kept.key)
    calls = refits(monkeypatch)
    assert not standings.refresh_fit(ledger, tournament_rows.get(ledger, "cup")["id"]) and calls == []
    play(ledger, tournament_rows.get(ledger, "cup"), 7, 1)
    assert standings.refresh_fit(ledger, tournament_rows.get(ledger, "cup")["id"]) and calls == [1]
    ledger.close()


def test_a_fit_of_wrong_sums_is_forgotten_by_the_rebuild(kept):
    """The fit is made from the read models' sums: `db audit --rebuild` (projections.rebuild) empties them and
    forgets every fit, so a fit of tampered sums is not shown after the mend."""
    ledger = Ledger(kept.url, ledger_key=kept.key)
    shown = [(r.bot, r.elo) for r in standings.of_tournament(ledger, "cup").rows]
    with ledger.write() as connection:
        connection.exec_driver_sql("UPDATE tournament_fits SET elo = elo + 500 WHERE bot = 'ant'")
    assert [(r.bot, r.elo) for r in standings.of_tournament(ledger, "cup").rows] != shown  # a memo: read as kept
    projections.rebuild(ledger)
    assert fetch(kept, "SELECT COUNT(*) FROM tournament_fits") == [(0,)]
    mended = [(r.bot, r.elo) for r in standings.of_tournament(ledger, "cup").rows]
    assert [bot for bot, _ in mended] == [bot for bot, _ in shown]
    assert [elo for _, elo in mended] == pytest.approx([elo for _, elo in shown], abs=1e-3)
    ledger.close()


def test_a_paged_table_reads_only_its_rows_pairs_and_pages_cover_the_whole(kept):
    ledger = Ledger(kept.url, read_only=kept.url.startswith("sqlite"))
    whole = standings.of_tournament(ledger, "cup")
    order = [r.bot for r in whole.rows]
    pages = [standings.of_tournament(ledger, "cup", rows=(offset, 2)) for offset in (0, 2)]
    assert [list(page.head_to_head) for page in pages] == [order[:2], order[2:]]
    assert {a: row for page in pages for a, row in page.head_to_head.items()} == whole.head_to_head
    assert {a: row for page in pages for a, row in page.los.items()} == whole.los
    assert all(page.rows == whole.rows for page in pages)
    ledger.close()


def test_revision_0018_adds_the_fits_table_and_its_downgrade_drops_it(backend):
    ledger = Ledger(backend.url, ledger_key=backend.key)
    row = cup(ledger)
    play(ledger, row, 0, 1)
    ledger.downgrade("0017")
    assert "tournament_fits" not in tables(ledger)
    ledger.upgrade("0018")
    assert "tournament_fits" in tables(ledger)
    ledger.upgrade()  # the code reads the later revisions' tables too (0021's count of the tournament's games)
    assert standings.refresh_fit(ledger, row["id"])
    assert fetch(backend, "SELECT COUNT(*), MIN(games) FROM tournament_fits") == [(2, 2)]
    ledger.close()


def tables(ledger: Ledger) -> set[str]:
    from sqlalchemy import inspect

    return set(inspect(ledger.engine).get_table_names())


def test_the_audit_names_a_kept_fit_that_is_not_its_pairs_and_rebuild_forgets_it(kept):
    """A kept fit changed by hand (its stamp still the tournament's): `tourney db audit` fails naming its row
    (stored and refitted figures); `db audit --rebuild` forgets every fit, after which the audit passes."""
    assert invoke("db", "audit", "--db", kept.url).exit_code == 0
    ledger = Ledger(kept.url, ledger_key=kept.key)
    with ledger.write() as connection:
        connection.exec_driver_sql("UPDATE tournament_fits SET elo = elo + 30 WHERE bot = 'bee'")
    ledger.close()
    failed = invoke("db", "audit", "--db", kept.url)
    assert failed.exit_code == 1, failed.output
    assert "differs: tournament_fits (tournament_id=1, bot='bee'): stored elo=" in failed.output, failed.output
    assert "the pairs give elo=" in failed.output and "bot='ant'" not in failed.output
    mended = invoke("db", "audit", "--rebuild", "--db", kept.url)
    assert mended.exit_code == 0, mended.output
    assert fetch(kept, "SELECT COUNT(*) FROM tournament_fits") == [(0,)]


def test_refresh_fit_leaves_read_models_that_are_behind_alone(kept):
    """Read models behind the games (a ledger of an older tourney, before its catch-up): `tourney run`'s refit
    keeps nothing and does not stop the run; a reader is refused as before."""
    ledger = Ledger(kept.url, ledger_key=kept.key)
    play(ledger, tournament_rows.get(ledger, "cup"), 6, 1)
    with ledger.write() as connection:
        connection.exec_driver_sql("UPDATE read_model_positions SET position = 0")
    assert not standings.refresh_fit(ledger, tournament_rows.get(ledger, "cup")["id"])
    assert fetch(kept, "SELECT DISTINCT games FROM tournament_fits") == [(12,)]
    with pytest.raises(read_models.Behind):
        standings.of_tournament(ledger, "cup")
    ledger.close()
