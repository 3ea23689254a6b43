"""The library under the CLI (issue 42 item 2, docs/library.md): ``tournaments.run_tournament``, ``run_match`` and
``verify`` take plain arguments, print nothing and return what the commands print; and `replay verify --db` streams
a ledger's games (issue 39 item 4): the verifier draws game ids as it goes, never a list of them all.

Real bots (copies of bots/random_bot.py, unsandboxed, played in this process) and real SQLite files."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import tournaments
from ledger.rows import game_rows, tournament_rows
from ledger.store import Ledger
from replays import game_audit
from tests import cli
from tests.tournaments.play.test_protocol import GAME, make_folder
from tournaments.library import verification
from tournaments.play.executors.choice import Local
from tournaments.play.play_errors import TournamentError

QUIET = {"jobs": 0, "sandbox": "off", "seed": "1"}


@pytest.fixture
def played(tmp_path):
    """A finished round robin of three bots at Lemur Tails, one deal a table: six games in t.db."""
    folder = make_folder(tmp_path, good=3)
    db = tmp_path / "t.db"
    result = tournaments.run_tournament(folder, GAME, games=1, db=str(db), **QUIET)
    return folder, db, result


class Counting(tournaments.Observer):
    def __init__(self) -> None:
        self.games: list[str] = []
        self.opened = 0

    def started(self, started) -> None:
        self.opened += 1

    def game(self, result) -> None:
        self.games.append(result.key)


def test_run_tournament_returns_the_standings_tells_each_game_and_prints_nothing(tmp_path, capfd):
    folder = make_folder(tmp_path, good=3)
    db = tmp_path / "t.db"
    told = Counting()
    result = tournaments.run_tournament(folder, GAME, games=1, db=str(db), observer=told, **QUIET)
    printed = capfd.readouterr()
    assert (printed.out, printed.err) == ("", "")
    assert result.stored == result.total == 6 and len(told.games) == 6 and told.opened == 1
    assert result.name == "bots-lemur-tails-seed1" and result.revealed is None
    assert sorted(row.bot for row in result.standings.rows) == ["random_b", "random_bot", "random_c"]
    assert sum(row.games for row in result.standings.rows) == 12  # six games, two seats each
    # what `tourney standings --json` prints of the same tournament, from the database alone
    shown = json.loads(cli.invoke("standings", result.name, "--json", "--db", db).stdout)
    assert shown == json.loads(json.dumps(result.standings.to_json()))
    assert result.first_game in {row[0] for row in _ids(db)}


def test_run_tournament_refuses_to_start_the_same_tournament_twice_and_resumes_it(played):
    folder, db, first = played
    with pytest.raises(TournamentError, match="already exists"):
        tournaments.run_tournament(folder, GAME, games=1, db=str(db), **QUIET)
    again = tournaments.run_tournament(folder, GAME, games=1, db=str(db), resume=True, **QUIET)
    assert again.stored == 0 and again.standings.to_json() == first.standings.to_json()


def test_run_match_returns_its_statistics(tmp_path, capfd):
    folder = make_folder(tmp_path, good=2)
    result = tournaments.run_match("random_bot", "random_b", GAME, folder=folder, games=2, db=str(tmp_path / "m.db"),
                                   **QUIET)
    printed = capfd.readouterr()
    assert (printed.out, printed.err) == ("", "")
    stats = result.statistics
    assert result.stored == stats.games == 4 and stats.deals == 2
    assert stats.wins + stats.draws + stats.losses == 4
    assert (stats.candidate, stats.baseline) == ("random_bot", "random_b")


def test_verify_a_ledger_tells_every_game_in_order_and_returns_the_whole(played):
    _folder, db, result = played
    told = []
    found = tournaments.verify(db=str(db), jobs=0, on_game=told.append)
    assert found.ok and found.summary.games == 6 and found.summary.events > 6
    assert [verdict.game_id for verdict in told] == [row[0] for row in _ids(db)]
    assert {verdict.state for verdict in told} == {game_audit.OK}
    [scope] = found.scopes
    assert scope.name == f"tournament {result.name!r}" and scope.ok and scope.games == 6


def test_verify_logs_and_a_tampered_one(played, tmp_path):
    _folder, db, result = played
    logs = tmp_path / "logs"
    exported = cli.invoke("replay", "export", "--tournament", result.name, "--out", logs, "--db", db)
    assert exported.exit_code == 0, exported.output
    found = tournaments.verify([logs])
    assert found.ok and found.summary.games == 6
    assert [(path.name, problems) for path, problems in found.manifests] == [("tournament.manifest", [])]
    victim = sorted(logs.glob("*.json"))[2]
    log = json.loads(victim.read_text())
    log["seats"][0]["bot"] = "someone else"
    victim.write_text(json.dumps(log))
    failed = []
    found = tournaments.verify([logs], on_game=lambda verdict: verdict.report is None and failed.append(verdict))
    assert not found.ok and [verdict.name for verdict in failed] == [str(victim)]


def _ids(db):
    ledger = Ledger(str(db), read_only=True)
    try:
        with ledger.read() as connection:
            return connection.exec_driver_sql("SELECT id FROM games ORDER BY created_at, id").all()
    finally:
        ledger.close()


class Drawn:
    """A generator of game ids wrapped to count how many the verifier has drawn from it."""

    def __init__(self, ids) -> None:
        self.ids, self.drawn = ids, 0

    def __iter__(self):
        for game_id in self.ids:
            self.drawn += 1
            yield game_id


@pytest.mark.parametrize("pool", [None, 2], ids=["here", "pool"])
def test_verify_draws_game_ids_as_it_goes_never_a_list_of_them_all(played, monkeypatch, pool):
    """With chunks (here) and windows (a pool) of two games, when the first verdict is told at most two of the six
    ids were drawn from the ledger's stream, and the stream is drawn once, to its end: had the verifier listed the
    games first, it would have drawn all six before telling any."""
    _folder, db, _result = played
    monkeypatch.setattr(game_audit, "CHUNK", 2)
    monkeypatch.setattr(game_audit, "WINDOW", 2)
    streams: list[Drawn] = []
    real = game_rows.ids_in_order

    def counted(*args, **kwargs):
        streams.append(Drawn(real(*args, **kwargs)))
        return iter(streams[-1])

    monkeypatch.setattr(verification.game_rows, "ids_in_order", counted)
    drawn_at: list[int] = []
    found = verification.verify(db=str(db), jobs=0 if pool is None else None,
                                pool=None if pool is None else Local(pool),
                                on_game=lambda _verdict: drawn_at.append(streams[0].drawn))
    assert found.ok and len(streams) == 1
    assert drawn_at[0] <= 2 < 6 == len(drawn_at) == streams[0].drawn
    assert drawn_at == sorted(drawn_at)


def test_game_ids_are_read_from_the_ledger_a_page_at_a_time_in_the_commands_order(played, monkeypatch):
    _folder, db, result = played
    ledger = Ledger(str(db), read_only=True)
    reads = []
    real = ledger.read

    def counted_read(*args, **kwargs):
        reads.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(ledger, "read", counted_read)
    row = tournament_rows.get(ledger, result.name)
    expected = {"all": ledger.game_ids(), "tournament": tournament_rows.game_ids(ledger, row["id"])}
    reads.clear()
    assert list(game_rows.ids_in_order(ledger, page=2)) == expected["all"]
    assert len(reads) == 4  # pages of 2, 2, 2 and an empty one
    assert list(game_rows.ids_in_order(ledger, tournament_id=row["id"], page=4)) == expected["tournament"]
    assert len(expected["all"]) == 6
    ledger.close()


def test_importing_tournaments_imports_no_database_until_a_call_is_named():
    code = ("import sys, tournaments\n"
            "assert 'sqlalchemy' not in sys.modules and 'ledger.store' not in sys.modules\n"
            "from tournaments.library import runs\n"
            "assert tournaments.run_tournament is runs.run_tournament and tournaments.verify.__module__ == "
            "'tournaments.library.verification'\n"
            "assert 'ledger.store' in sys.modules\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_ctrl_c_while_playing_is_an_interrupted_that_counts_what_was_stored(tmp_path, monkeypatch):
    """Ctrl-C in the store loop (tournaments.play.runner.execute, as test_cli_frictions.py stops it) reaches the
    caller as Interrupted, a KeyboardInterrupt naming the games stored and the total; resume=True finishes it."""
    from tournaments.library.runs import Interrupted
    from tournaments.play import runner

    folder = make_folder(tmp_path, good=2)
    db = str(tmp_path / "t.db")
    real = runner.execute

    def stopped(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "execute", stopped)
    with pytest.raises(Interrupted) as caught:
        tournaments.run_tournament(folder, GAME, games=1, db=db, **QUIET)
    assert isinstance(caught.value, KeyboardInterrupt)
    assert (caught.value.name, caught.value.stored, caught.value.total) == ("bots-lemur-tails-seed1", 0, 2)
    monkeypatch.setattr(runner, "execute", real)
    assert tournaments.run_tournament(folder, GAME, games=1, db=db, resume=True, **QUIET).stored == 2
