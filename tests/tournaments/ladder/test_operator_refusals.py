"""What the operator's `tourney ladder` commands refuse, on a real SQLite file with real bot processes: each refusal
is one line with its exit code (2 for a bad value, 1 for a refusal), and stores nothing: no void, no ladder, no bot,
no session, no game."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from ledger.rows import game_rows, ladder_rows, owner_rows, submission_rows
from ledger.store import Ledger
from tests import cli
from tournaments.ladder import league as ladder
from tournaments.ladder import owner_tokens, sessions

ROOT = Path(__file__).resolve().parents[3]
BOTS = ROOT / "bots"
GAME = "lemur-tails"
FAST = ladder.Limits(move_time=2.0, time_bank=5.0)
NAME_RULE = "is not a name here: use letters, digits, '.', '_' and '-' (starting with a letter or digit, at most 64 " \
            "characters)"
TEAM_RULE = NAME_RULE.replace("'-' (", "'-' ('/' between parts) (")


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    """Unpacked bots go to this test's own cache, not the user's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def spring_built(tmp_path_factory) -> Path:
    """A folder with a ladder `spring` (random_bot and lemur-pro listed, 4 games played), built once."""
    folder = tmp_path_factory.mktemp("spring")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(folder / "cache"))
        ledger = Ledger(str(folder / "league.db"))
        ladder_rows.create(ledger, "spring", GAME, 2)
        ladder.submit(ledger, "spring", BOTS / "random_bot.py", None, FAST)
        ladder.submit(ledger, "spring", BOTS / "heuristic_lemur_tails.py", "lemur-pro", FAST)
        sessions.play(ledger, "spring", 4, 0, FAST, "7")
        ledger.close()
    shutil.rmtree(folder / "cache")
    return folder


@pytest.fixture
def spring(spring_built, tmp_path) -> Path:
    """This test's own copy of the spring ladder's database (and its ledger key)."""
    for path in spring_built.iterdir():
        shutil.copy(path, tmp_path / path.name)
    return tmp_path / "league.db"


def counts(db: Path) -> dict[str, int]:
    """Rows of what a refused command must not write."""
    with closing(sqlite3.connect(db)) as connection:
        return {table: connection.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
                for table in ("ladders", "ladder_entries", "ladder_sessions", "ladder_events", "games", "bots")}


def refused(result, code: int, line: str) -> None:
    assert (result.exit_code, result.output) == (code, line + "\n"), result.output


# -- 1. a game id prefix has a minimum length ---------------------------------------------------------------------


def test_void_refuses_a_ladder_game_number_or_a_short_prefix_and_takes_four_characters(spring):
    """`ladder void spring 1` (a ladder game's number, or a one-character prefix that some game id starts with)
    voids nothing; an empty id is asked for; `replay show` takes the same rule; four characters are enough."""
    before = counts(spring)
    with closing(Ledger(str(spring), read_only=True)) as ledger:
        games = ladder_rows.game_ids(ledger, 1)
    short = f"'{games[0][:1]}' is too short for a game id: give the game id (at least 4 characters of it) as " \
            "`tourney games` and `ladder history` print it"
    refused(cli.invoke("ladder", "void", "spring", games[0][:1], "--reason", "x", "--db", spring), 1, f"error: {short}")
    refused(cli.invoke("ladder", "void", "spring", games[0][:3], "--reason", "x", "--db", spring), 1,
            f"error: {short.replace(repr(games[0][:1]), repr(games[0][:3]))}")
    refused(cli.invoke("ladder", "void", "spring", "", "--reason", "x", "--db", spring), 1,
            "error: give a game id, as `tourney games` and `ladder history` print it")
    refused(cli.invoke("replay", "show", games[0][:1], "--db", spring), 1, f"error: {short}")
    assert counts(spring) == before
    prefix = next(game[:game_rows.MIN_GAME_PREFIX] for game in games
                  if sum(other.startswith(game[:game_rows.MIN_GAME_PREFIX]) for other in games) == 1)
    voided = cli.invoke("ladder", "void", "spring", prefix, "--reason", "x", "--db", spring)
    assert voided.exit_code == 0 and voided.output.startswith(f"voided game {prefix}"), voided.output


# -- 2. ladder names ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["", "team/x", "<b>x</b>", "a\nb", "tab\tx", ".x", "x" * 65])
def test_create_refuses_a_name_outside_the_name_rule(tmp_path, name):
    """The names owners and bots follow: a bad value, exit 2; no database is made."""
    db = tmp_path / "league.db"
    refused(cli.invoke("ladder", "create", name, "--game", GAME, "--db", db), 2,
            f"error: Invalid value: ladder name {name!r} {NAME_RULE} (see `tourney ladder create --help`)")
    assert not db.exists()


@pytest.mark.parametrize("name", ["L1", "l7", "12"])
def test_create_refuses_a_name_shaped_like_a_short_id(spring, name):
    """`L1` (a ladder's id in `tourney list`) or `12` (a tournament's) would be read as another ladder's id."""
    before = counts(spring)
    refused(cli.invoke("ladder", "create", name, "--game", GAME, "--db", spring), 2,
            f"error: Invalid value: ladder name {name!r} reads as a short id (`tourney list` prints a ladder's as L1, "
            "a tournament's as 3): pick another name (see `tourney ladder create --help`)")
    assert counts(spring) == before


@pytest.mark.parametrize("name", ["Spring", "SPRING", "spr_ing", "s.pring"])
def test_create_refuses_a_name_that_reads_as_an_existing_ladders(spring, name):
    before = counts(spring)
    refused(cli.invoke("ladder", "create", name, "--game", GAME, "--db", spring), 1,
            f"error: the ladder name {name!r} reads as 'spring', a ladder already: pick another name")
    assert counts(spring) == before
    assert cli.invoke("ladder", "create", "summer", "--game", GAME, "--db", spring).exit_code == 0


def test_a_ladder_named_before_the_rule_keeps_working(tmp_path):
    """Only creation checks the name: a ladder an older tourney made as `L1` or `team/x` is still listed and read."""
    ledger = Ledger(str(tmp_path / "league.db"))
    for name in ("L1", "team/x"):
        ladder_rows.create(ledger, name, GAME, 2)
    ledger.close()
    for name in ("L1", "team/x"):
        shown = cli.invoke("ladder", "standings", name, "--json", "--db", tmp_path / "league.db")
        assert (shown.exit_code, shown.output) == (0, "[]\n"), shown.output


# -- 3. bot names the operator gives ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["", "a\nb", "esc\x1b[31m", "team//x", "/x", "team/", "team/.x", "x" * 65])
def test_submit_refuses_a_bot_name_outside_the_name_rule_before_any_game(spring, name):
    """The operator's bot names are the owners' rule, or its parts joined by "/" (team/bot: docs/web.md)."""
    before = counts(spring)
    refused(cli.invoke("ladder", "submit", "spring", BOTS / "first_legal.sh", "--as", name, "--db", spring), 2,
            f"error: Invalid value: bot name {name!r} {TEAM_RULE} (see `tourney ladder submit --help`)")
    assert counts(spring) == before


def test_submit_refuses_a_file_name_that_is_no_bot_name_and_says_to_pass_as(spring, tmp_path):
    path = tmp_path / "my bot.py"
    shutil.copy(BOTS / "random_bot.py", path)
    before = counts(spring)
    refused(cli.invoke("ladder", "submit", "spring", path, "--db", spring), 2,
            f"error: Invalid value: bot name 'my bot' {TEAM_RULE}; it comes from the file name 'my bot.py': name the "
            "bot with --as (see `tourney ladder submit --help`)")
    assert counts(spring) == before


@pytest.mark.parametrize(("name", "existing"), [("lemur_pro", "lemur-pro"), ("LEMUR-PRO", "lemur-pro"),
                                                ("RANDOM-BOT", "random_bot"), ("Random.Bot", "random_bot")])
def test_submit_refuses_a_new_bot_name_that_reads_as_another_bots(spring, name, existing):
    """docs/ladders.md "Names": beside lemur-pro, LEMUR-PRO and lemur_pro are refused, naming lemur-pro."""
    before = counts(spring)
    refused(cli.invoke("ladder", "submit", "spring", BOTS / "first_legal.sh", "--as", name, "--db", spring), 1,
            f"error: the bot name {name!r} reads as {existing!r}, a bot this league runs already: submit under "
            f"{existing!r} (a new version of it) or pick another name")
    assert counts(spring) == before


def test_submit_refuses_a_bot_for_another_game_naming_the_game_a_typo_meant(spring, tmp_path):
    """A bot whose GAMES names no game but one close to the ladder's (lemur-tail) is refused before any game, the
    refusal saying which game it likely meant; nothing is stored."""
    path = tmp_path / "typo.py"
    path.write_text((BOTS / "random_bot.py").read_text().replace('GAMES = "*"', 'GAMES = ("lemur-tail",)'))
    assert 'GAMES = ("lemur-tail",)' in path.read_text()
    before = counts(spring)
    refused(cli.invoke("ladder", "submit", "spring", path, "--db", spring), 1,
            "error: typo.py plays lemur-tail, not lemur-tails (no game is named lemur-tail: did you mean lemur-tails?)")
    assert counts(spring) == before


def test_a_new_version_under_the_same_exact_name_is_listed(spring):
    """The look-alike rule is about another bot: new content under a name's own spelling is its next version."""
    listed = cli.invoke("ladder", "submit", "spring", BOTS / "first_legal.sh", "--as", "lemur-pro", "--db", spring)
    assert listed.exit_code == 0 and listed.output.splitlines()[-1] == (
        "listed lemur-pro v2 on spring (v1 retired from matchmaking)"), listed.output


# -- 4. --bot-logs is checked before anything is played ---------------------------------------------------------------


@pytest.mark.parametrize("command", [["play", "spring", "--games", "2"], ["work", "spring", "--rounds", "1"]])
@pytest.mark.parametrize("where", ["a file", "/proc/nope"])
def test_a_bot_logs_folder_that_cannot_be_made_refuses_before_any_session(spring, tmp_path, command, where):
    """A file in its place, or a folder that cannot be made: one line, exit 1, no session opened (so no seed left
    unrevealed) and no game played."""
    target = tmp_path / "afile" if where == "a file" else Path(where)
    if where == "a file":
        target.write_text("mine\n")
    reason = ("a file is there, not a folder" if where == "a file"
              else "cannot make the folder (No such file or directory)")
    before = counts(spring)
    refused(cli.invoke("ladder", *command, "--jobs", "0", "--bot-logs", target, "--db", spring), 1,
            f"error: cannot write bot logs to {target}: {reason}")
    assert counts(spring) == before
    assert where != "a file" or target.read_text() == "mine\n"


def test_bot_logs_go_to_a_folder_made_before_the_games(spring, tmp_path):
    logs = tmp_path / "logs" / "spring"
    played = cli.invoke("ladder", "play", "spring", "--games", "2", "--jobs", "0", "--bot-logs", logs, "--db", spring)
    assert played.exit_code == 0 and logs.is_dir(), played.output


# -- 5. a ladder too small to play opens no session -------------------------------------------------------------------


def test_play_on_a_ladder_with_too_few_bots_opens_no_session(spring):
    assert cli.invoke("ladder", "retire", "spring", "lemur-pro", "--db", spring).exit_code == 0
    before = counts(spring)
    refused(cli.invoke("ladder", "play", "spring", "--games", "2", "--jobs", "0", "--db", spring), 1,
            "error: ladder 'spring' needs 2 active bots to play, it has 1: submit more with `tourney ladder submit`")
    assert counts(spring) == before and before["ladder_sessions"] == 1  # the fixture's own session only


# -- 6. messages ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["void", "spring", "abcd", "--reason", "x"], ["rebuild", "spring"],
                                     ["play", "spring"], ["submit", "spring", str(BOTS / "random_bot.py")],
                                     ["retire", "spring", "random_bot"]])
def test_a_missing_database_is_named_as_every_command_names_it(tmp_path, command):
    """As `tourney standings --db missing.db` says it; no database is made."""
    db = tmp_path / "missing.db"
    refused(cli.invoke("ladder", *command, "--db", db), 1, f"error: no database at {db}")
    standings = cli.invoke("standings", "--db", db)
    assert standings.exit_code == 1 and standings.output == f"error: no database at {db}\n"
    assert not db.exists()


def test_the_worker_says_a_resubmission_of_the_same_content_was_listed_already(tmp_path):
    """`ladder work` on two uploads of the same content under one name: the second is no new version, and says so,
    as its reason in the API does."""
    db = tmp_path / "league.db"
    ledger = Ledger(str(db))
    ladder_rows.create(ledger, "spring", GAME, 2)
    owner_rows.add(ledger, "alice", owner_tokens.token_hash(owner_tokens.new_token()))
    upload = (BOTS / "random_bot.py").read_bytes()
    first, second = (submission_rows.add(ledger, 1, 1, "alices", "random_bot.py", "random_bot.py", upload)
                     for _ in range(2))
    ledger.close()
    worked = cli.invoke("ladder", "work", "spring", "--rounds", "1", "--jobs", "0", "--idle", "0.1", "--db", db)
    assert worked.exit_code == 0, worked.output
    lines = worked.output.splitlines()
    assert f"submission {first}: listed alices v1 (owner alice)" in lines
    assert f"submission {second}: alices v1 (owner alice) was listed already with this content: no new version" \
        in lines
    with closing(Ledger(str(db), read_only=True)) as ledger:
        assert submission_rows.get(ledger, second)["reason"] == "the same content was already listed"


# -- 7. bad option values exit 2 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("args", "line"), [
    (["create", "autumn", "--game", GAME, "--divisions", "gold"],
     "--divisions needs at least two names, lowest first (e.g. bronze,silver,gold), not 'gold'"),
    (["create", "autumn", "--game", GAME, "--divisions", "a,a"], "--divisions names a division twice: 'a,a'"),
    (["create", "autumn", "--game", GAME, "--divisions", "a,,b"], "--divisions has an empty name: 'a,,b'"),
    (["create", "autumn", "--game", GAME, "--rating", "glicko"], "--rating is elo or openskill, not 'glicko'"),
    (["submit", "spring", str(BOTS / "random_bot.py"), "--description", "x" * 201],
     "--description is at most 200 characters, not 201"),
])
def test_a_bad_option_value_exits_2(spring, args, line):
    before = counts(spring)
    refused(cli.invoke("ladder", *args, "--db", spring), 2,
            f"error: Invalid value: {line} (see `tourney ladder {args[0]} --help`)")
    assert counts(spring) == before
