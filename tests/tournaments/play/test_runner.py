"""The tournament runner as processes: resume after SIGKILL and Ctrl-C, --jobs, and the CLI's answers.

Real `python -m tournaments run` processes and real SQLite files in tmp_path; quick CLI checks
run the command in this process. The interrupted tournaments pit bots/random_bot.py against the
program bot bots/random_program.bot.json, so that stopping the runner must also stop bot processes.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager, suppress
from dataclasses import replace
from pathlib import Path

import pytest

from ledger.canonical import loads
from ledger.store import Ledger
from tests import cli
from tests.tournaments.play.test_protocol import (  # _reap_bots: autouse here too
    FIXTURES,
    GAME,
    SHIPPED,
    _reap_bots,  # noqa: F401
    make_folder,
    recorded_pids,
    run,
    standings_of,
    stored_games,
    wait_gone,
)
from tournaments.bots.discovery import discover
from tournaments.play.schedule import schedule

LINUX = Path("/proc/self/stat").exists()


# -- helpers ------------------------------------------------------------------------------


def program_folder(tmp_path: Path, *, dawdling: bool = False) -> Path:
    """bots/random_bot.py and the program bot bots/random_program.bot.json (with its program); ``dawdling``:
    random_bot.py is the dawdler instead (see ``dawdle``)."""
    folder = make_folder(tmp_path, good=1, shipped=("random_program.bot.json",))
    (folder / "programs").mkdir()
    shutil.copy(SHIPPED / "programs" / "random_player.py", folder / "programs" / "random_player.py")
    if dawdling:
        dawdle(folder / "random_bot.py")
    return folder


def dawdle(bot: Path) -> None:
    """Make ``bot`` the dawdler (tests/tournaments/bots/dawdler.py: a random bot that waits a quarter second
    before each game's first move), so that a run with it at every table cannot end before
    ``wait_until_partly_stored`` has seen some of its games stored."""
    shutil.copy(FIXTURES / "dawdler.py", bot)


def command(folder: Path, db: Path, games: int, seed: str = "5", jobs: int = 2) -> list[str]:
    return ["run", str(folder), "--game", GAME, "--games", str(games), "--seed", seed, "--jobs", str(jobs),
            "--db", str(db)]


@contextmanager
def start(args: list[str], tmp_path: Path, **options) -> Iterator[subprocess.Popen]:
    """`python -m tournaments ARGS` as a real process; if a failed test leaves it running, it is
    killed with everything below it."""
    process = cli.spawn(*args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path, **options)
    try:
        yield process
    finally:
        if process.poll() is None:
            for pid in descendants(process.pid):
                with suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            process.kill()
        process.wait()
        process.stdout.close()
        process.stderr.close()


def stored_count(db: Path) -> int:
    """Games stored so far, read without disturbing the writer (0 before the schema exists)."""
    if not db.exists():
        return 0
    try:
        with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)) as connection:
            return connection.execute("SELECT count(*) FROM games").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def wait_until_partly_stored(process: subprocess.Popen, db: Path, total: int) -> int:
    """Poll the database until some but not all games are stored; the count then."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        stored = stored_count(db)
        if 2 <= stored < total:
            return stored
        assert process.poll() is None, f"the run ended before it could be interrupted: {process.communicate()}"
        time.sleep(0.01)
    raise AssertionError("no game was stored in time")


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (children, their children, ...), from /proc."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def spawned(pid: int) -> list[int]:
    """The processes below ``pid`` that multiprocessing started (its workers and resource tracker)."""
    out = []
    for child in descendants(pid):
        with suppress(OSError):
            if b"multiprocessing" in Path(f"/proc/{child}/cmdline").read_bytes():
                out.append(child)
    return out


def results_by_key(db: Path) -> dict[str, tuple[tuple[str, ...], tuple[int, ...], str]]:
    """Per game key: the bots by seat, their ranks and the end reason."""
    return {key: (game.bots, game.ranking, game.reason) for key, game in stored_games(db).items()}


def key_counts(db: Path) -> dict[str, int]:
    with closing(sqlite3.connect(db)) as connection:
        assert connection.execute("SELECT count(*) FROM games WHERE status != 'finished'").fetchone()[0] == 0
        return dict(connection.execute("SELECT game_key, count(*) FROM games GROUP BY game_key").fetchall())


def standings_json(db: Path, ref: str = "1") -> dict:
    result = cli.invoke("standings", ref, "--json", "--db", str(db))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def same_results(db: Path, other: Path) -> bool:
    """Whether two databases give the same standings, apart from what differs between any two ledgers by
    design: their keys, and the checkpoints over their games (whose ids are random)."""
    mine, theirs = standings_json(db), standings_json(other)
    mine.pop("integrity"), theirs.pop("integrity")
    return mine == theirs and replace(standings_of(db), trust=None) == replace(standings_of(other), trust=None)


# -- 5. resume after a kill and after Ctrl-C ----------------------------------------------


@pytest.mark.slow
@pytest.mark.skipif(not LINUX, reason="the runner's workers die with it through Linux's PR_SET_PDEATHSIG")
def test_a_tournament_killed_with_sigkill_resumes_to_the_results_of_an_uninterrupted_run(tmp_path):
    """SIGKILL mid-run takes the workers and bot processes down with the runner; the same command plus
    --resume stores each scheduled game exactly once, with the rankings and standings of a run that
    was never interrupted."""
    folder = program_folder(tmp_path, dawdling=True)
    games = 10
    keys = {g.key for g in schedule(["random_bot", "random_program"], 2, games, "5")}
    db = tmp_path / "killed.db"
    with start(command(folder, db, games), tmp_path) as process:
        wait_until_partly_stored(process, db, len(keys))
        below = descendants(process.pid)
        process.kill()
        process.wait()
        assert len(below) >= 2, "the run had no worker processes"
        # A process that truly outlives the run is there for good: the report says what each one was.
        report: list[str] = []
        left = wait_gone(below, report=report)
        assert left == [], f"workers or bots outlived the killed runner: {report}"
    before = stored_count(db)
    assert 2 <= before < len(keys)

    with start([*command(folder, db, games), "--resume"], tmp_path) as process:
        out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    assert f"({before} already stored)" in out

    counts = key_counts(db)
    assert set(counts) == keys and set(counts.values()) == {1}
    reference = tmp_path / "reference.db"
    result = cli.invoke(*command(folder, reference, games, jobs=1))
    assert result.exit_code == 0, result.output
    assert results_by_key(db) == results_by_key(reference)
    assert same_results(db, reference)


@pytest.mark.slow
@pytest.mark.skipif(not LINUX, reason="the runner's workers die with it through Linux's PR_SET_PDEATHSIG")
def test_killing_the_runner_mid_game_takes_its_workers_and_bots_down_at_once(tmp_path):
    """SIGKILL to the runner while both workers wait on a bot with 30 s to answer: the workers, the
    bots and what the bots started are all gone within seconds, not when the games would end."""
    folder = make_folder(tmp_path, good=1, programs={"hang": ["hang", "1"]})
    db = tmp_path / "t.db"
    args = [*command(folder, db, 1), "--move-time", "30", "--time-bank", "0", "--sandbox", "off"]
    with start(args, tmp_path) as process:
        deadline = time.monotonic() + 60
        while len(list((folder / "_pids").glob("*"))) < 3:  # the handshake, then one bot per worker
            assert process.poll() is None and time.monotonic() < deadline, process.communicate()
            time.sleep(0.02)
        below = descendants(process.pid)
        process.kill()
        process.wait()
        bots = recorded_pids(folder)
        assert len(set(bots) & set(below)) == 4  # the two game bots and their grandchildren, below the workers
        assert len(below) >= 6
        assert wait_gone(below + bots) == [], "workers or bots outlived the killed runner"
    assert stored_count(db) == 0


@pytest.mark.skipif(not LINUX, reason="reads the process tree from /proc")
def test_ctrl_c_while_the_workers_start_is_one_clean_line(tmp_path):
    """Ctrl-C while the worker processes are still starting: exit 130 with the one "interrupted" line,
    and no traceback from a worker."""
    folder = make_folder(tmp_path)
    db = tmp_path / "t.db"
    with start(command(folder, db, 10), tmp_path, start_new_session=True) as process:
        deadline = time.monotonic() + 60
        while len(spawned(process.pid)) < 3:  # multiprocessing's resource tracker and two workers
            assert process.poll() is None and time.monotonic() < deadline, process.communicate()
            time.sleep(0.002)
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert re.fullmatch(r"(note: new database .*\n)?interrupted: \d+ of 20 games stored; continue with the same "
                        r"command plus --resume\n", err), err


CTRL_C_RIGHT_AFTER_THE_SPAWN = """
import os, signal, threading, time
from multiprocessing import resource_tracker, util
from tournaments.play.executors import local_pool

signal.signal(signal.SIGINT, signal.default_int_handler)  # as tourney's main does; a CI shell may ignore it
resource_tracker.ensure_running()
threading.Thread(target=time.sleep, args=(60,), daemon=True).start()  # a thread the kernel may hand SIGINT to
spawn = util.spawnv_passfds

def spawn_then_ctrl_c(*args):
    pid = spawn(*args)
    os.kill(os.getpid(), signal.SIGINT)  # taken by the other thread: Python raises it here, after the sleep
    time.sleep(0.3)
    return pid

util.spawnv_passfds = spawn_then_ctrl_c
try:
    print(list(local_pool.run(abs, [-1, -2], 1)))
except KeyboardInterrupt:
    print("interrupted")
"""


@pytest.mark.skipif(not LINUX, reason="SIGINT to a process whose main thread blocks it")
def test_ctrl_c_between_a_workers_spawn_and_its_orders_waits_for_the_start(tmp_path):
    """The race behind a CI failure of the test above, made certain: Ctrl-C lands on another thread
    of the runner right after a worker is spawned, before it is sent what to run. The press waits
    until the worker is started, so the worker never reads a closed pipe (an EOFError traceback)."""
    done = subprocess.run([sys.executable, "-c", CTRL_C_RIGHT_AFTER_THE_SPAWN], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "interrupted\n", "")


@pytest.mark.slow
@pytest.mark.skipif(not LINUX, reason="reads the process tree from /proc")
def test_ctrl_c_stops_with_130_and_resume_finishes_the_tournament(tmp_path):
    """Ctrl-C (SIGINT to the runner's process group) exits with code 130 saying how many games are
    stored and to continue with --resume, leaves no process behind, and --resume finishes the run."""
    folder = program_folder(tmp_path, dawdling=True)
    games = 10
    total = 2 * games
    db = tmp_path / "t.db"
    with start(command(folder, db, games), tmp_path, start_new_session=True) as process:
        wait_until_partly_stored(process, db, total)
        below = descendants(process.pid)
        os.killpg(process.pid, signal.SIGINT)  # as a terminal does: the runner and its workers, not the bots
        _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    stored = stored_count(db)
    assert 0 < stored < total
    lines = err.strip().splitlines()
    assert lines[-1] == (f"interrupted: {stored} of {total} games stored; continue with the same command "
                         "plus --resume"), err
    assert "Traceback" not in err, err
    assert wait_gone(below) == []

    result = cli.invoke(*command(folder, db, games, jobs=1), "--resume")
    assert result.exit_code == 0, result.output
    assert f"({stored} already stored)" in result.stdout
    counts = key_counts(db)
    assert len(counts) == total and set(counts.values()) == {1}
    assert standings_json(db)["games"] == total


# -- 6. reproducibility across --jobs ----------------------------------------------------


def events_by_key(db: Path) -> dict[str, list[tuple]]:
    """Per game key, every event without what differs between runs (game id, salts, commitments, hashes,
    game_ended's hash of the opening)."""
    ledger = Ledger(str(db))
    try:
        out = {}
        for key, game in stored_games(db).items():
            out[key] = [
                ({k: v for k, v in loads(r.body).items() if k not in ("game", "commitment", "data")},
                 {k: v for k, v in loads(r.body)["data"].items() if k != "opening"}, r.private)
                for r in ledger.records(game.game_id)
            ]
        return out
    finally:
        ledger.close()


@pytest.mark.slow
def test_jobs_do_not_change_any_game(tmp_path):
    """--jobs 1 (in this process) and --jobs 2 (a real process with workers) with one seed give every
    game key the same rankings and the same events, and the same standings."""
    folder = program_folder(tmp_path)
    shutil.copy(SHIPPED / "heuristic_lemur_tails.py", folder / "heuristic_lemur_tails.py")
    one, two = tmp_path / "one.db", tmp_path / "two.db"
    result = cli.invoke(*command(folder, one, 1, seed="9", jobs=1))
    assert result.exit_code == 0, result.output
    with start(command(folder, two, 1, seed="9", jobs=2), tmp_path) as process:
        _, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    assert "Traceback" not in err, err
    first, second = results_by_key(one), results_by_key(two)
    assert len(first) == 6 and first == second
    assert {reason for _, _, reason in first.values()} == {"finished"}
    events = events_by_key(one)
    assert events == events_by_key(two)
    assert all(len(game) > 50 for game in events.values())
    assert same_results(one, two)


# -- 7. the command line ------------------------------------------------------------------


def one_error_line(result) -> str:
    """The single error line of a refused command (exit 1, no traceback)."""
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    return lines[0]


def test_too_few_bots_is_one_line(tmp_path):
    """A folder with a single bot for the game: one error line, exit 1, nothing stored."""
    folder = make_folder(tmp_path, good=1)
    line = one_error_line(run(folder, tmp_path / "t.db"))
    assert "lemur-tails needs at least 2 bots, found 1" in line and str(folder) in line
    assert stored_count(tmp_path / "t.db") == 0


@pytest.mark.slow
def test_a_tournament_is_not_run_twice_and_only_a_known_one_resumes(tmp_path):
    """The same tournament again without --resume is refused, --resume of an unknown one or with
    other settings is refused; each with one line, and nothing more is stored."""
    folder = make_folder(tmp_path)
    db = tmp_path / "t.db"
    assert run(folder, db).exit_code == 0
    before = results_by_key(db)
    again = one_error_line(run(folder, db))
    assert "already exists (complete): add --resume to continue it" in again
    unknown = one_error_line(run(folder, db, "--name", "nothing-here", "--resume"))
    assert "no tournament 'nothing-here' to resume" in unknown
    changed = one_error_line(run(folder, db, "--move-time", "3", "--resume"))
    assert "cannot resume" in changed and "its --move-time (stored 1 s, given 3 s) differs" in changed
    assert results_by_key(db) == before
    done = run(folder, db, "--resume")
    assert done.exit_code == 0 and "(2 already stored)" in done.stdout


@pytest.mark.slow
def test_standings_by_id_or_name_and_as_json(tmp_path):
    """`tourney standings` gives the same table for the tournament's id, its name and by default;
    --json (of standings and of run) prints parseable JSON with the standings rows."""
    folder = make_folder(tmp_path, good=3)
    db = tmp_path / "t.db"
    ran = run(folder, db, "--name", "cup", "--games", "2", "--json")
    assert ran.exit_code == 0, ran.output
    printed = json.loads(ran.stdout)
    by_id = cli.invoke("standings", "1", "--db", str(db))
    by_name = cli.invoke("standings", "cup", "--db", str(db))
    newest = cli.invoke("standings", "--db", str(db))
    assert by_id.exit_code == by_name.exit_code == newest.exit_code == 0
    assert by_id.stdout == by_name.stdout == newest.stdout
    assert "cup (lemur-tails, 12 games, not sandboxed)" in by_id.stdout
    data = standings_json(db, "cup")
    assert data == printed == standings_json(db, "1")
    assert data["tournament"] == "cup" and data["games"] == 12
    rows = data["standings"]
    assert sorted(row["bot"] for row in rows) == ["random_b", "random_bot", "random_c"]
    assert [row["rank"] for row in rows] == [1, 2, 3] and all(row["games"] == 8 for row in rows)
    for row in rows:
        assert row["bot"] in by_id.stdout and f"{row['elo']:.0f}" in by_id.stdout
    assert "no tournament 'nope'" in one_error_line(cli.invoke("standings", "nope", "--db", str(db)))


def test_files_that_are_not_bots_for_the_game_are_skipped_with_a_notice(tmp_path):
    """A Python file without GAMES and Bot, a Python bot and a program for another game are each
    skipped with a one-line notice, and play no game."""
    folder = make_folder(tmp_path, fixtures=("not_a_bot.py", "chess_only.py"),
                         programs={"nine_only": ["ok"]})
    manifest = json.loads((folder / "nine_only.bot.json").read_text())
    (folder / "nine_only.bot.json").write_text(json.dumps({**manifest, "games": ["nine-tails"]}))
    (folder / "notes.txt").write_text("not a bot, not executable: ignored silently\n")
    typo = (FIXTURES / "chess_only.py").read_text().replace('GAMES = ("chess",)', 'GAMES = ("lemur-tail", "chess")')
    assert typo != (FIXTURES / "chess_only.py").read_text()
    (folder / "typo.py").write_text(typo)
    db = tmp_path / "t.db"
    result = run(folder, db)
    assert result.exit_code == 0, result.output
    assert sorted(result.stderr.strip().splitlines()) == [
        f"note: new database {db}: there was none at this path (check --db if you meant another)",
        "skipped chess_only.py: plays chess, not lemur-tails",
        "skipped nine_only.bot.json: plays nine-tails, not lemur-tails",
        "skipped not_a_bot.py: a Python bot defines GAMES and class Bot (see docs/bot-protocol.md)",
        # A name no game has, close to one: the game it was likely meant for (a name far from all, as chess, is not).
        "skipped typo.py: plays lemur-tail, chess, not lemur-tails (no game is named lemur-tail: did you mean "
        "lemur-tails?)",
    ]
    played = {bot for bots, _, _ in results_by_key(db).values() for bot in bots}
    assert played == {"random_b", "random_bot"}
    assert not (folder / "_pids").exists()  # the program for another game was never started


def test_a_bot_declaring_thousands_of_games_is_skipped_in_one_short_notice(tmp_path):
    """GAMES with 2000 names (the bot's own words): the notice names the first five, counts the rest, and hints at
    most once a name (here the 1000 copies of lemur-tail), in one line of a few hundred characters."""
    names = ["lemur-tail"] * 1000 + [f"chess{n}" for n in range(1000)]
    (tmp_path / "many.py").write_text(f"GAMES = {tuple(names)!r}\n\n\nclass Bot:\n    pass\n")
    _, notices = discover(tmp_path, GAME)
    assert notices == ["skipped many.py: plays lemur-tail, chess0, chess1, chess2, chess3 and 996 more, not "
                       "lemur-tails (no game is named lemur-tail: did you mean lemur-tails?)"]


def test_names_and_notices_are_printed_verbatim(tmp_path):
    """A bot name or a notice with square brackets is printed as written, not read as console markup."""
    folder = make_folder(tmp_path, programs={"[bold]odd[/bold] [/x]": ["ok"], "decliner": ["hs-decline"]})
    result = run(folder, tmp_path / "t.db")
    assert result.exit_code == 0, result.output
    assert "left out decliner: declined: I play [bold]chess[/bold] only [/x]" in result.stderr
    assert "[bold]odd[/bold] [/x]" in result.stdout
