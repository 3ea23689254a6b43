"""Hostile bots against the sandbox: real `tourney run` processes, real bwrap, each attack contained.

Each test copies one bot of tests/tournaments/bots/hostile/ (see its README) into a bots folder
beside bots/random_bot.py, as ``NAME_TAG.py``, and plays a short tournament with the sandbox on
and ``--bot-logs``. What the bot saw is in its logs; what it left running is found by scanning
/proc for TAG. Every subprocess has a timeout, so a test never hangs.

These tests need bwrap (bubblewrap): without it they fail, saying how to install it.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

from engines import driver, registry
from tests import cli, tiers
from tests.runs import on_terminal
from tests.tournaments.play.test_protocol import GAME, GRACE, SHIPPED, processes_naming, stored_games
from tournaments.bots.discovery import discover
from tournaments.bots.spec import CPU, PROGRAM, BotSpec, Confinement, Limits
from tournaments.play.protocol import ProgramAgent, ProgramProcess
from tournaments.sandbox import cgroups, sandbox, warm

pytestmark = pytest.mark.sandbox

HOSTILE = Path(__file__).resolve().parents[1] / "bots" / "hostile"
TIMEOUT = 240


@pytest.fixture(autouse=True)
def _bwrap():
    """The sandbox must work here: these tests fail (never skip) without it."""
    problem = sandbox.unavailable()
    if problem is not None:
        pytest.fail(f"the sandbox tests need a working bwrap: {problem}")


# -- helpers ------------------------------------------------------------------------------


def hostile_folder(tmp_path: Path, *names: str, good: int = 1, port: int = 0) -> tuple[Path, str]:
    """A bots folder with ``good`` copies of bots/random_bot.py and each hostile bot as NAME_TAG;
    the TAG (digits unique to this test)."""
    tag = str(10**8 + secrets.randbelow(9 * 10**8))
    folder = tmp_path / "bots"
    folder.mkdir()
    for i in range(good):
        shutil.copy(SHIPPED / "random_bot.py", folder / ("random_bot.py" if i == 0 else f"random_{chr(97 + i)}.py"))
    for name in names:
        text = (HOSTILE / f"{name}.py").read_text().replace("PORT = 0", f"PORT = {port}")
        (folder / f"{name}_{tag}.py").write_text(text)
        if name == "stdin_stuffer":  # a program, not a Python bot: it must not read its input
            manifest = {"name": f"{name}_{tag}", "command": [sys.executable, "-I", f"{name}_{tag}.py"]}
            (folder / f"{name}_{tag}.bot.json").write_text(json.dumps(manifest))
            (folder / f"_{name}_{tag}.py").write_bytes((folder / f"{name}_{tag}.py").read_bytes())
            (folder / f"{name}_{tag}.py").unlink()
            manifest["command"][-1] = f"_{name}_{tag}.py"
            (folder / f"{name}_{tag}.bot.json").write_text(json.dumps(manifest))
    return folder, tag


def tourney(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`python -m tournaments ARGS` as a real process in tmp_path, bounded in time."""
    return cli.tourney(*args, timeout=TIMEOUT, cwd=tmp_path, env=env)


def play(tmp_path: Path, folder: Path, *extra: str, jobs: int = 1, env: dict[str, str] | None = None):
    """A sandboxed tournament of one deal with bot logs; the finished process."""
    tiers.require("sandbox", "--sandbox on")
    done = tourney(tmp_path, "run", str(folder), "--game", GAME, "--games", "1", "--jobs", str(jobs),
                   "--sandbox", "on", "--bot-logs", str(tmp_path / "logs"), "--db", str(tmp_path / "t.db"), *extra,
                   env=env)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    return done


def logs_of(tmp_path: Path, bot: str) -> list[str]:
    """The stderr of ``bot`` in each of its games (from --bot-logs)."""
    out = []
    for game in stored_games(tmp_path / "t.db").values():
        if bot in game.bots:
            path = tmp_path / "logs" / f"{game.key}-seat{game.bots.index(bot)}.log"
            out.append(path.read_text(errors="replace"))
    assert out, f"{bot} played no game"
    return out


def assert_nothing_left(tag: str) -> None:
    """No process of the test's bots is left (after a few seconds' grace), by pid and by cgroup: no
    process naming the TAG, and no sandbox's cgroup of a process that is gone; any found are killed."""
    deadline = time.monotonic() + GRACE
    while (left := processes_naming(tag)) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid, _ in left:
        with contextlib.suppress(OSError):
            os.kill(pid, 9)
    assert left == [], f"processes outlived the tournament: {left}"
    assert stale_groups() == [], "cgroups outlived the tournament"


def stale_groups() -> list[Path]:
    """The sandboxes' cgroups whose maker is gone: what a run leaves behind if it fails to remove them."""
    found = cgroups.hierarchy()
    return [] if found is None else cgroups.stale(found)


def verify(tmp_path: Path) -> None:
    """`tourney replay verify --db` passes on the tournament's ledger."""
    done = tourney(tmp_path, "replay", "verify", "--db", str(tmp_path / "t.db"), "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr


# -- the attacks --------------------------------------------------------------------------


def test_daemons_started_with_setsid_do_not_outlive_their_game(tmp_path):
    """Attack: at its first act the bot starts two daemons that leave its session (double fork,
    setsid), one ignoring SIGHUP and SIGTERM. Ending the game kills the sandbox's whole PID
    namespace: nothing is left after the run, and the games were played to the end."""
    folder, tag = hostile_folder(tmp_path, "setsid_daemon")
    play(tmp_path, folder)
    assert all("started two daemons" in log for log in logs_of(tmp_path, f"setsid_daemon_{tag}"))
    assert {game.reason for game in stored_games(tmp_path / "t.db").values()} == {"finished"}
    assert_nothing_left(tag)


def test_a_bot_cannot_find_or_change_the_ledger(tmp_path):
    """Attack: the bot looks for the ledger through /proc/<pid>/fd of every process it can see, to
    drop its triggers and set every rank to 1. In its own PID namespace it sees only its sandbox
    (pid 1, bwrap's init, and itself): no ledger; every game keeps its real ranks and verifies."""
    folder, tag = hostile_folder(tmp_path, "ledger_thief")
    play(tmp_path, folder)
    for log in logs_of(tmp_path, f"ledger_thief_{tag}"):
        assert "processes: [1, 2]" in log and "ledgers: []" in log, log
    assert all(sorted(game.ranking) == [1, 2] for game in stored_games(tmp_path / "t.db").values())
    with closing(sqlite3.connect(tmp_path / "t.db")) as db:
        assert db.execute("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'").fetchone()[0] > 0
    verify(tmp_path)
    assert_nothing_left(tag)


def test_a_bot_cannot_read_or_stop_its_opponent(tmp_path):
    """Attack: the bot scans /proc for its opponent, to read its hidden hand from its stdin and stop
    it with SIGSTOP. It sees only its own sandbox's processes, so every game is played to the end
    by both bots."""
    folder, tag = hostile_folder(tmp_path, "opponent_spy")
    play(tmp_path, folder)
    for log in logs_of(tmp_path, f"opponent_spy_{tag}"):
        seen = re.findall(r"^saw (\d+): (.*)$", log, re.MULTILINE)
        assert [pid for pid, _ in seen] == ["1", "2"], log
        assert all(tag in command for _, command in seen), log  # bwrap's init and itself, nobody else
        assert "stopped" not in log and "read from" not in log, log
    assert {game.reason for game in stored_games(tmp_path / "t.db").values()} == {"finished"}
    assert_nothing_left(tag)


def test_a_bot_has_no_network(tmp_path):
    """Attack: the bot connects to 127.0.0.1 at a port this test listens on, and to a public
    address. Its network namespace has only a loopback of its own: both fail, nothing arrives."""
    with closing(socket.socket()) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        port = listener.getsockname()[1]
        folder, tag = hostile_folder(tmp_path, "network", port=port)
        play(tmp_path, folder)
        with pytest.raises(BlockingIOError):
            listener.accept()
    log = "".join(logs_of(tmp_path, f"network_{tag}"))
    assert f"cannot connect to ('127.0.0.1', {port})" in log and "cannot connect to ('1.1.1.1', 53)" in log, log
    assert "connected" not in log
    assert_nothing_left(tag)


def test_a_fork_bomb_is_stopped_by_the_process_limit(tmp_path):
    """Attack: 200 forks at the first act, each child sleeping 300 s. --max-processes 16 stops it
    short (fork fails), the games go on, and no child outlives its game."""
    folder, tag = hostile_folder(tmp_path, "fork_bomb")
    play(tmp_path, folder, "--max-processes", "16")
    for log in logs_of(tmp_path, f"fork_bomb_{tag}"):
        started = int(re.search(r"forked (\d+) of 200", log).group(1))
        assert 0 < started < 16, log
    assert_nothing_left(tag)


def test_a_bot_cannot_take_more_memory_than_its_limit(tmp_path):
    """Attack: take 2 GiB at the first act, with --memory-mb 512. The sandbox's cgroup holds it to
    512 MiB: the kernel kills it there, and the bot forfeits every game, saying so."""
    folder, tag = hostile_folder(tmp_path, "memory_hog")
    play(tmp_path, folder, "--memory-mb", "512")
    games = stored_games(tmp_path / "t.db")
    assert len(games) == 2
    for game in games.values():
        assert game.reason == "forfeit" and game.bots[game.forfeit["seat"]] == f"memory_hog_{tag}"
        assert game.forfeit["reason"] == ("bot failure: crashed: ran out of memory (its processes together held "
                                          "512 MiB, its --memory-mb) and was killed before answering"), game.forfeit
    assert_nothing_left(tag)


@pytest.mark.parametrize("sandbox_mode", ["off", "on"])
def test_a_bot_that_stops_reading_its_input_cannot_stall_the_run(tmp_path, sandbox_mode):
    """Attack: a program fills its own stdin pipe (reopened through /proc/self/fd/0) and never reads
    again, so that a blocking write of the next request would hang tourney. Every write has a
    deadline: without the sandbox the bot forfeits ("stopped reading its input") and the run ends;
    in the sandbox the pipe is not its uid's to reopen, and it forfeits on time (it uses no CPU: the
    wall-clock cap of the CPU clock stops it)."""
    folder, tag = hostile_folder(tmp_path, "stdin_stuffer")
    done = tourney(tmp_path, "run", str(folder), "--game", GAME, "--games", "1", "--jobs", "1", "--sandbox",
                   sandbox_mode, "--bot-logs", str(tmp_path / "logs"), "--db", str(tmp_path / "t.db"),
                   "--move-time", "1", "--time-bank", "0")
    assert done.returncode == 0, done.stderr
    games = stored_games(tmp_path / "t.db")
    assert len(games) == 2
    expected = {"off": r"bot failure: stopped reading its input: \d+ bytes still unread after 1\.\d\d s",
                "on": r"bot failure: timed out: no answer within 3\.00 s of wall-clock time \(the CPU clock charges "
                      r"1/3 of the wall-clock time when that is more than the CPU time; 1\.00 s allowed: move time 1 s "
                      r"and 0\.00 s left of its time bank\)"}
    expected = expected[sandbox_mode]
    for game in games.values():
        assert game.reason == "forfeit" and game.bots[game.forfeit["seat"]] == f"stdin_stuffer_{tag}"
        assert re.fullmatch(expected, game.forfeit["reason"]), game.forfeit
    said = "stuffed" if sandbox_mode == "off" else "cannot open my input for writing: Permission denied"
    assert all(said in log for log in logs_of(tmp_path, f"stdin_stuffer_{tag}"))
    assert_nothing_left(tag)


def test_a_bot_cannot_kill_its_worker(tmp_path):
    """Attack: the bot sends SIGKILL to its parent and to every process it may signal (kill -1).
    Its parent is its sandbox's init, which the signal cannot reach, and it sees no other process:
    no worker dies (no notice of one), and every game is played to the end."""
    folder, tag = hostile_folder(tmp_path, "parent_killer")
    done = play(tmp_path, folder, jobs=2)
    assert "worker process died" not in done.stderr
    for log in logs_of(tmp_path, f"parent_killer_{tag}"):
        assert "my parent is 1" in log and "processes left: [1, 2]" in log, log
    assert {game.reason for game in stored_games(tmp_path / "t.db").values()} == {"finished"}
    assert_nothing_left(tag)


def test_a_bot_cannot_write_to_the_organisers_terminal(tmp_path):
    """Attack: with tourney on a terminal, the bot writes a marker to /dev/tty, every terminal and
    every stdin, stdout and stderr of other processes it can open, and pushes it as keystrokes
    (TIOCSTI). It has no terminal and sees no other process: the marker never shows."""
    folder, tag = hostile_folder(tmp_path, "terminal_writer")
    code, shown = on_terminal(
        [*cli.COMMAND, "run", str(folder), "--game", GAME, "--games", "1", "--jobs", "1",
         "--sandbox", "on", "--bot-logs", str(tmp_path / "logs"), "--db", str(tmp_path / "t.db")],
        timeout=TIMEOUT, cwd=tmp_path)
    assert code == 0, shown
    assert b"random_bot" in shown  # the standings did reach the terminal
    assert b"HOSTILE-BOT-WAS-HERE" not in shown, shown
    log = "".join(logs_of(tmp_path, f"terminal_writer_{tag}"))
    assert "cannot open /dev/tty" in log and "wrote to /dev" not in log, log
    assert_nothing_left(tag)


def test_a_bot_sees_only_its_own_files_a_clean_environment_and_a_fresh_home(tmp_path):
    """Attack: the bot reads every environment it can (tourney's holds a secret here), lists the
    host's folders for other bots' files, writes into its own folder, and leaves notes in its home
    and /tmp for its next game. It sees the documented environment only, no other bot's file,
    cannot write its folder, and each game starts with an empty home and /tmp."""
    folder, tag = hostile_folder(tmp_path, "snoop")
    secret = f"secret-{secrets.token_hex(8)}"
    play(tmp_path, folder, env={**os.environ, "TOURNEY_TEST_SECRET": secret})
    bot = f"snoop_{tag}"
    logs = logs_of(tmp_path, bot)
    assert len(logs) == 2
    runtime_in_tmp = sorted({Path(path).relative_to("/tmp").parts[0] for path in sandbox.python_runtime()
                             if path.startswith("/tmp/")})
    for log in logs:
        assert secret not in log and "random_bot.py" not in log, log
        environment = dict(ast.literal_eval(re.search(r"^environment: (.*)$", log, re.MULTILINE).group(1)))
        assert environment == {**sandbox.ENVIRONMENT, "PWD": sandbox.BOT_FILES}, environment
        assert f"listing /bot: ['{bot}.py']" in log, log
        # Nothing from the game before: an empty home, and a /tmp holding at most the way down to
        # tourney's own Python when it lives under the host's /tmp (bound read-only at its host path).
        assert "listing /home/bot: []" in log and f"listing /tmp: {runtime_in_tmp}" in log, log
        assert "cannot write notes.txt: Read-only file system" in log, log
        assert "wrote /home/bot/notes.txt" in log and "wrote /tmp/notes.txt" in log, log
        for line in re.findall(r"^environ of \d+: (.*)$", log, re.MULTILINE):
            assert line == "b''" or "HOME=/home/bot" in line, line  # bwrap's init has no environment at all
    assert not (folder / "notes.txt").exists()
    assert_nothing_left(tag)


def test_discovery_never_runs_a_bot_and_the_sandbox_keeps_its_side_effects_out(tmp_path, monkeypatch):
    """Attack: a Python bot creates the file "pwned" in its working directory when imported.
    Discovery reads its GAMES from the source without importing it (no file); in the sandboxed
    run its import fails on its read-only folder, so it is left out before the schedule, with the
    line that failed, and still no file appears."""
    folder, tag = hostile_folder(tmp_path, "import_side_effect", good=2)
    monkeypatch.chdir(folder)
    found, notices = discover(folder, GAME)
    assert f"import_side_effect_{tag}" in [spec.name for spec in found] and notices == []
    assert list(tmp_path.rglob("pwned")) == []
    done = play(tmp_path, folder)
    assert list(tmp_path.rglob("pwned")) == []
    assert re.search(rf"^left out import_side_effect_{tag}: crashed while starting: OSError: .* at "
                     rf"import_side_effect_{tag}\.py line 4, in <module>$", done.stderr, re.MULTILINE), done.stderr
    games = stored_games(tmp_path / "t.db").values()
    assert games and all(f"import_side_effect_{tag}" not in game.bots for game in games)


def test_every_program_bot_of_a_run_runs_in_its_own_sandbox(tmp_path):
    """The shipped program bots (POSIX shell with grep and sed, a Python program) play whole games
    in the sandbox, and the tournament records that its bots were sandboxed."""
    folder, _ = hostile_folder(tmp_path)
    shutil.copy(SHIPPED / "first_legal.sh", folder / "first_legal.sh")
    shutil.copy(SHIPPED / "random_program.bot.json", folder / "random_program.bot.json")
    (folder / "programs").mkdir()
    shutil.copy(SHIPPED / "programs" / "random_player.py", folder / "programs" / "random_player.py")
    done = play(tmp_path, folder, "--json")
    standings = json.loads(done.stdout)
    assert standings["sandboxed"] is True
    assert {row["bot"]: row["games"] for row in standings["standings"]} == {
        "first_legal": 4, "random_program": 4, "random_bot": 4}
    assert {game.reason for game in stored_games(tmp_path / "t.db").values()} == {"finished"}


def test_without_bwrap_auto_plays_unsandboxed_with_a_notice_and_on_is_refused(tmp_path):
    """With no bwrap on PATH, `--sandbox auto` says so in one line and plays without the sandbox
    (recorded as such); `--sandbox on` and a ladder refuse with one line saying how to install it."""
    folder, _ = hostile_folder(tmp_path, good=2)
    env = {**os.environ, "PATH": str(tmp_path / "no-such-folder")}
    auto = tourney(tmp_path, "run", str(folder), "--game", GAME, "--games", "1", "--db", str(tmp_path / "a.db"),
                   "--json", env=env)
    assert auto.returncode == 0, auto.stderr
    assert auto.stderr.splitlines() == [
        "notice: bots play without a sandbox: bwrap (bubblewrap) is not installed; install it with "
        "`apt-get install bubblewrap`",
        f"note: new database {tmp_path / 'a.db'}: there was none at this path (check --db if you meant another)"]
    assert json.loads(auto.stdout)["sandboxed"] is False
    on = tourney(tmp_path, "run", str(folder), "--game", GAME, "--sandbox", "on", "--db", str(tmp_path / "b.db"),
                 env=env)
    assert on.returncode == 1
    assert on.stderr == "error: bwrap (bubblewrap) is not installed; install it with `apt-get install bubblewrap`\n"
    ladder = tmp_path / "l.db"
    assert tourney(tmp_path, "ladder", "create", "l", "--game", GAME, "--db", str(ladder), env=env).returncode == 0
    refused = tourney(tmp_path, "ladder", "submit", "l", str(SHIPPED / "random_bot.py"), "--db", str(ladder), env=env)
    assert refused.returncode == 1
    assert refused.stderr == ("error: ladders run every bot in a sandbox, and bwrap (bubblewrap) is not installed; "
                              "install it with `apt-get install bubblewrap`\n")


def test_a_resumed_tournament_keeps_its_sandbox_mode(tmp_path):
    """--resume follows the mode a tournament was started with (auto), refuses the other one, and
    a tournament stored before the sandbox existed (no "sandbox" in its spec) resumes unsandboxed."""
    folder, _ = hostile_folder(tmp_path, good=2)
    db = str(tmp_path / "t.db")
    base = ["run", str(folder), "--game", GAME, "--games", "1", "--jobs", "1", "--name", "cup", "--db", db]
    assert tourney(tmp_path, *base, "--sandbox", "off").returncode == 0
    refused = tourney(tmp_path, *base, "--sandbox", "on", "--resume")
    assert refused.returncode == 1
    assert refused.stderr == "error: cannot resume 'cup' with --sandbox on: it was started with the sandbox off\n"
    with closing(sqlite3.connect(db)) as connection:
        spec = json.loads(connection.execute("SELECT spec FROM tournaments").fetchone()[0])
        assert spec["sandbox"] is False and spec["resources"]["max_processes"] == 64
        old = {key: value for key, value in spec.items() if key not in ("sandbox", "resources", "clock", "ponder")}
        connection.execute("UPDATE tournaments SET spec = ?", (json.dumps(old),))
        connection.commit()
    resumed = tourney(tmp_path, *base, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert "(2 already stored), 0 jobs, not sandboxed" in resumed.stdout  # nothing left to play
    assert "cup (lemur-tails, 2 games, not sandboxed)" in resumed.stdout
    assert len(stored_games(tmp_path / "t.db")) == 2


@pytest.mark.usefixtures("_cgroups")
def test_a_resumed_tournament_keeps_its_clock_and_pondering(tmp_path):
    """A sandboxed tournament records its clock and pondering ("cpu", false by default with cgroups): --resume
    follows them, refuses --clock wall or --ponder against them, and one stored before clocks existed
    (no "clock" in its spec) resumes by the wall clock, pondering, as it was played."""
    folder, _ = hostile_folder(tmp_path, good=2)
    db = str(tmp_path / "t.db")
    base = ["run", str(folder), "--game", GAME, "--games", "1", "--jobs", "1", "--name", "cup", "--db", db]
    assert tourney(tmp_path, *base).returncode == 0
    with closing(sqlite3.connect(db)) as connection:
        spec = json.loads(connection.execute("SELECT spec FROM tournaments").fetchone()[0])
    assert (spec["sandbox"], spec["clock"], spec["ponder"]) == (True, "cpu", False)
    for flag, said in (("--clock=wall", "--clock wall: it was started with the cpu clock"),
                       ("--ponder", "--ponder: it was started with bots frozen between turns")):
        refused = tourney(tmp_path, *base, flag, "--resume")
        assert refused.stderr == f"error: cannot resume 'cup' with {said}\n"
    assert "cpu clock, no pondering" in tourney(tmp_path, *base, "--resume").stdout
    with closing(sqlite3.connect(db)) as connection:
        old = {key: value for key, value in spec.items() if key not in ("clock", "ponder")}
        connection.execute("UPDATE tournaments SET spec = ?", (json.dumps(old),))
        connection.commit()
    resumed = tourney(tmp_path, *base, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert "sandboxed, cgroup v" in resumed.stdout and "wall clock, pondering" in resumed.stdout


def test_without_the_sandbox_no_cpu_clock_is_offered(tmp_path):
    """--clock cpu and --no-ponder need the sandbox's cgroups: with --sandbox off they are a usage error, one line."""
    folder, _ = hostile_folder(tmp_path, good=2)
    done = tourney(tmp_path, "run", str(folder), "--game", GAME, "--sandbox", "off", "--clock", "cpu",
                   "--db", str(tmp_path / "t.db"))
    assert (done.returncode, done.stderr) == (2, "error: Invalid value: --clock cpu and --no-ponder need the sandbox "
                                                 "(its cgroups): not with --sandbox off (see `tourney run --help`)\n")


def test_bot_logs_keep_the_last_64_kib_of_each_bots_stderr_per_game(tmp_path):
    """--bot-logs DIR: one file per bot process and game, <bot>/<game key>-seat<N>.log (the name it had before,
    <game key>-seat<N>.log, kept as a link to it), holding the end (64 KiB) of what the bot wrote to stderr after a
    line saying how much was cut; bots print() there too, never into the protocol."""
    folder, _ = hostile_folder(tmp_path)
    (folder / "chatty.py").write_text(
        "import sys\nGAMES = '*'\n\n\nclass Bot:\n    def __init__(self, game, seat, rng):\n        self.n = 0\n\n"
        "    def act(self, turn):\n        self.n += 1\n        print(f'move {self.n} ' + 'x' * 4000)\n"
        "        sys.stderr.write('y' * 4000 + '\\n')\n        return turn.legal[0]\n")
    play(tmp_path, folder)
    games = stored_games(tmp_path / "t.db")
    logs = tmp_path / "logs"
    names = sorted(str(path.relative_to(logs)) for path in logs.rglob("*.log") if not path.is_symlink())
    assert names == sorted(f"{bot}/{key}-seat{seat}.log" for key, game in games.items()
                           for seat, bot in enumerate(game.bots))
    links = {path.name: path.readlink() for path in logs.iterdir() if path.is_symlink()}
    assert links == {f"{key}-seat{seat}.log": Path(bot, f"{key}-seat{seat}.log") for key, game in games.items()
                     for seat, bot in enumerate(game.bots)}
    for game in games.values():
        log = (logs / "chatty" / f"{game.key}-seat{game.bots.index('chatty')}.log").read_bytes()
        assert (logs / f"{game.key}-seat{game.bots.index('chatty')}.log").read_bytes() == log
        cut, kept = log.split(b"\n", 1)  # a first line says how much came before the 64 KiB kept
        assert re.fullmatch(r"\[… \d+ bytes cut …\]", cut.decode()), cut
        assert len(kept) == 65536 and kept.endswith(b"y" * 4000 + b"\n")
        assert re.search(rb"move \d+ x{4000}\n", log)
    assert {game.reason for game in games.values()} == {"finished"}


# -- the whole folder ---------------------------------------------------------------------

ATTACKS = ("setsid_daemon", "ledger_thief", "opponent_spy", "network", "fork_bomb", "memory_hog", "stdin_stuffer",
           "parent_killer", "terminal_writer", "snoop", "import_side_effect", "init_tracer", "spinner", "memfd_hog")
LIMITS = ("--memory-mb", "512", "--max-processes", "16", "--move-time", "0.5", "--time-bank", "0.5")
"""Short clocks (the CPU clock's, which load does not eat into): stdin_stuffer times out at its wall-clock cap,
three times its allowance, in each of its games (6 s a game under 1 s and a 1 s bank; 3 s here)."""


@pytest.mark.slow
def test_a_tournament_of_every_hostile_bot_and_two_good_ones_completes(tmp_path):
    """`tourney run` over a folder holding every hostile bot beside two good ones completes with
    --jobs 2: every scheduled game is stored once, each hostile bot's games are forfeits with their
    reason or ordinary results, nothing any bot started is left, and the ledger verifies."""
    folder, tag = hostile_folder(tmp_path, *ATTACKS, good=2)
    done = play(tmp_path, folder, *LIMITS, jobs=2)
    assert "worker process died" not in done.stderr
    games = stored_games(tmp_path / "t.db")
    # A bot that fails to import (writing to its read-only folder) is left out before the schedule.
    left_out = set(re.findall(r"^left out (\S+):", done.stderr, re.MULTILINE))
    assert f"import_side_effect_{tag}" in left_out, done.stderr
    names = [name for name in ["random_b", "random_bot", *(f"{attack}_{tag}" for attack in ATTACKS)]
             if name not in left_out]
    assert len(games) == len(names) * (len(names) - 1)
    assert {bot for game in games.values() for bot in game.bots} == set(names)
    for game in games.values():
        assert game.reason in ("finished", "forfeit"), game
        if game.reason == "forfeit":
            assert game.forfeit["reason"] and tag in game.bots[game.forfeit["seat"]], game
    assert_nothing_left(tag)
    verify(tmp_path)


@pytest.mark.slow
def test_a_ladder_of_every_hostile_bot_and_two_good_ones_plays_on(tmp_path, monkeypatch):
    """Every hostile bot and two good ones submitted to a ladder: those that fail their validation
    game are refused with the reason, the others are listed; `tourney ladder play` then completes
    its games with --jobs 2, nothing any bot started is left, and the ledger verifies."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder, tag = hostile_folder(tmp_path, *ATTACKS, good=2)
    db = str(tmp_path / "t.db")
    assert tourney(tmp_path, "ladder", "create", "den", "--game", GAME, "--db", db).returncode == 0
    listed, refused = [], {}
    for path in sorted(folder.iterdir()):
        if path.name.startswith("_"):
            continue
        done = cli.invoke("ladder", "submit", "den", str(path), "--db", db, *LIMITS[:4])  # here: quicker
        assert done.exception is None or isinstance(done.exception, SystemExit), done.exception
        if done.exit_code == 0:
            listed.append(path.name)
        else:
            assert re.fullmatch(r"error: \S+ refused: in its validation game it forfeited \(.+\)\n", done.stderr)
            refused[path.name] = done.stderr
    for attack in ("memory_hog", "stdin_stuffer", "import_side_effect", *(("memfd_hog",) if GROUPED else ())):
        assert any(name.startswith(attack) for name in refused), refused
    assert "random_bot.py" in listed and "random_b.py" in listed and len(listed) >= 6, refused
    played = tourney(tmp_path, "ladder", "play", "den", "--games", "12", "--jobs", "2", "--seed", "5", "--db", db,
                     *LIMITS)
    assert played.returncode == 0, played.stderr
    lines = played.stdout.splitlines()
    assert lines[0] == "session 1: seed 5 (chosen by the organiser)" and re.fullmatch(r"played \d+ games on den",
                                                                                      lines[-1]), played.stdout
    assert all(re.fullmatch(r"Finished game \d+ \(.+\): .+ ratings: .+", line) for line in lines[1:-1]), lines
    standings = json.loads(tourney(tmp_path, "ladder", "standings", "den", "--json", "--db", db).stdout)
    assert len(standings) == len(listed) and sum(row["games"] for row in standings) >= 24
    assert_nothing_left(tag)
    verify(tmp_path)


def test_a_match_plays_its_bots_in_the_sandbox(tmp_path):
    """`tourney match` runs its bots as `tourney run` does: each in a sandbox of its own per game,
    recorded in the match's stored spec; a bot over its memory limit forfeits there."""
    folder, tag = hostile_folder(tmp_path, "snoop", "memory_hog")
    db = tmp_path / "t.db"
    done = tourney(tmp_path, "match", f"snoop_{tag}", f"memory_hog_{tag}", "--bots", str(folder), "--game", GAME,
                   "--games", "1", "--jobs", "1", "--memory-mb", "512", "--bot-logs", str(tmp_path / "logs"),
                   "--db", str(db))
    assert done.returncode == 0, done.stderr
    with closing(sqlite3.connect(db)) as connection:
        assert json.loads(connection.execute("SELECT spec FROM tournaments").fetchone()[0])["sandbox"] is True
    for game in stored_games(db).values():
        assert game.bots[game.forfeit["seat"]] == f"memory_hog_{tag}", game
        assert game.forfeit["reason"] == ("bot failure: crashed: ran out of memory (its processes together held "
                                          "512 MiB, its --memory-mb) and was killed before answering"), game.forfeit
    # (where the hog forfeits before the snoop's first turn, the snoop was never greeted, so never ran)
    assert any(f"listing /bot: ['snoop_{tag}.py']" in log for log in logs_of(tmp_path, f"snoop_{tag}"))
    assert_nothing_left(tag)


# -- a sandbox never outlives its starter ------------------------------------------------------

ORPHAN_TRIES = 30
"""Starters killed per test; the unguarded sandbox of before left about one in four behind."""


def start_and_die(spec: BotSpec, confinement: Confinement, delay: float | None, started: int) -> int:
    """Fork a starter that starts ``spec`` as a worker does, writes a byte to ``started`` once
    Popen has returned, then (unless ``delay`` is None) is SIGKILLed ``delay`` seconds later; its pid."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the starter never returns into pytest)
        try:
            ProgramProcess(spec, confinement)
            os.write(started, b"!")
            time.sleep(60 if delay is None else delay)
        finally:
            os.kill(os.getpid(), signal.SIGKILL)
    return pid


def processes_left(marker: str) -> list[tuple[int, str]]:
    """The processes naming ``marker`` still alive after a few seconds' grace (then killed)."""
    deadline = time.monotonic() + GRACE
    while (left := processes_naming(marker)) and time.monotonic() < deadline:
        time.sleep(0.02)
    for pid, _ in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return left


@pytest.mark.slow
@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandbox", "no-sandbox"])
def test_a_bot_never_outlives_the_process_that_started_it(tmp_path, sandboxed):
    """A worker SIGKILLed at any moment of its bot's start (right after Popen returns, or a few
    milliseconds on, while bwrap sets the sandbox up) leaves no process of that bot alive:
    bwrap, the sandbox's init and the bot itself, reparented or not."""
    files = tmp_path / "bot"
    files.mkdir(mode=0o755)
    files.chmod(0o755)
    marker = f"tourney-orphan-{secrets.token_hex(8)}"
    command = ("/bin/sh", "-c", "while :; do sleep 1; done")  # a bot that would never end by itself
    confinement = Confinement(sandbox=sandboxed)
    started_read, started_write = os.pipe()
    delays = random.Random(16)
    # Control: with its starter alive, the bot runs and the scan finds it.
    spec = BotSpec(name="loop", kind=PROGRAM, path=str(files), content_hash="", command=(*command, f"{marker}-0"),
                   cwd=str(files))
    starter = start_and_die(spec, confinement, None, started_write)
    assert os.read(started_read, 1) == b"!"
    deadline = time.monotonic() + 10
    while not [line for _, line in processes_naming(f"{marker}-0") if line.startswith(command[0])]:
        assert time.monotonic() < deadline, "the control bot never ran"
        time.sleep(0.02)
    os.kill(starter, signal.SIGKILL)
    os.waitpid(starter, 0)
    left = processes_left(f"{marker}-0")
    for attempt in range(1, ORPHAN_TRIES + 1):
        spec = BotSpec(name="loop", kind=PROGRAM, path=str(files), content_hash="",
                       command=(*command, f"{marker}-{attempt}"), cwd=str(files))
        starter = start_and_die(spec, confinement, 0.0 if attempt <= 5 else delays.uniform(0, 0.03), started_write)
        _, status = os.waitpid(starter, 0)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        assert os.read(started_read, 1) == b"!", "a starter failed before its Popen returned"
        left += processes_left(f"{marker}-{attempt}")
    os.close(started_read)
    os.close(started_write)
    assert left == [], f"bot processes outlived their starter: {left}"


# -- cgroups and seccomp ------------------------------------------------------------------

GROUPED = cgroups.hierarchy() is not None


@pytest.fixture
def _cgroups():
    """These attacks are contained by the sandbox's cgroup: they fail (never skip) without one where cgroups are
    expected (TOURNEY_TEST_CGROUPS=1, which .ci/run sets), and skip on a machine that has none to give."""
    problem = cgroups.unavailable()
    if problem is not None:
        if os.environ.get("TOURNEY_TEST_CGROUPS") == "1":
            pytest.fail(f"the cgroup tests need a cgroup per sandbox: {problem}")
        pytest.skip(f"no cgroups here: {problem}")


def test_the_first_line_says_how_bots_are_confined(tmp_path):
    """The run's first line says sandboxed, which cgroups (or "no cgroups: rlimits only"), the seccomp filter,
    the clock and pondering."""
    folder, _ = hostile_folder(tmp_path, good=2)
    first = play(tmp_path, folder).stdout.splitlines()[0]
    found = cgroups.hierarchy()
    if found is not None:
        assert first.endswith(f", sandboxed, {found.describe()}, seccomp, cpu clock, no pondering"), first
    else:
        assert first.endswith(", sandboxed, no cgroups: rlimits only, seccomp, wall clock"), first


def test_a_bot_cannot_take_over_its_sandboxs_init(tmp_path):
    """Attack: bwrap's init (pid 1 of the sandbox) runs as the bot's own uid; the bot tries to ptrace it (to
    make it drop its parent-death signal and leave the process group killed at the end of the game), to read
    its memory, and to make a user namespace of its own. The seccomp filter
    refuses all three with EPERM, and nothing of the bot (process or cgroup) is left after the run."""
    folder, tag = hostile_folder(tmp_path, "init_tracer")
    play(tmp_path, folder)
    for log in logs_of(tmp_path, f"init_tracer_{tag}"):
        assert "ptrace init: EPERM" in log and "process_vm_readv init: EPERM" in log, log
        assert "unshare user: EPERM" in log, log
    assert {game.reason for game in stored_games(tmp_path / "t.db").values()} == {"finished"}
    assert_nothing_left(tag)


def test_the_kernels_riskiest_calls_are_refused_and_a_bot_still_works(tmp_path):
    """Attack: each call the seccomp filter denies (ptrace, process_vm_readv, the keyring calls, bpf,
    perf_event_open, userfaultfd, io_uring, mount, unshare, setns, clone with namespace flags, kexec, module
    loading, open_by_handle_at, personality without address randomisation, TIOCSTI, an x32 call). Each gets
    EPERM (clone3 ENOSYS, so that the C library falls back to clone), never a crash of tourney; threads and
    child processes still work, and the bot plays its games to the end."""
    folder, tag = hostile_folder(tmp_path, "syscalls")
    play(tmp_path, folder)
    for log in logs_of(tmp_path, f"syscalls_{tag}"):
        results = dict(re.findall(r"^(\w+): (\w+)$", log, re.MULTILINE))
        assert results.pop("personality_default") == "ok", log
        assert results.pop("clone3") == "ENOSYS", log
        assert set(results.values()) == {"EPERM"} and len(results) == 20, results
        assert "thread: ok, child process: child" in log, log
    assert {game.reason for game in stored_games(tmp_path / "t.db").values()} == {"finished"}
    assert_nothing_left(tag)


KEYRING_WRAPPER = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
# The organiser's own session keyring, holding a secret (as a login session's would).
assert libc.syscall(250, 1, None) >= 0
assert libc.syscall(248, b"user", sys.argv[1].encode(), b"hunter2", 7, -3) >= 0
os.execv(sys.executable, [sys.executable, "-m", "tournaments", *sys.argv[2:]])
"""


def test_the_organisers_session_keyring_is_out_of_reach(tmp_path):
    """Attack: tourney runs in a session whose keyring holds a secret key; the bot lists /proc/keys (every key
    it may view, which would include a keyring it possesses), and asks keyctl for its session keyring, reads
    it, and adds a key. The keyring calls are refused (EPERM), and the secret is not in what it sees: as root,
    each sandbox joins a fresh, empty session keyring of its own."""
    folder, tag = hostile_folder(tmp_path, "keyring_reader")
    secret = f"tourney-organiser-secret-{tag}"
    done = subprocess.run([sys.executable, "-c", KEYRING_WRAPPER, secret, "run", str(folder), "--game", GAME,
                           "--games", "1", "--jobs", "1", "--sandbox", "on", "--bot-logs", str(tmp_path / "logs"),
                           "--db", str(tmp_path / "t.db")], capture_output=True, text=True, timeout=TIMEOUT,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for log in logs_of(tmp_path, f"keyring_reader_{tag}"):
        assert secret not in log and "/proc/keys:" in log, log
        assert "keyctl session: EPERM" in log and "keyctl read: EPERM" in log and "add_key: EPERM" in log, log
    assert_nothing_left(tag)


@pytest.mark.usefixtures("_cgroups")
def test_memfd_pages_count_against_the_bots_memory(tmp_path):
    """Attack: 48 memfd files of 64 MiB (3 GiB), written page by page, under --memory-mb 256: no rlimit counts
    them, the sandbox's cgroup does. The kernel stops the bot before it holds 256 MiB, and it forfeits,
    saying that it ran out of memory."""
    folder, tag = hostile_folder(tmp_path, "memfd_hog")
    play(tmp_path, folder, "--memory-mb", "256")
    for game in stored_games(tmp_path / "t.db").values():
        assert game.reason == "forfeit" and game.bots[game.forfeit["seat"]] == f"memfd_hog_{tag}"
        assert "ran out of memory (its processes together held 256 MiB" in game.forfeit["reason"], game.forfeit
    for log in logs_of(tmp_path, f"memfd_hog_{tag}"):
        held = [int(n) for n in re.findall(r"holding (\d+) MiB", log)]
        assert max(held, default=0) < 256, log
    assert_nothing_left(tag)


class Watcher:
    """The spinner's opponent, in the test's process: at each of its turns after the spinner's first answer, it
    waits (``ponder`` False) until the kernel says the spinner's group is frozen, reads the group's CPU time, does
    WATCHER_WORK seconds of CPU work of its own (by its own CPU clock: the spinners, if they run, share its cores),
    and reads the group's CPU time again."""

    def __init__(self, spinner, ponder: bool) -> None:
        self.spinner = spinner
        self.ponder = ponder
        self.turns: list[tuple[bool, int, float]] = []
        """Per turn: whether the group was frozen, its task count, the CPU seconds it used during the turn."""

    def act(self, turn):
        box = self.spinner.process.box if self.spinner.process is not None else None
        if box is not None and self.spinner.greeted:
            deadline = time.monotonic() + cgroups.SETTLE_SECONDS
            patient = not self.ponder and all(stopped for stopped, _, _ in self.turns)  # wait in vain once at most
            while patient and not box.stopped() and time.monotonic() < deadline:
                time.sleep(0.001)
            stopped, began = box.stopped(), box.cpu_seconds()
            mine = time.process_time()
            while time.process_time() - mine < WATCHER_WORK:
                pass
            self.turns.append((stopped, len(box.tasks()), box.cpu_seconds() - began))
        return turn.legal[0]


WATCHER_WORK = 0.05


def spinner_against_watcher(tmp_path: Path, ponder: bool) -> tuple[Watcher, str, str]:
    """One game of the spinner (seat 0, sandboxed, CPU clock) against a Watcher; the watcher, the game's end
    reason and the spinner's stderr."""
    tiers.require("sandbox", "--sandbox on")
    folder, tag = hostile_folder(tmp_path, "spinner", good=0)
    specs, _ = discover(folder, GAME)
    [spec] = [spec for spec in specs if spec.name == f"spinner_{tag}"]
    spinner = ProgramAgent(spec, GAME, 0, 2, 1, Limits(move_time=10), Confinement(True, clock=CPU, ponder=ponder))
    watcher = Watcher(spinner, ponder)
    engine = registry.get(GAME)
    try:
        played = driver.play(engine, engine.configure(2), "spinner-watch", [spinner, watcher])
    finally:
        spinner.close()
        warm.pool.close()
    assert_nothing_left(tag)
    return watcher, played.outcome.reason, spinner.stderr().decode(errors="replace")


@pytest.mark.usefixtures("_cgroups")
@pytest.mark.parametrize("ponder", [False, True], ids=["frozen", "pondering"])
def test_a_spinning_bot_does_not_slow_its_opponent(tmp_path, ponder):
    """Attack: the bot starts twice as many spinning processes as there are cores (at import) and answers at
    once, so that they burn CPU while its opponent thinks. Its cgroup is frozen from its answer to its next
    request: at every one of the opponent's turns the kernel says the group is frozen, its spinners are in it, and
    its CPU time (the group's own accounting, cpuacct or cpu.stat) does not move while the opponent works. With
    ponder (--ponder, trusted bots) the same group is never frozen and its spinners use CPU during those turns:
    the check can fail. No clock is compared: only what the kernel says the spinner did."""
    watcher, reason, said = spinner_against_watcher(tmp_path, ponder)
    assert reason == "finished" and "started" in said and "spinners" in said, (reason, said)
    assert len(watcher.turns) >= 5, watcher.turns
    assert all(tasks >= 3 for _, tasks, _ in watcher.turns), watcher.turns  # the bot and its spinners
    if not ponder:
        assert all(stopped for stopped, _, _ in watcher.turns), watcher.turns
        assert max(used for _, _, used in watcher.turns) < 0.001, watcher.turns
    else:
        assert not any(stopped for stopped, _, _ in watcher.turns), watcher.turns
        assert sum(used for _, _, used in watcher.turns) > 0, watcher.turns


SLEEPER = ('import time\nGAMES = "*"\n\n\nclass Bot:\n    def __init__(self, game, seat, rng):\n'
           '        self.moves = 0\n\n    def act(self, turn):\n        self.moves += 1\n        if self.moves <= 5:\n'
           '            time.sleep(0.5)\n        return turn.legal[0]\n')
"""Sleeps on its first five moves only: what the clocks are tested on, without a worker idle for a whole game's
sleep (a minute of the suite's time when it slept every move)."""


@pytest.mark.usefixtures("_cgroups")
@pytest.mark.parametrize("clock", ["cpu", "wall"])
def test_a_move_is_timed_by_the_bots_cpu_time(tmp_path, clock):
    """A bot that waits 0.5 s on each of its first five moves (using no CPU) under --move-time 0.2 and a 0.25 s bank:
    by the CPU clock (its cgroup's) it is well in time (a third of 0.5 s is within the move time: the bank stays
    whole), and plays every game to the end; by --clock wall it forfeits, on time, at its first move. The bank is
    random_bot's margin for a loaded machine's pause in a move of its own."""
    folder, _ = hostile_folder(tmp_path)
    (folder / "sleeper.py").write_text(SLEEPER)
    play(tmp_path, folder, "--move-time", "0.2", "--time-bank", "0.25", "--clock", clock)
    games = stored_games(tmp_path / "t.db").values()
    if clock == "cpu":
        assert {game.reason for game in games} == {"finished"}
    else:
        assert all(game.reason == "forfeit" and game.bots[game.forfeit["seat"]] == "sleeper"
                   and game.forfeit["reason"] == "bot failure: timed out: no answer within 0.45 s (move time 0.2 s and "
                   "0.25 s left of its time bank)" for game in games)


DAWDLER = SLEEPER.replace("time.sleep(0.5)", "time.sleep(1.5)")
SLOW_STARTER = ('import time\nGAMES = "*"\nbegan = time.process_time()\nwhile time.process_time() - began < 1.5:\n'
                '    pass\n\n\nclass Bot:\n    def __init__(self, game, seat, rng):\n        pass\n\n'
                '    def act(self, turn):\n        return turn.legal[0]\n')


def assert_every_game_forfeited_by(tmp_path: Path, name: str, source: str, reason: str) -> None:
    """Play the bot ``source`` as ``name`` against random_bot under --move-time 0.3, a 0.5 s bank and the CPU
    clock: it forfeits both games, for ``reason`` (a regular expression)."""
    folder, _ = hostile_folder(tmp_path)
    (folder / f"{name}.py").write_text(source)
    play(tmp_path, folder, "--move-time", "0.3", "--time-bank", "0.5", "--clock", "cpu")
    games = stored_games(tmp_path / "t.db").values()
    assert len(games) == 2
    for game in games:
        assert game.reason == "forfeit" and game.bots[game.forfeit["seat"]] == name, game
        assert re.fullmatch(reason, game.forfeit["reason"]), game.forfeit


@pytest.mark.usefixtures("_cgroups")
def test_a_bot_that_sleeps_pays_a_third_of_its_wall_clock_time(tmp_path):
    """Attack: under the CPU clock a bot that sleeps uses no CPU, so sleeping just under the old wall-clock cap
    (3 times move time plus bank) every move stretched a game without limit. A move is now charged its CPU
    time or a third of its wall-clock time, whichever is more: a bot sleeping 1.5 s a move under --move-time
    0.3 and a 0.5 s bank pays 0.5 s a move and forfeits once its bank is spent (or once a move's wall-clock time
    passes three times what it has left), by a reason that says how the clock counts."""
    assert_every_game_forfeited_by(
        tmp_path, "dawdler", DAWDLER,
        r"bot failure: timed out: (took 0\.5\d s by the CPU clock \(its CPU time, or 1/3 of its wall-clock time when "
        r"more\) with move time 0\.3 s and the time bank spent|no answer within \d\.\d\d s of wall-clock time \(the "
        r"CPU clock charges 1/3 of the wall-clock time when that is more than the CPU time; 0\.\d\d s allowed: move "
        r"time 0\.3 s and 0\.\d\d s left of its time bank\))")


@pytest.mark.usefixtures("_cgroups")
def test_the_cpu_clock_of_a_first_move_starts_when_the_bot_is_first_thawed(tmp_path):
    """Attack: do a game's thinking while starting up (1.5 s of CPU at import, before the handshake), outside
    every move's clock. The CPU clock of a bot's first move starts when the bot is first thawed, so its
    start-up and handshake are paid from that move: under --move-time 0.3 and a 0.5 s bank it forfeits its
    first move."""
    assert_every_game_forfeited_by(
        tmp_path, "slow_starter", SLOW_STARTER,
        r"bot failure: timed out: (used \d\.\d\d s of CPU without answering, with 0\.80 s allowed \(move time 0\.3 s "
        r"and 0\.50 s left of its time bank\)|took 1\.\d\d s by "
        r"the CPU clock \(its CPU time, or 1/3 of its wall-clock time when more\) with move time 0\.3 s and the time "
        r"bank spent)")
