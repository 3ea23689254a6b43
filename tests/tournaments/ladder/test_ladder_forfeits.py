"""Why a ladder bot forfeited, from the command line: `ladder history`'s forfeit column, its --forfeits lines in the
bot's own words and its JSON's `forfeit`; `tourney games` given a ladder says where its games are. A real SQLite file,
a real bot raising KeyError in its sandbox, real `tourney` processes."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from ledger.canonical import canonical
from ledger.rows import ladder_rows, tournament_rows
from ledger.store import Ledger
from tests import cli
from tournaments.bots.spec import BUILTIN, BotSpec
from tournaments.ladder import league
from tournaments.play import runner
from tournaments.sandbox import sandbox

ROOT = Path(__file__).resolve().parents[3]
GAME = "lemur-tails"
CRASHY = '''"""Plays at random from seat 0; from seat 1 its act raises KeyError."""
GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        self.seat, self.rng = seat, rng

    def act(self, turn):
        if self.seat == 1:
            return turn.view["no such field"]
        return self.rng.choice(turn.legal)
'''
REASON = "bot failure: crashed: KeyError: 'no such field'"
SUMMARY = "KeyError: 'no such field' at crashy.py line 11, in act"
HAS_SANDBOX = sandbox.unavailable() is None
HISTORY_KEYS = {"version", "seq", "game", "number", "rank", "rating", "mu"}
"""What a row of `ladder history --json` held before its forfeit: kept as it was."""


@pytest.fixture(scope="module")
def spring(tmp_path_factory) -> Path:
    """A folder with league.db: ladder spring (L1), random_bot and crashy (listed without the validation it would
    fail), 4 games played by `ladder play --bot-logs logs` in that folder."""
    return played(tmp_path_factory.mktemp("spring"), "--bot-logs", "logs")


@pytest.fixture(scope="module")
def unlogged(tmp_path_factory) -> Path:
    """As ``spring``, its games played without --bot-logs: the ledger alone keeps the end of each bot's stderr."""
    return played(tmp_path_factory.mktemp("unlogged"))


def played(folder: Path, *extra: str) -> Path:
    """``folder`` with league.db, ladder spring (L1) with random_bot and crashy, 4 games played there."""
    (folder / "crashy.py").write_text(CRASHY)
    ledger = Ledger(str(folder / "league.db"))
    try:
        ladder = ladder_rows.create(ledger, "spring", GAME, 2)
        for path in (folder / "crashy.py", ROOT / "bots" / "random_bot.py"):
            spec, entry_point, files = league.package(path)
            ladder_rows.submit(ledger, ladder, spec.name, spec.content_hash, spec.kind, entry_point, files)
    finally:
        ledger.close()
    done = tourney(folder, "ladder", "play", "spring", "--games", "4", "--jobs", "0", "--seed", "5", *extra)
    assert done.returncode == 0, done.stdout + done.stderr
    return folder


def tourney(folder: Path, *args: str):
    env = {**os.environ, "XDG_CACHE_HOME": str(folder / "cache"), "COLUMNS": "200"}
    return cli.tourney(*args, "--db", "league.db", cwd=folder, env=env)


def crashy_forfeited(folder: Path) -> tuple[set[str], set[str]]:
    """The games crashy sat in, and those it forfeited: every one where it sat in seat 1 (as it is written to)."""
    with closing(sqlite3.connect(folder / "league.db")) as connection:
        seats = connection.execute("SELECT s.game_id, s.seat FROM seats s JOIN bots b ON b.id = s.bot_id "
                                   "WHERE b.name = 'crashy'").fetchall()
    return {game for game, _ in seats}, {game for game, seat in seats if seat == 1}


def history(folder: Path, bot: str, *extra: str) -> list[dict]:
    done = tourney(folder, "ladder", "history", "spring", bot, "--json", *extra)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.sandbox
@pytest.mark.skipif(not HAS_SANDBOX, reason="ladders need a working sandbox")
def test_history_shows_the_reason_on_each_game_the_bot_forfeited_and_no_column_for_a_bot_that_never_did(spring):
    """`ladder history spring crashy`: a forfeit column holds the reason on the rows of the games crashy forfeited,
    nothing on the others; random_bot's history, the same games, has no such column (the forfeits were crashy's)."""
    played, forfeited = crashy_forfeited(spring)
    assert forfeited and played - forfeited, "crashy should have sat in both seats"
    for bot, expected in (("crashy", forfeited), ("random_bot", set())):
        done = tourney(spring, "ladder", "history", "spring", bot)
        assert done.returncode == 0, done.stderr
        header, _, *lines = done.stdout.splitlines()[1:]
        assert header.split() == ["ladder", "game", "version", "rank", "rating", "game", "id",
                                  *(["forfeit"] if expected else [])], done.stdout
        rows = {line.split()[4]: line for line in lines}  # the short id, as `tourney games` shows it
        assert set(rows) == {game[:12] for game in played}, done.stdout
        assert {game for game, line in rows.items() if line.rstrip().endswith(REASON)} == {
            game[:12] for game in expected}, done.stdout


@pytest.mark.sandbox
@pytest.mark.skipif(not HAS_SANDBOX, reason="ladders need a working sandbox")
def test_forfeits_lists_only_the_bots_forfeits_each_told_in_its_own_words_under_the_table(spring):
    """`ladder history spring crashy --forfeits`: only the games it forfeited, then a line each as `tourney games
    --forfeits` prints them: the short game id, the seat, the exception and its line in crashy.py, the log's path."""
    _, forfeited = crashy_forfeited(spring)
    done = tourney(spring, "ladder", "history", "L1", "crashy", "--forfeits")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    rows = [line.split()[4] for line in lines[3:3 + len(forfeited)]]
    assert set(rows) == {game[:12] for game in forfeited} and len(rows) == len(forfeited), done.stdout
    assert lines[3 + len(forfeited)].startswith("In the bots' own words (a Python bot's exception"), done.stdout
    whole = {game[:12]: game for game in forfeited}
    assert lines[4 + len(forfeited):] == [
        f"  {short} seat 1 crashy: {SUMMARY} (log: logs/crashy/{whole[short]}-seat1.log)" for short in rows]
    for game in forfeited:
        assert "KeyError: 'no such field'" in (spring / "logs" / "crashy" / f"{game}-seat1.log").read_text()


@pytest.mark.sandbox
@pytest.mark.skipif(not HAS_SANDBOX, reason="ladders need a working sandbox")
def test_history_json_rows_gain_a_forfeit_with_its_diagnosis_and_keep_their_keys(spring):
    """`ladder history --json`: every row keeps its keys and gains `forfeit`, null but on crashy's forfeits, where
    it has the seat, bot, reason and the diagnosis (its traceback whole); with --forfeits, those rows only."""
    _, forfeited = crashy_forfeited(spring)
    rows = history(spring, "crashy")
    assert all(set(row) == HISTORY_KEYS | {"forfeit"} for row in rows)
    assert {row["game"] for row in rows if row["forfeit"] is not None} == forfeited
    for row in rows:
        if row["forfeit"] is not None:
            told = row["forfeit"].pop("diagnosis")
            assert row["forfeit"] == {"seat": 1, "bot": "crashy", "reason": REASON}
            assert (told["kind"], told["summary"]) == ("traceback", SUMMARY)
            assert told["detail"].startswith("Traceback (most recent call last):\n")
            assert told["detail"].rstrip().endswith("KeyError: 'no such field'")
            assert told["log"] == str(spring / "logs" / "crashy" / f"{row['game']}-seat1.log")
            assert told["stderr"] == (spring / "logs" / "crashy" / f"{row['game']}-seat1.log").read_text()
    only = history(spring, "crashy", "--forfeits")
    assert [row["game"] for row in only] == [row["game"] for row in rows if row["forfeit"] is not None]
    assert all(row["forfeit"] is None for row in history(spring, "random_bot"))
    assert history(spring, "random_bot", "--forfeits") == []


@pytest.mark.sandbox
@pytest.mark.skipif(not HAS_SANDBOX, reason="ladders need a working sandbox")
def test_without_bot_logs_the_forfeit_line_points_to_the_stderr_the_ledger_kept(unlogged):
    """Played without --bot-logs, a ladder still keeps the end of each bot's stderr (table bot_logs): the forfeit
    lines say it is in --json (not "no log kept"), and --json's diagnosis has it, the traceback at its end."""
    _, forfeited = crashy_forfeited(unlogged)
    done = tourney(unlogged, "ladder", "history", "spring", "crashy", "--forfeits")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()[4 + len(forfeited):]
    assert sorted(lines) == sorted(f"  {game[:12]} seat 1 crashy: {SUMMARY} (no log file: the end of its stderr is "
                                   "in --json)" for game in forfeited), done.stdout
    for row in history(unlogged, "crashy", "--forfeits"):
        told = row["forfeit"]["diagnosis"]
        assert told["log"] is None and told["stderr"].rstrip().endswith("KeyError: 'no such field'"), told
        assert "Traceback (most recent call last):" in told["stderr"], told


def test_games_given_a_ladder_says_where_its_games_are_unless_a_tournament_has_that_name(tmp_path):
    """`tourney games L1` (or the ladder's name) is refused in one line pointing to `ladder history`, exit 1; a
    tournament's id stays a tournament's (`games 1`); a tournament named like the ladder is listed."""
    db = tmp_path / "league.db"
    assert cli.invoke("ladder", "create", "spring", "--game", GAME, "--db", db).exit_code == 0
    for ref in ("L1", "spring"):
        done = cli.invoke("games", ref, "--db", db)
        assert (done.exit_code, done.output) == (1, f"error: {ref} is a ladder: its games are in `tourney ladder "
                                                    f"history {ref} BOT` (--forfeits for why a bot forfeited)\n")
    assert cli.invoke("games", "1", "--db", db).output.startswith("error: no tournament '1' in ")
    bot = BotSpec("ant", BUILTIN, "", hashlib.sha256(b"ant").hexdigest())
    ledger = Ledger(str(db))
    try:
        with ledger.write() as connection:
            ids = [ledger.ensure_bot(bot.name, bot.content_hash, BUILTIN, connection)]
        spec = runner.Spec(GAME, 2, 1, "s", 1.0, 5.0, (bot,))
        tournament_rows.create(ledger, "spring", GAME, canonical(spec.to_json()).decode(), "s", ids)
    finally:
        ledger.close()
    listed = cli.invoke("games", "spring", "--db", db)
    assert listed.exit_code == 0 and "spring (lemur-tails): 0 games" in listed.output, listed.output


@pytest.mark.parametrize(("command", "told"), [
    (("standings", "L1"), "L1 is a ladder: its standings are in `tourney ladder standings L1`"),
    (("replay", "export", "--tournament", "L1", "--out", "out"), "L1 is a ladder: give --ladder L1"),
    (("replay", "verify", "--tournament", "spring"), "spring is a ladder: give --ladder spring"),
], ids=["standings", "replay-export", "replay-verify"])
def test_every_command_that_takes_a_tournament_says_where_a_ladders_is(tmp_path, monkeypatch, command, told):
    """A ladder's id or name where a tournament is asked for: one line naming what shows the ladder's, exit 1 (it was
    "no tournament 'L1'", as if there were nothing by that name); nothing written."""
    monkeypatch.chdir(tmp_path)
    assert cli.invoke("ladder", "create", "spring", "--game", GAME, "--db", "league.db").exit_code == 0
    done = cli.invoke(*command, "--db", "league.db")
    assert (done.exit_code, done.output) == (1, f"error: {told}\n")
    assert [path.name for path in tmp_path.iterdir()] == ["league.db"]
