"""The read models (ledger/read_models.py, issue 39): kept as games land, always equal to their rebuild from the
games' hashed events, on both backends: after a tournament, a ladder with a void and a retirement, an upgrade of
a ledger written before them, a tamper (named by the audit, mended by --rebuild) and a writer killed mid-store."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import time
from contextlib import closing
from pathlib import Path

import pytest

import migrations
from ledger import read_models
from ledger.rows import ladder_rows, tournament_rows
from ledger.store import Ledger
from replays import facts, projections
from tests import cli
from tests.backends import Backend, copied_ledger
from tests.cli import invoke
from tests.tamper import fetch, tamper
from tests.tournaments.play.test_protocol import GAME, make_folder, run
from tournaments.bots.spec import BUILTIN, BotSpec
from tournaments.ladder import league, rating_fold, sessions
from tournaments.play import runner, standings
from tournaments.play.schedule import Scheduled, deal_seed

ROOT = Path(__file__).resolve().parents[1]


tourney = functools.partial(invoke, width=200)


def audited(url: str) -> projections.Audit:
    ledger = Ledger(url, read_only=url.startswith("sqlite"))
    try:
        return projections.audit(ledger)
    finally:
        ledger.close()


def audit_names_absent(url: str, row: str, column: str, value: int) -> None:
    """`tourney db audit` fails naming ``row``, stored with ``column`` = ``value``, which the games do not give at
    all; `db audit --rebuild` mends it."""
    failed = tourney("db", "audit", "--db", url)
    assert failed.exit_code == 1 and f"{row}: stored {column}={value}; the events give absent" in failed.output, \
        failed.output
    assert tourney("db", "audit", "--rebuild", "--db", url).exit_code == 0


def recounted_by_upgrade(backend: Backend, previous: str, table: str, columns: str) -> None:
    """A ledger whose ladder has a voided game, down at revision ``previous`` (before ``table``) and up again by
    `tourney db upgrade`: the revision counts ``table`` again in SQL, its rows (``columns``) those kept before, and
    the audit passes (they are what the games add up to)."""
    voided = fetch(backend, "SELECT game_id FROM ladder_games ORDER BY seq LIMIT 1")[0][0]
    assert tourney("ladder", "void", "duel", voided, "--reason", "a test", "--db", backend.url).exit_code == 0
    kept = sorted(fetch(backend, f"SELECT {columns} FROM {table}"))
    assert kept
    old = Ledger(backend.url, upgrade=False)
    old.downgrade(previous)
    assert old.current() == previous and table not in backend.tables()
    old.close()
    upgraded = tourney("db", "upgrade", "--db", backend.url)
    assert upgraded.exit_code == 0 and f"at revision {migrations.HEAD}" in upgraded.output, upgraded.output
    assert sorted(fetch(backend, f"SELECT {columns} FROM {table}")) == kept
    assert audited(backend.url).differences == []


def audit_names(url: str, row: str, column: str) -> None:
    """`tourney db audit` fails naming ``row`` (its table and key, as the audit writes them) with its stored
    ``column`` and the one its games give."""
    failed = tourney("db", "audit", "--db", url)
    assert failed.exit_code == 1, failed.output
    assert f"differs: {row}: stored {column}=" in failed.output and f"the events give {column}=" in failed.output, \
        failed.output


# -- a ladder fed through the path `ladder play` stores by, with tourney's builtin bots (no sandbox needed) --------


def builtin(names: list[str]) -> tuple[BotSpec, ...]:
    return tuple(BotSpec(name, BUILTIN, "", hashlib.sha256(name.encode()).hexdigest()) for name in names)


def ladder_games(ledger: Ledger, name: str, deals: int, seed: str = "s") -> None:
    """``deals`` deals of the ladder's active entries, two at a table, each from both seats, stored and rated as
    a match is (tournaments.ladder.sessions.rated_game inside ledger.rows.ladder_rows.store_games)."""
    ladder = ladder_rows.get(ledger, name)
    entries = {e["name"]: e for e in ladder_rows.entries(ledger, ladder["id"])}
    names = sorted(entries)
    spec = runner.Spec(GAME, 2, 1, seed, 1.0, 5.0, builtin(names))
    for deal in range(deals):
        pair = [names[deal % len(names)], names[(deal + 1) % len(names)]]
        jobs = [runner.Job(spec, Scheduled(f"{seed}-d{deal}-r{r}", 0, deal, r, tuple(pair[r:] + pair[:r]),
                                           deal_seed(seed, 0, deal))) for r in range(2)]
        games = [sessions.rated_game(ledger, result, [entries[seat.name] for seat in result.recorded.seats])
                 for result in runner.results(jobs, 0)]
        ladder_rows.store_games(ledger, ladder["id"], games, league.model(ladder).update)


def make_ladder(ledger: Ledger, name: str = "duel", bots: int = 3, rating: str = "elo") -> None:
    ladder_id = ladder_rows.create(ledger, name, GAME, 2, rating)
    for bot in builtin([f"b{i}" for i in range(bots)]):
        ladder_rows.submit(ledger, ladder_id, bot.name, bot.content_hash, BUILTIN, "builtin", b"",
                           league.MODELS[rating].start)


def build_league(template: Backend) -> None:
    """A tournament (random bots, one of which forfeits) and a ladder of builtin bots."""
    folder = make_folder(template.key.parent, good=3, fixtures=("raises.py",))
    result = run(folder, template.url, "--name", "cup", "--ledger-key", str(template.key), games=2, jobs=0)
    assert result.exit_code == 0, result.output
    ledger = Ledger(template.url, ledger_key=template.key)
    make_ladder(ledger)
    ladder_games(ledger, "duel", 6)
    ledger.close()


league_db_templates, league_db = copied_ledger("league_db", build_league)


@pytest.mark.slow
def test_read_models_equal_their_rebuild_after_a_tournament_a_ladder_a_void_and_a_retirement(league_db):
    """Every read model, counted game by game as the games were stored, equals its rebuild from the games'
    hashed events; so after a void (taken out of the ladder's tables), a retirement and more games."""
    backend = league_db
    assert audited(backend.url).differences == []
    first = fetch(backend, "SELECT g.game_id FROM ladder_games g ORDER BY g.seq LIMIT 1")[0][0]
    assert tourney("ladder", "void", "duel", first, "--reason", "a test", "--db", backend.url).exit_code == 0
    assert tourney("ladder", "retire", "duel", "b2", "--db", backend.url).exit_code == 0
    ledger = Ledger(backend.url, ledger_key=backend.key)
    ladder_games(ledger, "duel", 2, seed="later")
    ledger.close()
    found = audited(backend.url)
    assert found.games == 24 + 12 + 4 and found.differences == []
    checked = tourney("db", "audit", "--db", backend.url)
    assert checked.exit_code == 0 and "40 games counted, every row equal to its rebuild" in checked.output


@pytest.mark.slow
def test_the_standings_read_from_the_read_models_are_those_of_the_games(league_db):
    """`tourney standings` from the read models gives what the games' hashed results give (the same Elo, games,
    firsts, places, scores, forfeits, head-to-head), and --check agrees."""
    ledger = Ledger(league_db.url, read_only=league_db.path is not None)
    row = tournament_rows.get(ledger, "cup")
    found = facts.read(ledger, tournament_rows.scope(row))
    games = [[(seat.bot, seat.rank) for seat in fact.seats] for fact in found.facts]
    forfeits: dict[str, int] = {}
    for fact in found.facts:
        if fact.forfeit is not None:
            forfeits[fact.seats[fact.forfeit.seat].bot] = forfeits.get(fact.seats[fact.forfeit.seat].bot, 0) + 1
    assert forfeits, "the tournament has forfeits to count"
    expected = standings.compute("cup", GAME, games, forfeits)
    shown = standings.of_tournament(ledger, "cup", check=True)
    ledger.close()
    assert [(r.bot, r.games, r.first, r.forfeits) for r in shown.rows] == \
           [(r.bot, r.games, r.first, r.forfeits) for r in expected.rows]
    for mine, theirs in zip(shown.rows, expected.rows, strict=True):
        assert mine.elo == pytest.approx(theirs.elo, abs=1e-6) and mine.score == pytest.approx(theirs.score)
        assert mine.mean_place == pytest.approx(theirs.mean_place)
        assert (mine.ci_low, mine.ci_high) == pytest.approx((theirs.ci_low, theirs.ci_high), abs=1e-6)
    assert shown.head_to_head == expected.head_to_head and shown.los == expected.los and shown.games == len(games)


@pytest.mark.slow
def test_the_audit_names_the_first_row_that_differs_and_rebuild_mends_it(league_db):
    """A read model row changed by hand: `tourney db audit` fails naming that row (stored and rebuilt values),
    `standings --check` refuses, and `tourney db audit --rebuild` counts every game again, after which the
    audit passes and the standings are what they were."""
    backend = league_db
    before = tourney("standings", "cup", "--json", "--db", backend.url).output
    bot, opponent = fetch(backend, "SELECT bot, opponent FROM tournament_pairs ORDER BY bot, opponent LIMIT 1")[0]
    tamper(backend, ("UPDATE tournament_pairs SET wins = wins + 5 WHERE bot = ? AND opponent = ?", (bot, opponent)))
    audit_names(backend.url, f"tournament_pairs (tournament_id=1, bot={bot!r}, opponent={opponent!r})", "wins")
    refused = tourney("standings", "cup", "--check", "--db", backend.url)
    assert refused.exit_code == 1 and "a read model differs from the games' hashed results" in refused.output
    mended = tourney("db", "audit", "--rebuild", "--db", backend.url)
    assert mended.exit_code == 0 and "counted 36 stored games into the read models again" in mended.output
    assert tourney("standings", "cup", "--json", "--db", backend.url).output == before


def test_a_rebuild_stopped_half_way_is_refused_by_every_reader_until_db_upgrade_counts_the_rest(league_db):
    """`db audit --rebuild` empties the read models in one transaction and counts the games again in others: stopped
    between them (Ctrl-C, a kill), the lists refuse in one line naming the cure, as standings do, where they showed
    a part's counts; `tourney db upgrade` counts the rest, and the lists and the audit are whole again."""
    backend = league_db
    listed = tourney("list", "--json", "--db", backend.url)
    ladders = tourney("ladder", "list", "--db", backend.url)
    assert listed.exit_code == 0 and ladders.exit_code == 0
    ledger = Ledger(backend.url)
    with ledger.write() as connection:  # what the rebuild's first transaction leaves
        read_models.clear(connection)
    ledger.close()
    for args in (("list",), ("list", "--json"), ("ladder", "list"), ("standings", "cup"),
                 ("ladder", "standings", "duel")):
        refused = tourney(*args, "--db", backend.url)
        assert refused.exit_code == 1 and refused.output.startswith(
            "error: the read models count 0 of the 36 stored games (a ledger an older tourney wrote, or a `db audit "
            "--rebuild` stopped before its end): run `tourney db upgrade` to count the rest"), (args, refused.output)
    upgraded = tourney("db", "upgrade", "--db", backend.url, "--ledger-key", backend.key)
    assert upgraded.exit_code == 0 and "counted 36 stored games into the read models" in upgraded.output
    assert tourney("list", "--json", "--db", backend.url).output == listed.output
    assert tourney("ladder", "list", "--db", backend.url).output == ladders.output
    assert audited(backend.url).differences == []


@pytest.mark.slow
def test_a_ledger_upgraded_from_before_the_read_models_is_counted_by_db_upgrade(league_db):
    """A ledger written before revision 0013 (its games stored, its read models absent): after the schema
    upgrade, readers refuse in one line saying to run `tourney db upgrade`, which counts every stored game
    from its events; then the audit passes and the standings are the same as before."""
    backend = league_db
    before = tourney("standings", "cup", "--json", "--db", backend.url).output
    old = Ledger(backend.url, upgrade=False)
    old.downgrade("0011")
    old.upgrade()
    old.close()
    refused = tourney("standings", "cup", "--db", backend.url)
    assert refused.exit_code == 1 and refused.output.startswith("error: the read models count 0 of the 36 stored "
                                                               "games"), refused.output
    assert "run `tourney db upgrade`" in refused.output
    upgraded = tourney("db", "upgrade", "--db", backend.url, "--ledger-key", backend.key)
    assert upgraded.exit_code == 0 and "counted 36 stored games into the read models" in upgraded.output
    assert audited(backend.url).differences == []
    assert tourney("standings", "cup", "--json", "--db", backend.url).output == before
    assert tourney("ladder", "standings", "duel", "--db", backend.url).exit_code == 0


@pytest.mark.slow
def test_a_writer_that_stores_on_an_old_ledger_counts_its_games_first(backend, tmp_path):
    """A command that stores games on a ledger whose read models are behind counts the old games first (as `db
    upgrade` does), so its own games are counted in their transactions and the audit passes."""
    folder = make_folder(tmp_path, good=2)
    assert run(folder, backend.url, "--name", "one", "--ledger-key", str(backend.key)).exit_code == 0
    old = Ledger(backend.url, upgrade=False)
    old.downgrade("0011")
    old.upgrade()
    old.close()
    assert run(folder, backend.url, "--name", "two", "--seed", "2", "--ledger-key", str(backend.key)).exit_code == 0
    found = audited(backend.url)
    assert found.games == 4 and found.differences == []


# -- a ladder's refold holds no write lock -------------------------------------------------------------------------


def test_a_refold_lets_workers_store_while_it_reads_and_folds_their_games_on(tmp_path):
    """`ladder rebuild` reads and folds the ladder's games without the write lock: a game stored while it
    folds (here: from inside its read, which would deadlock were the lock held) is stored at once, and the
    rebuild folds it on before writing, so its ratings equal a rebuild run after it."""
    ledger = Ledger(str(tmp_path / "l.db"))
    make_ladder(ledger)
    ladder_games(ledger, "duel", 3)
    ladder = ladder_rows.get(ledger, "duel")
    rating = league.model(ladder)
    reads = []

    def results(connection, after):
        reads.append(after)
        if len(reads) == 1:  # meanwhile a worker stores a match: it must not wait for the refold
            # No write lock is held now: a writer that will not wait at all (timeout 0) gets it at once.
            with closing(sqlite3.connect(tmp_path / "l.db", timeout=0)) as probe:
                probe.execute("BEGIN IMMEDIATE")
                probe.rollback()
            other = Ledger(str(tmp_path / "l.db"))
            ladder_games(other, "duel", 1, seed="meanwhile")
            other.close()
        return league.rated_after(ledger, ladder, connection, after)

    rating_fold.rebuild(ledger, ladder["id"], rating.update, results, rating.start)
    assert reads[0] == 0 and reads[1] == 6  # the 6 games read at first, then only those stored meanwhile
    ratings = {e["id"]: (e["rating"], e["games"]) for e in ladder_rows.entries(ledger, ladder["id"], False)}
    assert sum(games for _, games in ratings.values()) == 16
    assert all(old == new for old, new in league.rebuild(ledger, "duel").values())
    assert ratings == {e["id"]: (e["rating"], e["games"]) for e in ladder_rows.entries(ledger, ladder["id"], False)}
    ledger.close()


def test_a_void_begins_again_when_an_operators_fact_lands_while_it_refolds(tmp_path):
    """A retirement appended while a void refolds changes what the fold skips: the void refolds again, and
    the ratings are still the fold of the games that count."""
    ledger = Ledger(str(tmp_path / "l.db"))
    make_ladder(ledger)
    ladder_games(ledger, "duel", 3)
    ladder = ladder_rows.get(ledger, "duel")
    rating = league.model(ladder)
    first = ladder_rows.game_ids(ledger, ladder["id"])[0]
    reads = []

    def results(connection, after):
        reads.append(after)
        if len(reads) == 1:
            ladder_rows.retire(Ledger(str(tmp_path / "l.db")), ladder["id"], "b2", "meanwhile")
        return league.rated_after(ledger, ladder, connection, after)

    rating_fold.void(ledger, ladder["id"], first, "a test", rating.update, results, rating.start)
    assert reads == [0, 0, 6]  # read again from the start after the retirement, then nothing stored meanwhile
    assert all(old == new for old, new in league.rebuild(ledger, "duel").values())
    assert projections.audit(ledger).differences == []
    ledger.close()


# -- a writer killed mid-store -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_writer_killed_mid_store_leaves_read_models_equal_to_their_rebuild(backend, tmp_path):
    """`tourney run` (a real process, storing games in groups) killed with SIGKILL at three moments while it
    stores: each time every game it stored is counted and nothing else (the read models equal their rebuild),
    and --resume finishes the tournament with the audit still passing."""
    folder = make_folder(tmp_path, good=4)
    command = [*cli.COMMAND, "run", str(folder), "--game", GAME, "--games", "12",
               "--seed", "9", "--name", "cup", "--jobs", "2", "--sandbox", "off", "--progress", "none",
               "--db", backend.url, "--ledger-key", str(backend.key)]
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    stored = 0
    errors = tmp_path / "stderr.txt"
    for kill in range(3):
        with errors.open("wb") as stderr:
            process = subprocess.Popen(command + (["--resume"] if kill else []), env=environment,
                                       stdout=subprocess.DEVNULL, stderr=stderr)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            if _stored(backend) >= stored + 20 + 7 * kill:  # some groups stored, more on their way: kill it
                break
            time.sleep(0.05)
        assert process.poll() is None, errors.read_text()
        process.send_signal(signal.SIGKILL)
        process.wait()
        stored = _stored(backend)
        found = audited(backend.url)
        assert found.games == stored and found.differences == [], found.differences
    finished = subprocess.run([*command, "--resume"], env=environment, capture_output=True, text=True)
    assert finished.returncode == 0, finished.stderr
    found = audited(backend.url)
    assert found.games == _stored(backend) == 144 and found.differences == []


def _stored(backend) -> int:
    try:
        return fetch(backend, "SELECT COUNT(*) FROM games WHERE store_seq IS NOT NULL")[0][0]
    except Exception:  # the table is not made yet (the first moments of the first run)
        return 0


def test_behind_read_models_refuse_readers_and_count_nothing_out_of_order(tmp_path):
    """A game stored while the read models are behind is not counted (its turn comes in store order, with the
    catch-up), and readers are refused until the catch-up has run."""
    ledger = Ledger(str(tmp_path / "l.db"))
    make_ladder(ledger)
    ladder_games(ledger, "duel", 1)
    with ledger.write() as connection:
        read_models.clear(connection)
    ladder_games(ledger, "duel", 1, seed="later")
    with ledger.read() as connection:
        assert read_models.position(connection) == 0
        with pytest.raises(read_models.Behind, match="count 0 of the 4 stored games"):
            read_models.ladder(connection, 1)
    assert projections.catch_up(ledger) == 4 and projections.audit(ledger).differences == []
    ledger.close()


# -- standings' options, and the running report's sums --------------------------------------------------------------


@pytest.mark.slow
def test_standings_interval_bootstrap_is_todays_interval(league_db):
    """`tourney standings --interval bootstrap` gives the 200-resample bootstrap interval of the games' results,
    as standings computed before the read models did; the default is the curvature interval."""
    ledger = Ledger(league_db.url, read_only=league_db.path is not None)
    row = tournament_rows.get(ledger, "cup")
    found = facts.read(ledger, tournament_rows.scope(row))
    games = [[(seat.bot, seat.rank) for seat in fact.seats]
             for fact in sorted(found.facts, key=lambda fact: (fact.key or "", fact.game_id))]
    ledger.close()
    expected = standings.compute("cup", GAME, games, interval=standings.BOOTSTRAP)
    shown = tourney("standings", "cup", "--json", "--interval", "bootstrap", "--db", league_db.url)
    assert shown.exit_code == 0, shown.output
    rows = {row["bot"]: (row["ci_low"], row["ci_high"]) for row in json.loads(shown.output)["standings"]}
    assert rows == {row.bot: (round(row.ci_low, 1), round(row.ci_high, 1)) for row in expected.rows}
    default = tourney("standings", "cup", "--json", "--db", league_db.url)
    assert json.loads(default.output)["standings"] != json.loads(shown.output)["standings"]


def test_the_running_standings_add_up_what_the_ledger_counts(tmp_path):
    """The sums `tourney run` keeps in memory for its reports (standings.Running), game by game as games are
    stored, give the standings the read models give after them."""
    from ledger.canonical import canonical
    from replays.archive import finished_game

    ledger = Ledger(str(tmp_path / "t.db"))
    names = ["a", "b", "c"]
    spec = runner.Spec(GAME, 2, 1, "r", 1.0, 5.0, builtin(names))
    with ledger.write() as connection:
        ids = {bot.name: ledger.ensure_bot(bot.name, bot.content_hash, BUILTIN, connection) for bot in spec.bots}
    tournament_rows.create(ledger, "live", GAME, canonical(spec.to_json()).decode(), "r", list(ids.values()))
    row = tournament_rows.get(ledger, "live")
    running = standings.Running(ledger, row)
    jobs = [runner.Job(spec, Scheduled(f"t{t}-r{r}", t, 0, r, tuple(pair[r:] + pair[:r]), deal_seed("r", t, 0)))
            for t, pair in enumerate([["a", "b"], ["b", "c"], ["a", "c"]] * 3) for r in range(2)]
    for result in runner.results(jobs, 0):
        ledger.store_games([finished_game(result.recorded, [ids[s.name] for s in result.recorded.seats],
                                          result.scores, row["id"], result.key)])
        running.add(result.recorded)
    stored = standings.of_tournament(ledger, "live", vouched=False)
    live = running.standings()
    ledger.close()
    assert live.games == stored.games == 18 and live.head_to_head == stored.head_to_head
    assert [(r.bot, r.games, r.first, r.forfeits) for r in live.rows] == \
           [(r.bot, r.games, r.first, r.forfeits) for r in stored.rows]
    assert [r.elo for r in live.rows] == pytest.approx([r.elo for r in stored.rows])
