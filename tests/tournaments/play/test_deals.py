"""Deal books (tournaments/play/deal_books.py): `tourney deals new`, and `run --deals` / `match --deals`, where every
pairing plays exactly the book's deals from every seat rotation, a resume keeps the book, and a bad book is one
line naming the file and the line."""

from __future__ import annotations

import functools
import shutil
import sqlite3
from collections import defaultdict
from contextlib import closing
from pathlib import Path

import pytest

from ledger.store import Ledger
from tests import cli
from tests.tournaments.play.test_protocol import SHIPPED, make_folder
from tournaments.play import deal_books, formats, runner
from tournaments.play.candidate_match import Match
from tournaments.play.runner import Spec
from tournaments.play.schedule import ScheduleError

invoke = functools.partial(cli.invoke, width=200)


def book_file(tmp_path: Path, game: str, count: int, name: str = "book.deals", seed: str = "7") -> Path:
    path = tmp_path / name
    result = invoke("deals", "new", str(count), "--game", game, "--out", str(path), "--seed", seed)
    assert result.exit_code == 0, result.output
    return path


def played(db: Path) -> list[tuple[str, str, tuple[str, ...]]]:
    """(key, seed, bots by seat) of every stored game, from the ledger's rows and its hashed seats."""
    ledger = Ledger(str(db))
    try:
        with ledger.read() as connection:
            rows = list(connection.exec_driver_sql("SELECT id, game_key, seed FROM games ORDER BY game_key"))
        return [(key, seed, tuple(s["bot"] for s in ledger.seats(game_id))) for game_id, key, seed in rows]
    finally:
        ledger.close()


def assert_every_pairing_played_the_book(games, book: tuple[str, ...], tables: int, seats: int) -> None:
    """Each table (a set of bots) played each of the book's deals once from each cyclic rotation of its seats,
    and nothing else."""
    by_table: dict[frozenset[str], set[tuple[str, tuple[str, ...]]]] = defaultdict(set)
    for _key, seed, bots in games:
        by_table[frozenset(bots)].add((seed, bots))
    assert len(by_table) == tables and len(games) == tables * len(book) * seats
    for deals_played in by_table.values():
        first = min(bots for _seed, bots in deals_played)
        rotations = {first[r:] + first[:r] for r in range(seats)}
        assert deals_played == {(seed, seating) for seed in book for seating in rotations}


# -- tourney deals new --------------------------------------------------------------------------


def test_deals_new_writes_a_book_and_says_where(tmp_path, monkeypatch):
    """`deals new N --game G` writes <game>-<N>.deals here, N distinct seeds for G, and says where in one line."""
    monkeypatch.chdir(tmp_path)
    result = invoke("deals", "new", "5", "--game", "nine-tails")
    assert result.exit_code == 0 and result.stdout == "wrote 5 deals of nine-tails to nine-tails-5.deals\n"
    book = deal_books.read(tmp_path / "nine-tails-5.deals", "nine-tails")
    assert len(set(book.seeds)) == 5 and all(len(seed) == 64 for seed in book.seeds)
    again = invoke("deals", "new", "5", "--game", "nine-tails", "--out", "other.deals")
    assert again.exit_code == 0 and deal_books.read(tmp_path / "other.deals", "nine-tails").seeds != book.seeds


def test_a_seeded_book_is_the_same_every_time(tmp_path):
    """`--seed` derives the deals: the same book from the same seed, another from another."""
    first, second = book_file(tmp_path, "lemur-tails", 4, "a.deals"), book_file(tmp_path, "lemur-tails", 4, "b.deals")
    other = book_file(tmp_path, "lemur-tails", 4, "c.deals", seed="8")
    assert first.read_text() == second.read_text() != other.read_text()


def test_deals_new_never_overwrites(tmp_path):
    """A file already there is refused in one line, and left as it was."""
    path = tmp_path / "mine.deals"
    path.write_text("my notes\n")
    result = invoke("deals", "new", "3", "--game", "lemur-tails", "--out", str(path))
    assert result.exit_code == 1 and result.output == f"error: {path} exists: give another --out (or remove it)\n"
    assert path.read_text() == "my notes\n"


@pytest.mark.parametrize(("args", "code", "expected"), [
    (["0", "--game", "lemur-tails"], 2, "0 is out of range: deals from 1"),
    (["3", "--game", "chess"], 1, "unknown game 'chess'"),
])
def test_deals_new_refuses_a_bad_count_or_game(tmp_path, args, code, expected):
    """A count below 1 is a usage error; an unknown game names the known ones; nothing is written."""
    result = invoke("deals", "new", *args, "--out", str(tmp_path / "x.deals"))
    assert result.exit_code == code and expected in result.output and not (tmp_path / "x.deals").exists()


# -- a bad book ---------------------------------------------------------------------------------

HEAD = '[Format "tourney-deals"]\n[FormatVersion 1]\n[Game "lemur-tails"]\n\n'


@pytest.mark.parametrize(("content", "expected"), [
    (None, "{book}: cannot read: No such file or directory"),
    (b"\xff\xfe", "{book}: line 1: not UTF-8 text"),
    (b'{"deals": []}', '{book}: line 1: not a deal book: expected [Format "tourney-deals"] first, found'),
    (HEAD.replace("lemur-tails", "nine-tails").encode() + b"abc\n",
     "{book}: line 3: a deal book of 'nine-tails', not lemur-tails (make one with `tourney deals new N --game "
     "lemur-tails`)"),
    (HEAD.encode() + b"abc\nab c\n", "{book}: line 6: expected a deal seed (printable characters without spaces"),
    (HEAD.encode() + b"abc\ndef\nabc\n", "{book}: line 7: this seed is on line 5 too: a book holds each deal once"),
    (HEAD.encode() + b"abc\n[Game \"lemur-tails\"]\n", "{book}: line 6: a tag after the seeds"),
    (HEAD.replace("[FormatVersion 1]", "[FormatVersion 2]").encode() + b"abc\n",
     "{book}: line 2: deal book format version 2 is newer than this tourney reads (1); upgrade tourney"),
    (HEAD.replace('[Game "lemur-tails"]', '[Colour "red"]').encode(), "{book}: line 3: unknown tag Colour"),
    (HEAD.encode(), "{book}: line 5: no deal seeds: a deal book holds at least one"),
])
def test_a_bad_book_is_one_line_naming_the_file_and_line(tmp_path, content, expected):
    """A missing, unreadable, foreign, wrong-game or malformed book stops the run before any game, in one line
    naming the file (and the line), exit 1; no database is made."""
    path = tmp_path / "book.deals"
    if content is not None:
        path.write_bytes(content)
    folder = make_folder(tmp_path)
    db = tmp_path / "t.db"
    result = invoke("run", str(folder), "--game", "lemur-tails", "--deals", str(path), "--db", str(db),
                    "--sandbox", "off")
    assert result.exit_code == 1
    assert result.stderr.startswith("error: " + expected.format(book=path)), result.stderr
    assert len(result.stderr.splitlines()) == 1 and not db.exists()


def test_a_folder_as_book_is_refused(tmp_path):
    """A folder given as the book is one line naming it."""
    folder = make_folder(tmp_path)
    result = invoke("run", str(folder), "--game", "lemur-tails", "--deals", str(tmp_path), "--db",
                    str(tmp_path / "t.db"))
    assert result.exit_code == 1 and result.stderr == f"error: {tmp_path}: cannot read: Is a directory\n"


def test_games_beyond_the_book_are_refused(tmp_path):
    """`--games N` plays the book's first N deals; more than it holds is one line."""
    path = book_file(tmp_path, "lemur-tails", 2)
    result = invoke("run", str(make_folder(tmp_path)), "--game", "lemur-tails", "--deals", str(path), "--games", "3",
                    "--db", str(tmp_path / "t.db"), "--sandbox", "off")
    assert result.exit_code == 1 and result.stderr == f"error: {path} holds 2 deals: --games 3 asks for more\n"


# -- every pairing plays the book -------------------------------------------------------------------


@pytest.mark.slow
def test_every_pairing_plays_exactly_the_books_deals_from_every_rotation(tmp_path):
    """A round robin of four bots at three seats (four tables) with a book of three deals: each table plays each
    deal of the book once from each of its three rotations, and no other deal; the games verify."""
    path = book_file(tmp_path, "nine-tails", 3)
    folder = make_folder(tmp_path, good=4)
    db = tmp_path / "t.db"
    result = invoke("run", str(folder), "--game", "nine-tails", "--players", "3", "--deals", str(path), "--seed", "1",
                    "--jobs", "1", "--sandbox", "off", "--db", str(db), "--progress", "none")
    assert result.exit_code == 0, result.output
    book = deal_books.read(path, "nine-tails").seeds
    assert_every_pairing_played_the_book(played(db), book, tables=4, seats=3)
    assert invoke("replay", "verify", "--db", str(db), "-q").exit_code == 0


@pytest.mark.slow
def test_a_resumed_run_keeps_its_book(tmp_path):
    """A run interrupted after three games resumes without --deals and plays the rest of its book; another book is
    refused with one line; the same book is accepted; the finished tournament played exactly the book."""
    path = book_file(tmp_path, "lemur-tails", 3)
    folder = make_folder(tmp_path, good=3)
    db = tmp_path / "t.db"
    command = ["run", str(folder), "--game", "lemur-tails", "--seed", "1", "--jobs", "0", "--sandbox", "off",
               "--db", str(db), "--progress", "none"]
    book = deal_books.read(path, "lemur-tails")
    bots = sorted(spec.name for spec in _bots(folder))
    ledger = Ledger(str(db))
    spec = Spec("lemur-tails", 2, 3, "1", 1.0, 5.0, tuple(_bots(folder)), deals=book.seeds)
    the_run = runner.open_run(ledger, None, spec, False, runner.default_namer(folder, "lemur-tails"))

    def ctrl_c_after_three(stored: int) -> None:
        if stored == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        runner.execute(ledger, the_run, 0, ctrl_c_after_three)
    ledger.close()
    assert len(played(db)) == 3 and bots == ["random_b", "random_bot", "random_c"]
    other = book_file(tmp_path, "lemur-tails", 3, "other.deals", seed="8")
    refused = invoke(*command, "--resume", "--deals", str(other))
    assert refused.exit_code == 1 and refused.stderr == (
        f"error: cannot resume {the_run.name!r} with this deal book (3 deals, the first "
        f"{deal_books.read(other, 'lemur-tails').seeds[0][:12]}…): it plays the one it was started with (3 deals, the "
        f"first {book.seeds[0][:12]}…); resume it without --deals and it keeps its own\n")
    resumed = invoke(*command, "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert "18 games (3 already stored)" in resumed.stdout
    assert f"\ndeal book: 3 deals (the first {book.seeds[0][:12]}…), each from every seat rotation\n" in resumed.stdout
    assert_every_pairing_played_the_book(played(db), book.seeds, tables=3, seats=2)
    again = invoke(*command, "--resume", "--deals", str(path))
    assert again.exit_code == 0 and "18 games (18 already stored)" in again.stdout


def test_a_book_cannot_join_a_tournament_started_without_one(tmp_path):
    """--deals on the resume of a tournament dealt from its seed is refused in one line."""
    folder = make_folder(tmp_path)
    db = tmp_path / "t.db"
    command = ["run", str(folder), "--game", "lemur-tails", "--seed", "1", "--games", "1", "--jobs", "0", "--sandbox",
               "off", "--db", str(db), "--progress", "none", "--name", "plain"]
    assert invoke(*command).exit_code == 0
    refused = invoke(*command, "--resume", "--deals", str(book_file(tmp_path, "lemur-tails", 1)))
    assert refused.exit_code == 1 and refused.stderr == (
        "error: cannot resume 'plain' with --deals: it was started without a deal book (its deals come from its "
        "seed); resume it without --deals\n")


def _bots(folder: Path):
    from tournaments.bots.discovery import discover

    return discover(folder, "lemur-tails")[0]


@pytest.mark.slow
def test_a_match_plays_the_book_and_its_audit_holds(tmp_path):
    """`match --deals`: deal d of the match is the book's d-th (both seats), the match ends with the book, and
    `replay verify --db` (the schedule's seeds included) passes; a changed seed row fails it."""
    path = book_file(tmp_path, "lemur-tails", 4)
    shutil.copy(SHIPPED / "random_bot.py", tmp_path / "new.py")
    shutil.copy(SHIPPED / "random_bot.py", tmp_path / "old.py")
    db = tmp_path / "m.db"
    result = invoke("match", str(tmp_path / "new.py"), str(tmp_path / "old.py"), "--game", "lemur-tails", "--deals",
                    str(path), "--seed", "2", "--jobs", "0", "--sandbox", "off", "--db", str(db), "--progress", "none")
    assert result.exit_code == 0, result.output
    assert "at most 8 games" in result.stdout and "Stopped: all 4 deals played (8 games)" in result.stdout
    assert "\ndeal book: 4 deals (the first " in result.stdout
    book = deal_books.read(path, "lemur-tails").seeds
    assert {(key, seed) for key, seed, _bots in played(db)} == {
        (f"t0-d{deal}-r{rotation}", book[deal]) for deal in range(4) for rotation in range(2)}
    assert invoke("replay", "verify", "--db", str(db), "-q").exit_code == 0
    export = tmp_path / "export"
    assert invoke("replay", "export", "--tournament", "1", "--out", str(export), "--db", str(db)).exit_code == 0
    assert invoke("replay", "verify", str(export), "-q").exit_code == 0  # the manifest checks each seed by the book


def test_a_tournament_whose_spec_book_was_changed_fails_its_audit(tmp_path):
    """The book is in the stored spec: a spec whose book no longer gives the games' seeds fails `replay verify
    --db`, naming the game."""
    path = book_file(tmp_path, "lemur-tails", 1)
    db = tmp_path / "t.db"
    assert invoke("run", str(make_folder(tmp_path)), "--game", "lemur-tails", "--deals", str(path), "--seed", "1",
                  "--jobs", "0", "--sandbox", "off", "--db", str(db), "--progress", "none").exit_code == 0
    seed = deal_books.read(path, "lemur-tails").seeds[0]
    with closing(sqlite3.connect(db)) as connection:
        connection.execute("UPDATE tournaments SET spec = replace(spec, ?, ?)", (seed, "f" * 64))
        connection.commit()
    forged = invoke("replay", "verify", "--db", str(db))
    assert forged.exit_code == 1
    assert "it was not dealt from the seed its key t0-d0-r0 names in the tournament's deal book" in forged.output


# -- the plans -------------------------------------------------------------------------------------


class Entrants:
    def __init__(self, bots, players, games, deals):
        self.bot_names, self.players, self.games, self.seed, self.deals = list(bots), players, games, "s", deals


BOOK = ("alpha", "beta", "gamma")


def test_gauntlet_and_swiss_tables_play_the_book_in_every_round():
    """Every format deals from the book: the gauntlet's tables and every table of every Swiss round play deal d as
    the book's d-th."""
    names = [f"bot{i}" for i in range(6)]
    gauntlet = formats.Gauntlet("bot0").plan(Entrants(names, 3, 2, BOOK)).next_stage({})
    assert {(game.deal, game.seed) for game in gauntlet} == {(0, "alpha"), (1, "beta")}
    plan = formats.Swiss(3).plan(Entrants(names, 2, 3, BOOK))
    stored: dict = {}
    while (stage := plan.next_stage(stored)) is not None:
        assert {(game.deal, game.seed) for game in stage} == set(enumerate(BOOK))
        stored.update({game.key: [(bot, seat + 1) for seat, bot in enumerate(game.bots)] for game in stage})


def test_a_plan_cannot_ask_for_more_deals_than_the_book_holds():
    """A spec of more deals than its book holds cannot make a plan (the library's own guard)."""
    with pytest.raises(ScheduleError, match="the deal book holds 3 deals: there is no deal 4 to play"):
        formats.RoundRobin().plan(Entrants(["a", "b"], 2, 4, BOOK))
    match = Match("a", ("b",))
    with pytest.raises(ScheduleError, match="no deal 4"):
        match.plan(Entrants(["a", "b"], 2, 4, BOOK)).next_stage({})
