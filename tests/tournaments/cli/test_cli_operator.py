"""What an operator reads and does: forfeits in standings, head-to-head, CSV, listings, imports that
keep their tournament, ladder void and retire, and the small things users noticed."""

from __future__ import annotations

import csv
import functools
import io
import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from ledger.rows import ladder_rows
from ledger.store import Ledger
from tests import cli
from tests.tournaments.play.test_protocol import make_folder, run
from tournaments.cli import listing, version
from tournaments.ladder import league as ladder
from tournaments.ladder import sessions
from tournaments.play import results

ROOT = Path(__file__).resolve().parents[3]
BOTS = ROOT / "bots"
FAST = ladder.Limits(move_time=2.0, time_bank=5.0)


@pytest.fixture(scope="module")
def cup(tmp_path_factory) -> Path:
    """A tournament named cup: two random bots and one that always answers an illegal action."""
    tmp = tmp_path_factory.mktemp("cup")
    folder = make_folder(tmp, good=2, fixtures=("illegal.py",))
    db = tmp / "t.db"
    result = run(folder, db, "--name", "cup", games=2)
    assert result.exit_code == 0, result.output
    return db


invoke = functools.partial(cli.invoke, width=200)


def test_standings_count_each_bots_forfeits_from_the_games_events(cup):
    """The forfeits column (table and JSON) counts the games each bot forfeited, read from seat_forfeited."""
    data = json.loads(invoke("standings", "cup", "--json", "--db", str(cup)).stdout)
    forfeits = {row["bot"]: row["forfeits"] for row in data["standings"]}
    ledger = Ledger(str(cup), read_only=True)
    stored = sum(record.type == "seat_forfeited" for game_id in ledger.game_ids() for record in ledger.records(game_id))
    ledger.close()
    assert forfeits["illegal"] == stored > 0 and forfeits["random_bot"] == forfeits["random_b"] == 0
    table = invoke("standings", "cup", "--db", str(cup)).stdout
    cells = {fields[2]: fields[-1] for fields in map(str.split, table.splitlines())
             if len(fields) == 10 and fields[0].isdigit()}  # rank, id, bot, ..., forfeits
    assert "forfeits" in table and cells["illegal"] == str(stored) and cells["random_bot"] == "0"


def test_head_to_head_and_csv_agree_with_the_json(cup):
    """--head-to-head prints W-D-L per pair; --csv prints the standings rows and, with --head-to-head, the pairs."""
    data = json.loads(invoke("standings", "cup", "--json", "--db", str(cup)).stdout)
    pairs = data["head_to_head"]
    assert pairs["random_bot"]["illegal"] == {"wins": 4, "draws": 0, "losses": 0}
    text = invoke("standings", "cup", "--head-to-head", "--db", str(cup)).stdout
    assert "head to head" in text and "4-0-0" in text and "0-0-4" in text
    rows_ = list(csv.DictReader(io.StringIO(invoke("standings", "cup", "--csv", "--db", str(cup)).stdout)))
    assert [r["bot"] for r in rows_] == [r["bot"] for r in data["standings"]]
    assert [int(r["forfeits"]) for r in rows_] == [r["forfeits"] for r in data["standings"]]
    pair_rows = list(csv.DictReader(io.StringIO(
        invoke("standings", "cup", "--csv", "--head-to-head", "--db", str(cup)).stdout)))
    assert {(r["bot"], r["opponent"]): (int(r["wins"]), int(r["draws"]), int(r["losses"])) for r in pair_rows} == {
        (a, b): (c["wins"], c["draws"], c["losses"]) for a, row in pairs.items() for b, c in row.items()}


def test_list_shows_tournaments_and_every_command_accepts_what_it_prints(cup):
    """`tourney list` prints the tournament's id and name; standings accept both."""
    listed = json.loads(invoke("list", "--json", "--db", str(cup)).stdout)
    [row] = listed["tournaments"]
    assert (row["name"], row["kind"], row["game"], row["bots"], row["games"]) == ("cup", "played", "lemur-tails", 3, 12)
    table = invoke("list", "--db", str(cup)).stdout
    assert "cup" in table and "played" in table
    by_id = invoke("standings", str(row["id"]), "--json", "--db", str(cup)).stdout
    assert by_id == invoke("standings", row["name"], "--json", "--db", str(cup)).stdout


def test_games_lists_every_game_and_filters_by_bot_and_forfeits(cup):
    """`tourney games` lists each game with seats, ranks and the forfeit; --bot and --forfeits filter."""
    every = json.loads(invoke("games", "cup", "--json", "--db", str(cup)).stdout)
    assert len(every) == 12
    forfeited = json.loads(invoke("games", "cup", "--forfeits", "--json", "--db", str(cup)).stdout)
    assert forfeited and all(g["forfeit"]["bot"] == "illegal" and g["forfeit"]["reason"] for g in forfeited)
    assert {g["game_id"] for g in forfeited} == {g["game_id"] for g in every if g["end"] == "forfeit"}
    mine = json.loads(invoke("games", "cup", "--bot", "random_b", "--json", "--db", str(cup)).stdout)
    assert len(mine) == 8 and all("random_b" in {s["bot"] for s in g["seats"]} for g in mine)
    # --bot with --forfeits: that bot's own forfeits, never the games it won by the other's.
    assert any(g["forfeit"] for g in mine)
    none = invoke("games", "cup", "--bot", "random_b", "--forfeits", "--json", "--db", str(cup))
    assert json.loads(none.stdout) == []
    theirs = json.loads(invoke("games", "cup", "--bot", "illegal", "--forfeits", "--json", "--db", str(cup)).stdout)
    assert sorted(g["game_id"] for g in theirs) == sorted(g["game_id"] for g in forfeited)
    table = invoke("games", "--forfeits", "--db", str(cup)).stdout
    assert forfeited[0]["game_id"][:12] in table and forfeited[0]["forfeit"]["reason"][:20] in table
    # No game of Lemur Tails keeps a score (its result is a place): the column that would be empty goes.
    assert all(seat["score"] is None for game in every for seat in game["seats"])
    header = next(line for line in table.splitlines() if line.startswith("key"))
    assert header.split() == ["key", "game", "id", "seat", "bot", "rank", "forfeit"]
    unknown = invoke("games", "cup", "--bot", "nobody", "--db", str(cup))
    assert unknown.exit_code == 1 and "no bot 'nobody' played in tournament 'cup'" in unknown.output


def test_games_are_listed_in_play_order_with_the_numbers_of_a_key_compared_as_numbers(tmp_path):
    """11 deals a table: `tourney games` lists t0-d2-r0 before t0-d10-r0 (the text's order puts d10 before d2), in
    its table and its --json alike; the ledger's own order, which the bootstrap draws in, stays the text's."""
    db = tmp_path / "t.db"
    assert run(make_folder(tmp_path), db, "--name", "long", games=11).exit_code == 0
    listed = [game["key"] for game in json.loads(invoke("games", "long", "--json", "--db", str(db)).stdout)]
    expected = [f"t0-d{deal}-r{rotation}" for deal in range(11) for rotation in range(2)]
    assert listed == expected
    table = [line.split()[0] for line in invoke("games", "long", "--db", str(db)).stdout.splitlines()
             if line.startswith("t0-")]
    assert table == expected
    ledger = Ledger(str(db), read_only=True)
    try:
        stored = [game.key for game in results.of_tournament(ledger, 1)]
    finally:
        ledger.close()
    assert stored == sorted(expected) != expected


def test_play_order_takes_any_key_an_imported_log_may_carry():
    """Keys are anyone's once imported: a run of 5000 digits (past int()'s 4300), a lone '²' (a digit to isdigit,
    not to \\d) and another script's digits order without an error, numbers as numbers, zeros in front ignored."""
    keys = ["t" + "9" * 5000, "²", "t10-d2", "t2-d10", "t٣", "t2-d9", None, "t007-d1", "s10-t1", "s2-t1"]
    ordered = sorted(keys, key=listing.play_order)
    assert [key for key in ordered if key != "t٣"] == [
        None, "s2-t1", "s10-t1", "t2-d9", "t2-d10", "t007-d1", "t10-d2", "t" + "9" * 5000, "²"]


def test_imported_logs_keep_a_tournament_and_give_the_same_standings(cup, tmp_path):
    """Games exported and imported into an empty database are recorded in a tournament, whose standings equal
    the original's (the bootstrap CI aside: it resamples in stored order, by key there and by game id here);
    a bad file among good ones is reported and the others are stored (exit 1)."""
    logs = tmp_path / "logs"
    assert invoke("replay", "export", "--tournament", "cup", "--out", str(logs), "--db", str(cup)).exit_code == 0
    (logs / "broken.json").write_text("{oops")
    mirror = str(tmp_path / "mirror.db")
    result = invoke("replay", "import", str(logs), "--tournament", "cup", "--db", mirror)
    assert result.exit_code == 1
    assert "FAIL " in result.stderr and "broken.json" in result.stderr and "12 new games stored" in result.stdout
    assert result.stderr.strip().splitlines()[-1].startswith("error: 1 of 13 logs failed")
    original = json.loads(invoke("standings", "cup", "--json", "--db", str(cup)).stdout)
    copied = json.loads(invoke("standings", "cup", "--json", "--db", mirror).stdout)
    def without_ci(rows_):  # and without the bots' ids, which are each database's own
        return [{k: v for k, v in row.items() if k not in ("ci_low", "ci_high", "bot_id")} for row in rows_]

    assert without_ci(copied["standings"]) == without_ci(original["standings"])
    assert copied["head_to_head"] == original["head_to_head"] and copied["los"] == original["los"]
    assert json.loads(invoke("list", "--json", "--db", mirror).stdout)["tournaments"][0]["kind"] == "imported"
    default = str(tmp_path / "default.db")
    (logs / "broken.json").unlink()
    assert "in imported-lemur-tails" in invoke("replay", "import", str(logs), "--db", default).stdout


def test_resume_after_removing_a_bot_is_refused_with_the_way_on(tmp_path):
    """A folder that lost a bot cannot --resume its tournament; the message says to start a new one, which works."""
    folder = make_folder(tmp_path, good=3)
    db = tmp_path / "t.db"
    assert run(folder, db, "--name", "cup").exit_code == 0
    (folder / "random_c.py").unlink()
    refused = run(folder, db, "--name", "cup", "--resume")
    assert refused.exit_code == 1 and "another --name" in refused.stderr, refused.output
    assert run(folder, db, "--name", "cup-2").exit_code == 0


# -- ladders --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def spring_built(tmp_path_factory) -> Path:
    """A folder holding the spring ladder, built once: three bots, eight deals played (its ledger closed)."""
    folder = tmp_path_factory.mktemp("spring")
    ledger = Ledger(str(folder / "league.db"))
    ladder_rows.create(ledger, "spring", "lemur-tails", 2)
    ladder.submit(ledger, "spring", BOTS / "random_bot.py", None, FAST)
    ladder.submit(ledger, "spring", BOTS / "first_legal.sh", None, FAST)
    ladder.submit(ledger, "spring", BOTS / "heuristic_lemur_tails.py", None, FAST)
    sessions.play(ledger, "spring", 8, 0, FAST, "3")
    ledger.close()
    return folder


@pytest.fixture
def spring(spring_built, tmp_path):
    """This test's own copy of the spring ladder (its ledger file and key), opened."""
    for path in spring_built.iterdir():
        shutil.copy(path, tmp_path / path.name)
    ledger = Ledger(str(tmp_path / "league.db"))
    yield ledger
    ledger.close()


def ratings(ledger: Ledger) -> dict[str, float]:
    return {e["name"]: e["rating"] for e in ladder_rows.entries(ledger, 1, active_only=False)}


@pytest.mark.slow
def test_void_refolds_the_ratings_without_the_game_and_rebuild_equals_incremental(spring):
    """A voided game stays stored but counts in no rating: the ratings equal a fold without it, later games
    fold on from there, and a rebuild gives exactly the incremental ratings."""
    games = ladder_rows.game_ids(spring, 1)
    result = invoke("ladder", "void", "spring", games[2][:10], "--reason", "a test", "--db", spring.url)
    assert result.exit_code == 0, result.output
    assert ladder_rows.events(spring, 1)[0]["kind"] == "void" and spring.game(games[2]) is not None
    with closing(sqlite3.connect(spring.path)) as connection:
        seq = connection.execute("SELECT seq FROM ladder_games WHERE game_id = ?", (games[2],)).fetchone()[0]
    assert seq not in {s for s, _ in ladder.rated(spring, ladder_rows.get(spring, "spring"))[0]}
    assert sum(e["games"] for e in ladder_rows.entries(spring, 1)) == 2 * (len(games) - 1)
    sessions.play(spring, "spring", 2, 0, FAST, "4")
    incremental = ratings(spring)
    rebuilt = invoke("ladder", "rebuild", "spring", "--db", spring.url)
    assert "equal the incremental ones" in rebuilt.stdout, rebuilt.output
    assert ratings(spring) == incremental
    again = invoke("ladder", "void", "spring", games[2], "--reason", "twice", "--db", spring.url)
    assert again.exit_code == 1 and "already void" in again.output


@pytest.mark.slow
def test_ladder_events_cannot_be_changed_or_removed(spring):
    """The database refuses UPDATE and DELETE of a ladder event (append-only, like game events)."""
    assert invoke("ladder", "retire", "spring", "random_bot", "--db", spring.url).exit_code == 0
    with closing(sqlite3.connect(spring.path)) as connection:
        for statement in ("UPDATE ladder_events SET reason = 'x'", "DELETE FROM ladder_events"):
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                connection.execute(statement)


@pytest.mark.slow
def test_retire_stops_a_bot_playing_and_keeps_its_rating(spring):
    """A retired bot plays no more ladder games, keeps its rating, shows as retired, and survives a rebuild."""
    before = ratings(spring)["random_bot"]
    result = invoke("ladder", "retire", "spring", "random_bot", "--reason", "withdrawn", "--db", spring.url)
    assert result.exit_code == 0 and "retired random_bot v1" in result.stdout
    sessions.play(spring, "spring", 4, 0, FAST, "5")
    assert ratings(spring)["random_bot"] == before
    invoke("ladder", "rebuild", "spring", "--db", spring.url)
    listed = json.loads(invoke("ladder", "standings", "spring", "--all", "--json", "--db", spring.url).stdout)
    assert {r["bot"]: r["status"] for r in listed}["random_bot"] == "retired"
    assert all("forfeits" in r for r in listed)
    again = invoke("ladder", "retire", "spring", "random_bot", "--db", spring.url)
    assert again.exit_code == 1 and "no active bot 'random_bot'" in again.output


@pytest.mark.slow
def test_export_of_a_whole_ladder(spring, tmp_path):
    """`replay export --ladder NAME` writes one log per ladder game, and the ladder's manifest."""
    result = invoke("replay", "export", "--ladder", "spring", "--out", str(tmp_path / "logs"), "--db", spring.url)
    assert result.exit_code == 0, result.output
    assert sorted(p.stem for p in (tmp_path / "logs").glob("*.json")) == sorted(ladder_rows.game_ids(spring, 1))
    assert [p.name for p in (tmp_path / "logs").iterdir() if p.suffix != ".json"] == ["ladder.manifest"]


# -- small things ------------------------------------------------------------------------------


def test_version_prints_the_package_version():
    """`tourney --version` prints the installed package's version."""
    result = invoke("--version")
    assert result.exit_code == 0 and result.stdout == f"tourney {version()}\n" and version() != "unknown"


def test_flags_show_no_value_in_help():
    """A flag's help line names no <bool> value."""
    text = invoke("standings", "--help").stdout
    assert "--los" in text and "<bool>" not in text


def test_long_bot_names_are_cut_at_80_columns_and_their_short_id_names_them(cup, tmp_path):
    """At 80 columns the standings cut a long bot name with an ellipsis (every number whole), show its short id,
    and `tourney games --bot ID` takes that id for the name; markup in a name is literal."""
    folder = make_folder(tmp_path, good=1)
    long_name = "a_remarkably_long_bot_name_for_a_narrow_terminal"
    (folder / f"{long_name}.py").write_bytes((BOTS / "random_bot.py").read_bytes())
    (folder / "x[bold]y[red]_seat:-1:.py").write_bytes((BOTS / "random_bot.py").read_bytes())
    db = tmp_path / "t.db"
    assert run(folder, db, "--name", "narrow").exit_code == 0
    result = invoke("standings", "narrow", "--db", db, env={"COLUMNS": "80"}, width=80)
    assert long_name not in result.stdout and "x[bold]y[red]_sea…" in result.stdout
    assert max(len(line) for line in result.stdout.splitlines()) <= 80
    cut = next(line.split() for line in result.stdout.splitlines() if "a_remarkably" in line)
    assert cut[2].endswith("…") and long_name.startswith(cut[2][:-1]) and len(cut) == 10
    data = json.loads(invoke("standings", "narrow", "--json", "--db", str(db)).stdout)
    assert int(cut[1]) == next(row["bot_id"] for row in data["standings"] if row["bot"] == long_name)
    by_id = json.loads(invoke("games", "narrow", "--bot", cut[1], "--json", "--db", str(db)).stdout)
    by_name = json.loads(invoke("games", "narrow", "--bot", long_name, "--json", "--db", str(db)).stdout)
    assert by_id == by_name and by_id


def test_counts_are_worded_in_singular_and_plural(tmp_path, cup):
    """One log is "1 log", two are "2 ... logs"."""
    result = invoke("replay", "export", "--tournament", "cup", "--out", str(tmp_path / "o"), "--db", str(cup))
    assert "wrote 12 full logs" in result.stdout
    one = sorted((tmp_path / "o").iterdir())[0]
    imported = invoke("replay", "import", str(one), "--db", str(tmp_path / "m.db"))
    assert "1 log read, 1 new game stored" in imported.stdout


def test_verify_of_an_empty_folder_is_an_error(tmp_path):
    """An empty folder is one error line and exit 1, not "all passed"."""
    (tmp_path / "empty").mkdir()
    result = invoke("replay", "verify", str(tmp_path / "empty"))
    assert result.exit_code == 1
    assert result.output == f"error: {tmp_path / 'empty'}: no .json logs or .record text records in this folder\n"


def test_verify_counts_withheld_decisions(cup, tmp_path):
    """Spectator logs verify, and the summary says how many decisions it could not check."""
    out = tmp_path / "spectator"
    invoke("replay", "export", "--tournament", "cup", "--out", str(out), "--view", "spectator", "--db", str(cup))
    result = invoke("replay", "verify", str(out), "--quiet")
    assert result.exit_code == 0, result.output
    if "withheld" in result.stdout:  # Lemur Tails hides some decisions from spectators
        assert "with a withheld private part could not be checked" in result.stdout.splitlines()[-1]


def test_the_protocol_doc_warns_javascript_about_the_64_bit_seed():
    """docs/bot-protocol.md says the hello seed needs a big-integer parse in JavaScript."""
    text = (ROOT / "docs" / "bot-protocol.md").read_text()
    assert "BigInt" in text and "2^53" in text
