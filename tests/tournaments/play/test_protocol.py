"""Bots that misbehave, as real processes and in-process: each forfeits (ALL-5) with its reason stored.

The tournaments here run through the `tourney run` command in this process (typer's CliRunner)
against real SQLite files; every program bot is a real process. The misbehaving programs in
tests/tournaments/bots/ start a grandchild and write its pid and their own to ``_pids/`` in
the bots folder, so each test can check that nothing a bot started outlives the tournament.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import secrets
import shutil
import signal
import sys
import time
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

import pytest

from ledger.canonical import loads
from ledger.store import Ledger
from tests import cli
from tournaments.play import protocol, standings
from tournaments.play.schedule import schedule

ROOT = Path(__file__).resolve().parents[3]
SHIPPED = ROOT / "bots"
FIXTURES = Path(__file__).resolve().parents[1] / "bots"
GAME = "lemur-tails"


# -- helpers ------------------------------------------------------------------------------


def make_folder(tmp_path: Path, *, good: int = 2, shipped: tuple[str, ...] = (), fixtures: tuple[str, ...] = (),
                programs: dict[str, list[str]] | None = None) -> Path:
    """A bots folder: ``good`` copies of bots/random_bot.py, shipped and fixture files, and one
    manifest per entry of ``programs`` (bot name -> arguments of programs/misbehave.py)."""
    folder = tmp_path / "bots"
    folder.mkdir()
    for i in range(good):
        shutil.copy(SHIPPED / "random_bot.py", folder / ("random_bot.py" if i == 0 else f"random_{chr(97 + i)}.py"))
    for name in shipped:
        shutil.copy(SHIPPED / name, folder / name)
    for name in fixtures:
        shutil.copy(FIXTURES / name, folder / name)
    if programs:
        (folder / "programs").mkdir(exist_ok=True)
        shutil.copy(FIXTURES / "programs" / "misbehave.py", folder / "programs" / "misbehave.py")
        for name, args in programs.items():
            manifest = {"name": name, "command": [sys.executable, "-I", "programs/misbehave.py", *args]}
            (folder / f"{re.sub(r'[^a-z_-]+', '', name)}.bot.json").write_text(json.dumps(manifest))
    return folder


def run(folder: Path, db: Path, *extra: str, games: int = 1, seed: str = "1", jobs: int = 1, sandbox: str = "off"):
    """`tourney run` in this process; the result carries exit code, stdout and stderr. Unsandboxed by
    default: these tests watch bot processes through the pids they record in their folder."""
    return cli.invoke("run", folder, "--game", GAME, "--games", games, "--seed", seed, "--jobs", jobs, "--db", db,
                      "--sandbox", sandbox, *extra)


@dataclass(frozen=True, slots=True)
class Stored:
    """A stored game as the ledger holds it: seats, ranks, end reason and the forfeit event."""

    key: str
    game_id: str
    bots: tuple[str, ...]
    ranking: tuple[int, ...]
    reason: str
    ended: dict
    forfeit: dict | None


def stored_games(db: Path) -> dict[str, Stored]:
    """Every stored game by its schedule key, read back from the ledger's events."""
    ledger = Ledger(str(db))
    try:
        with ledger.read() as connection:
            rows = list(connection.exec_driver_sql("SELECT id, game_key, end_reason FROM games ORDER BY game_key"))
        out = {}
        for game_id, key, reason in rows:
            seats = ledger.seats(game_id)
            events = [(r.type, loads(r.body)["data"]) for r in ledger.records(game_id)]
            forfeits = [data for kind, data in events if kind == "seat_forfeited"]
            assert len(forfeits) <= 1
            assert events[-1][0] == "game_ended"
            out[key] = Stored(key, game_id, tuple(s["bot"] for s in seats), tuple(s["rank"] for s in seats), reason,
                              events[-1][1], forfeits[0] if forfeits else None)
        return out
    finally:
        ledger.close()


def standings_of(db: Path) -> standings.Standings:
    """The standings of the database's first tournament, from the ledger."""
    ledger = Ledger(str(db))
    try:
        return standings.of_tournament(ledger, "1")
    finally:
        ledger.close()


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie left for init to reap is not)."""
    status = Path(f"/proc/{pid}/status")
    if Path("/proc/self/status").exists():
        try:
            state = next(line for line in status.read_text().splitlines() if line.startswith("State:"))
        except (FileNotFoundError, ProcessLookupError):
            return False
        return state.split()[1] != "Z"
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


GRACE = 15.0
"""Seconds a test waits for processes a run ended to be gone: a teardown (SIGKILL, a cgroup's removal, a
frozen box thawed) takes well under one on an idle machine, but a loaded 2-core CI runner can take several;
still far below what any test's games would take to end by themselves (30 s moves)."""


def wait_gone(pids: list[int], timeout: float = GRACE, report: list[str] | None = None) -> list[int]:
    """The pids still running after up to ``timeout`` seconds (those left are killed, for hygiene; what
    each was, as ``described``, goes to ``report`` first)."""
    deadline = time.monotonic() + timeout
    left = [pid for pid in pids if alive(pid)]
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = [pid for pid in left if alive(pid)]
    for pid in left:
        if report is not None:
            report.append(described(pid))
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return left


def described(pid: int) -> str:
    """What a process is, for a failure's message: its state, command line and cgroups (a frozen one
    says why a killed process is still there)."""
    parts = [str(pid)]
    with suppress(OSError, StopIteration):
        parts.append(next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                          if line.startswith("State:")))
    with suppress(OSError):
        parts.append(repr(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")[:200]))
    with suppress(OSError):
        parts.append(" ".join(line for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines()
                              if "tourney" in line))
    return " ".join(parts)


@pytest.fixture(autouse=True)
def _reap_bots(tmp_path):
    """After a test (that failed), kill what the fixture bots started and left running."""
    yield
    for record in tmp_path.glob("*/_pids/*"):
        for pid in map(int, record.read_text().split()):
            with suppress(OSError):
                command = Path(f"/proc/{pid}/cmdline").read_bytes()
                if alive(pid) and (b"sleep\x00300" in command or b"misbehave" in command or b".sh" in command):
                    os.kill(pid, signal.SIGKILL)


def processes_naming(tag: str) -> list[tuple[int, str]]:
    """Every live process whose command line contains ``tag`` (a sandboxed bot's pids are its own)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                command = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if tag.encode() in command:
                found.append((int(entry.name), command.replace(b"\0", b" ").decode(errors="replace")))
    return found


def recorded_pids(folder: Path) -> list[int]:
    """The pids the fixture bots recorded: each bot process and the grandchild it started."""
    return [int(pid) for path in (folder / "_pids").iterdir() for pid in path.read_text().split()]


def assert_nothing_left(folder: Path, starts: int) -> None:
    """At least ``starts`` bot processes ran, and neither they nor their grandchildren outlive the run."""
    pids = recorded_pids(folder)
    assert len(pids) >= 2 * starts
    assert wait_gone(pids) == [], "bot processes outlived the tournament"


def assert_forfeits(games: dict[str, Stored], offender: str, pattern: str) -> None:
    """Every game of ``offender`` is its forfeit with a matching reason, the offender last alone;
    every other game finished normally."""
    for game in games.values():
        if offender not in game.bots:
            assert game.reason == "finished" and game.forfeit is None, game
            continue
        seat = game.bots.index(offender)
        assert game.reason == "forfeit" and game.forfeit is not None, game
        assert game.forfeit["seat"] == seat
        assert re.search(pattern, game.forfeit["reason"]), game.forfeit["reason"]
        assert game.ranking[seat] == len(game.ranking)
        assert all(rank < len(game.ranking) for s, rank in enumerate(game.ranking) if s != seat)
        assert game.ended["ranking"] == list(game.ranking) and game.ended["reason"] == "forfeit"


def assert_complete(games: dict[str, Stored], bots: list[str], players: int = 2, deals: int = 1) -> None:
    """Every game of the schedule is stored once: the tournament carried on to the end."""
    assert sorted(games) == sorted(g.key for g in schedule(bots, players, deals, "1"))


# -- 1. misbehaving programs --------------------------------------------------------------

FAST = ("--move-time", "2", "--time-bank", "0")  # roomy for the first good answer on a loaded machine
# For the bots that hang or loop at their first act, timed by the wall clock: 1.00 s. The good bots share these
# limits, and the bank keeps a loaded machine's pause in their moves from forfeiting a game that must end normally
# (CI runs saw 0.24 s for one of random_bot's with 0.2 s allowed and no bank, and 0.84 s, with 0.5 s allowed, on a
# machine running a second suite beside).
QUICK = ("--move-time", "0.2", "--time-bank", "0.8")
QUICK_ALLOWANCE = r"\(move time 0\.2 s and 0\.80 s left of its time bank\)"
"""What a forfeit on time under QUICK says the move was allowed (its first move: the whole bank left)."""
CPU_QUICK = ("--move-time", "0.2", "--time-bank", "0.3")
"""QUICK in the sandbox, timed by the CPU clock (which load does not eat into): 0.50 s, and a hanging bot is stopped
at three times that (WALL_CAP_REASON)."""

PROGRAM_CASES = {
    # name: (manifest arguments, or None for a fixture file; time options; reason pattern)
    "crash": (["crash"], FAST, r"^bot failure: crashed: exited with code 3 before answering$"),
    "crash_sh": (None, FAST, r"^bot failure: crashed: exited with code 3 before answering$"),
    "close": (["close"], FAST, r"^bot failure: crashed: closed its output before answering$"),
    "hang": (["hang", "1"], QUICK, rf"^bot failure: timed out: no answer within 1\.00 s {QUICK_ALLOWANCE}$"),
    "hang_sh": (None, QUICK, rf"^bot failure: timed out: no answer within 1\.00 s {QUICK_ALLOWANCE}$"),
    "not_json": (["not-json"], FAST, r'^bot failure: answered garbage: "play the first one, please" is not JSON \(its '
                 r'stdout is for its answers, a JSON line each: anything else goes to stderr\)$'),
    "not_object": (["not-object"], FAST, r"^bot failure: answered garbage: .*is not a JSON object$"),
    "wrong_type": (["wrong-type"], FAST, r"^bot failure: answered garbage: expected \{\"type\": \"action\".*'move'"),
    "move_type": (["move-type"], FAST, r"^bot failure: answered garbage: expected \{\"type\": \"action\".*'move'"),
    "not_string": (["not-string"], FAST, r"^bot failure: answered garbage: expected .*'action': 7"),
    "illegal": (["illegal"], FAST, r"^illegal action: seat [01] cannot 'teleport:moon'"),
    "flood": (["flood"], FAST, r"^bot failure: flooded its output: more than 1048576 bytes"),
    "twice": (["twice"], FAST, r"^bot failure: answered garbage: it wrote a line nobody asked for"),
    "no_newline": (["no-newline"], QUICK, rf"^bot failure: timed out: no answer within 1\.00 s {QUICK_ALLOWANCE} \(\d+ "
                   r"bytes came without "
                   r"a line feed: end every message with \\n and flush its output; docs/bot-protocol\.md\)$"),
    "ready_twice": (["ready-twice"], FAST, r"^bot failure: answered garbage: it wrote a line nobody asked for"),
}


WALL_CAP_REASON = (r"no answer within {cap} s of wall-clock time \(the CPU clock charges 1/3 of the wall-clock time "
                   r"when that is more than the CPU time; {allowed} s allowed: move time {move} s and \d\.\d\d s "
                   r"left of its time bank\)")
SANDBOXED_REASONS = {
    # bwrap holds the bot's output pipe open as long as the bot runs: no end of file comes. The
    # sandbox times moves by the CPU clock (its cgroup), which charges a bot that waits a third of
    # its wall-clock time: it is stopped at three times its allowance.
    "close": "^bot failure: timed out: " + WALL_CAP_REASON.format(cap=r"1\.50", allowed=r"0\.50", move=r"0\.5") + "$",
    "hang": "^bot failure: timed out: " + WALL_CAP_REASON.format(cap=r"1\.50", allowed=r"0\.50", move=r"0\.2") + "$",
    "no_newline": "^bot failure: timed out: " + WALL_CAP_REASON.format(cap=r"1\.50", allowed=r"0\.50", move=r"0\.2")
                  + r" \(\d+ bytes came without a line feed: end every message with \\n and flush its output; "
                  r"docs/bot-protocol\.md\)$",
}
SANDBOXED_LIMITS = {
    # In its sandbox "close" waits out its wall-clock cap (above) in each of its 4 games: a shorter move time
    # (the CPU clock's, which load does not eat into) keeps that wait 1.5 s a game, not 6 s.
    "close": ("--move-time", "0.5", "--time-bank", "0"),
    "hang": CPU_QUICK,
    "no_newline": CPU_QUICK,
}


@pytest.mark.slow
@pytest.mark.parametrize(("name", "sandbox"), [(name, "off") for name in PROGRAM_CASES] + [
    pytest.param(name, "on", marks=pytest.mark.sandbox) for name, (args, _, _) in PROGRAM_CASES.items()
    if args is not None])
def test_a_misbehaving_program_forfeits_with_its_reason_and_leaves_no_process(tmp_path, name, sandbox):
    """A program that crashes, hangs, answers garbage or an illegal action, writes a line nobody
    asked for (before its first act too), or floods its output forfeits each of its games with the
    reason stored, ranks last, the rest of the tournament is played, and nothing it started outlives
    the tournament; in its sandbox or not, with the same reasons (but one: SANDBOXED_REASONS).
    The shell fixtures record their pids in their folder, which the sandbox keeps read-only: they run
    unsandboxed only (misbehave.py fails the same ways in the sandbox)."""
    args, limits, pattern = PROGRAM_CASES[name]
    if sandbox == "on":
        pattern = SANDBOXED_REASONS.get(name, pattern)
        limits = SANDBOXED_LIMITS.get(name, limits)
    tag = str(10**8 + secrets.randbelow(9 * 10**8))
    if args is None:
        folder = make_folder(tmp_path, fixtures=(name.replace("_sh", ".sh"),))
        name = name.removesuffix("_sh")
    else:
        folder = make_folder(tmp_path, programs={name: [*args, *["2"][len(args) - 1:], tag]})
    db = tmp_path / "t.db"
    result = run(folder, db, *limits, sandbox=sandbox)
    assert result.exit_code == 0, result.output
    games = stored_games(db)
    bots = ["random_b", "random_bot", name]
    assert_complete(games, bots)
    assert_forfeits(games, name, pattern)
    last = standings_of(db).rows[-1]
    assert (last.bot, last.first, last.mean_place) == (name, 0, 2.0)
    assert f" {name} " in result.stdout
    if sandbox == "off":
        assert_nothing_left(folder, starts=5)  # the handshake, then its 4 games
    else:
        assert wait_gone([pid for pid, _ in processes_naming(tag)]) == [], "bot processes outlived the tournament"
    # Dropped at once, not waited for: assert_forfeits matched each reason whole, the failure itself (crashed,
    # garbage, illegal), a timeout only where the bot hangs on purpose (and "close" in its sandbox, where bwrap
    # holds the pipe open). No bound on the run's wall-clock time: under load it proves nothing (docs/testing.md).


@pytest.mark.slow
def test_a_program_that_exits_is_not_waited_for_until_its_time_runs_out(tmp_path):
    """A crash is seen when the bot exits, though a grandchild still holds its output open: well
    before a long move time and time bank run out: its reason is the crash, never the 20 s timeout it would be
    if it were waited for (no bound on the wall-clock time itself: under load that proves nothing)."""
    folder = make_folder(tmp_path, good=1, fixtures=("crash.sh",))
    result = run(folder, tmp_path / "t.db", "--move-time", "20", "--time-bank", "0")
    assert result.exit_code == 0, result.output
    games = stored_games(tmp_path / "t.db")
    assert len(games) == 2
    assert_forfeits(games, "crash", r"^bot failure: crashed: exited with code 3")
    assert_nothing_left(folder, starts=3)


@pytest.mark.slow
def test_a_program_over_its_move_time_pays_from_its_bank_until_it_forfeits(tmp_path):
    """A program that takes 0.4 s on every move against a 0.05 s move time sees its time bank shrink at
    each act (1500 ms at the first) and forfeits each game for time once the bank is spent."""
    folder = make_folder(tmp_path, good=1, programs={"slow": ["slow", "1"]})
    db = tmp_path / "t.db"
    result = run(folder, db, "--move-time", "0.05", "--time-bank", "1.5")
    assert result.exit_code == 0, result.output
    games = stored_games(db)
    assert_complete(games, ["random_bot", "slow"])
    assert_forfeits(games, "slow", r"^bot failure: timed out: ")
    banks = [[int(ms) for ms in path.read_text().split()] for path in (folder / "_banks").iterdir()]
    assert len(banks) == len(games)  # one bot process per game, each of which acted
    for seen in banks:
        assert seen[0] == 1500 and len(seen) >= 2, seen
        assert all(later < earlier for earlier, later in itertools.pairwise(seen)), seen
    assert_nothing_left(folder, starts=3)


@pytest.mark.slow
def test_time_over_the_move_time_drains_the_bank_even_when_the_answer_comes_in_time(tmp_path):
    """A bot taking half its move time on its first moves keeps its whole bank; one taking 1.25
    times its move time answers in time at first, but each overage is taken from its bank (the
    next act says so) until the bank is spent and it forfeits on time."""
    folder = make_folder(tmp_path, good=0, programs={"thrifty": ["slow-0.5", "3"], "spender": ["slow-1.25", "3"]})
    db = tmp_path / "t.db"
    result = run(folder, db, "--move-time", "1", "--time-bank", "0.5", "--bot-logs", str(tmp_path / "logs"))
    assert result.exit_code == 0, result.output
    games = stored_games(db)
    assert len(games) == 2
    thrifty = []
    for game in games.values():
        assert game.bots[game.forfeit["seat"]] == "spender", game
        assert game.forfeit["reason"].startswith("bot failure: timed out"), game.forfeit
        for seat, bot in enumerate(game.bots):
            log = (tmp_path / "logs" / f"{game.key}-seat{seat}.log").read_text()
            banks = [int(ms) for ms in re.findall(r"time_bank_ms (\d+)", log)]
            if bot == "thrifty":
                thrifty += banks
            else:
                assert banks[0] == 500 and all(later < 500 for later in banks[1:]) and len(banks) <= 3, banks
    assert thrifty and set(thrifty) == {500}, thrifty  # under the move time: nothing charged


@pytest.mark.slow
def test_in_three_seats_the_offender_ranks_last_alone(tmp_path):
    """ALL-5 at a table of three (Nine Tails): the offender ranks 3rd alone; the others keep ranks
    better than last."""
    folder = make_folder(tmp_path, programs={"illegal": ["illegal"]})
    db = tmp_path / "t.db"
    result = cli.invoke("run", folder, "--game", "nine-tails", "--players", "3", "--games", "1", "--jobs", "1",
                        "--db", db, "--sandbox", "off", *FAST)
    assert result.exit_code == 0, result.output
    games = stored_games(db)
    assert len(games) == 3
    assert_forfeits(games, "illegal", r"^illegal action: seat [012] .*'teleport:moon'")
    assert {game.bots.index("illegal") for game in games.values()} == {0, 1, 2}
    assert_nothing_left(folder, starts=4)


# -- 2. handshakes ------------------------------------------------------------------------

HANDSHAKE_CASES = {
    "hs-exit": r"crashed: exited with code 0 before answering",
    "hs-wrong": r"failed its handshake: expected \{\"type\": \"ready\"\}, got \{'type': 'hello'",
    "hs-garbage": r'answered garbage: "READY!" is not JSON \(its stdout is for its answers, a JSON line each: '
                  r'anything else goes to stderr\)',
    "hs-decline": r"declined: I play \[bold\]chess\[/bold\] only \[/x\]",
    "hs-hang": r"timed out: no answer within 0\.50 s to hello \(a bot must answer each line at once and flush its "
               r"output: docs/bot-protocol\.md\)",
    "hs-no-flush": r"timed out: no answer within 0\.50 s to hello \(a bot must answer each line at once and flush "
                   r"its output: docs/bot-protocol\.md\)",
}


@pytest.mark.slow
@pytest.mark.parametrize("mode", list(HANDSHAKE_CASES))
def test_a_program_that_fails_its_handshake_is_left_out(tmp_path, monkeypatch, mode):
    """A program that exits at once, answers something other than ready, or declines is reported
    ("left out NAME: reason", verbatim) and plays no game; the others play the whole tournament."""
    monkeypatch.setattr(protocol, "HANDSHAKE_SECONDS", 0.5)
    folder = make_folder(tmp_path, programs={mode: [mode]})
    db = tmp_path / "t.db"
    result = run(folder, db, *FAST)
    assert result.exit_code == 0, result.output
    notices = [line for line in result.stderr.splitlines() if line.startswith(f"left out {mode}: ")]
    assert len(notices) == 1, result.stderr
    assert re.fullmatch(rf"left out {mode}: {HANDSHAKE_CASES[mode]}.*", notices[0]), notices[0]
    games = stored_games(db)
    assert_complete(games, ["random_b", "random_bot"])
    assert all(mode not in game.bots and game.reason == "finished" for game in games.values())
    assert mode not in result.stdout
    assert_nothing_left(folder, starts=1)


# -- 3. in-process Python bots ------------------------------------------------------------

PYTHON_CASES = {
    "raises": r"^bot failure: crashed: RuntimeError: the bot tripped over its tail$",
    "non_string": r"^bot failure: answered list \['[^']+'\], not one of its legal actions$",
    "returns_none": r"^bot failure: answered NoneType None, not one of its legal actions: its act returned nothing "
                    r"\(a missing return\?\)$",
    # its move time and what is left of its bank when the answer is awaited (QUICK): 1.00 s, or a hair less
    # on a busy machine
    "loops": rf"^bot failure: timed out( after \d+\.\d\d s|: no answer within (1\.00|0\.9\d) s) {QUICK_ALLOWANCE}$",
    "exits": r"^bot failure: crashed: SystemExit: 0$",
    "illegal": r"^illegal action: seat [01] cannot 'teleport:moon'",
}


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", ["off", pytest.param("on", marks=pytest.mark.sandbox)])
@pytest.mark.parametrize("name", list(PYTHON_CASES))
def test_a_misbehaving_python_bot_forfeits_with_its_reason(tmp_path, name, sandbox):
    """A Python bot that raises, answers a non-string, loops forever (the alarm interrupts it in
    process; pyhost's process is killed in the sandbox), calls sys.exit() or answers an illegal
    action forfeits with the same reason in a worker and through pyhost in its sandbox; the
    tournament carries on to the end."""
    folder = make_folder(tmp_path, fixtures=(f"{name}.py",))
    db = tmp_path / "t.db"
    result = run(folder, db, *(FAST if name != "loops" else CPU_QUICK if sandbox == "on" else QUICK), sandbox=sandbox)
    assert result.exit_code == 0, result.output  # dropped at once: its reasons below are matched whole
    games = stored_games(db)
    assert_complete(games, ["random_b", "random_bot", name])
    # In the sandbox the CPU clock (its cgroup's) stops a loop once it has used its time (or, on a machine
    # so busy that the loop gets less than a third of a core, once three times its time has passed).
    cpu = (r"^bot failure: timed out: (used 0\.[45]\d s of CPU without answering, with 0\.(50|4\d) s allowed \(move "
           r"time 0\.2 s and 0\.\d\d s left of its time bank\)|"
           + WALL_CAP_REASON.format(cap=r"1\.(50|[2-4]\d)", allowed=r"0\.(50|4\d)", move=r"0\.2") + ")$")
    assert_forfeits(games, name, cpu if (name, sandbox) == ("loops", "on") else PYTHON_CASES[name])


@pytest.mark.slow
def test_misbehaving_python_bots_forfeit_in_worker_processes_too(tmp_path):
    """With --jobs 2 (a real `python -m tournaments` process and its workers) a bot looping forever
    is interrupted and one calling sys.exit() forfeits instead of killing its worker; the run ends."""
    folder = make_folder(tmp_path, good=1, fixtures=("loops.py", "exits.py"))
    db = tmp_path / "t.db"
    done = cli.tourney("run", str(folder), "--game", GAME, "--games", "1", "--jobs", "2",
         *QUICK, "--db", str(db), "--sandbox", "off", timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    games = stored_games(db)
    assert_complete(games, ["exits", "loops", "random_bot"])
    for game in games.values():
        assert game.reason == "forfeit"
        offender = game.bots[game.forfeit["seat"]]
        assert offender in ("loops", "exits")
        assert re.search(PYTHON_CASES[offender], game.forfeit["reason"]), game.forfeit


# -- 4. the shipped program bots ----------------------------------------------------------


@pytest.mark.slow
def test_the_shipped_program_bots_play_whole_games(tmp_path):
    """bots/first_legal.sh (POSIX shell) and bots/random_program.bot.json (a Python process) play
    every game to its end beside bots/random_bot.py: no forfeits, every seat acted."""
    folder = make_folder(tmp_path, good=1, shipped=("first_legal.sh", "random_program.bot.json"))
    (folder / "programs").mkdir()
    shutil.copy(SHIPPED / "programs" / "random_player.py", folder / "programs" / "random_player.py")
    db = tmp_path / "t.db"
    result = run(folder, db)
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [f"note: new database {db}: there was none at this path (check --db if you "
                                          "meant another)"]  # and no bot was skipped or left out
    games = stored_games(db)
    assert_complete(games, ["first_legal", "random_bot", "random_program"])
    ledger = Ledger(str(db))
    try:
        for game in games.values():
            assert game.reason == "finished" and game.forfeit is None, game
            assert game.ended["reason"] == "finished" and sorted(game.ranking)[0] == 1
            turns = [loads(r.body)["data"]["seat"] for r in ledger.records(game.game_id) if r.type == "turn_ended"]
            assert set(turns) == {0, 1}, game
    finally:
        ledger.close()
    assert {row.bot: row.games for row in standings_of(db).rows} == {
        "first_legal": 4, "random_program": 4, "random_bot": 4}
    assert all(bot in result.stdout for bot in ("first_legal", "random_program", "random_bot"))
