"""Sealed games: nothing a bot can write or observe lasts from one game to the next, every byte it takes
is counted or refused, cold sandboxes and warm alike (docs/security.md, "What a game shares with no
other").

Real `tourney run` processes, real bwrap, in the two ways tourney runs:

* ``root``: as CI runs it, with cgroups: warm sandboxes (one sandbox per bot and worker, each game's
  bot forked in it: tournaments.sandbox.warm), frozen between turns, timed by the CPU clock;
* ``user``: as an ordinary user (nobody, through tests/tournaments/as_user.py), without cgroups:
  cold sandboxes (a bwrap per bot per game), bounded by rlimits and mount sizes.

Each attack plays one short tournament per way (``--jobs 1``, so that one warm sandbox plays every
game of a bot), and each test reads what the attacking bots logged (``--bot-logs``).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests import cli
from tests.tournaments import as_user
from tests.tournaments.sandbox.test_sandbox import GAME, TIMEOUT, assert_nothing_left, hostile_folder, stored_games
from tournaments.sandbox import cgroups, sandbox

pytestmark = pytest.mark.sandbox

WAYS = ["root", "user"]
MEMORY_MB = 128


@pytest.fixture(scope="module", params=WAYS)
def way(request) -> str:
    """How tourney runs: as root with cgroups, or as an ordinary user without them. Either must work here:
    the tests fail (never skip) when the machine cannot play it."""
    problem = sandbox.unavailable()
    if problem is not None:
        pytest.fail(f"the sandbox tests need a working bwrap: {problem}")
    if request.param == "root" and (os.geteuid() != 0 or cgroups.unavailable() is not None):
        if os.environ.get("TOURNEY_TEST_CGROUPS") == "1":
            pytest.fail(f"warm sandboxes need root and cgroups: {cgroups.unavailable() or 'not root'}")
        pytest.skip("warm sandboxes need root and cgroups")
    return request.param


def play(way: str, folder: Path, *extra: str) -> dict:
    """A sandboxed tournament of one deal per table from ``folder`` (``--jobs 1``, bot logs), run as root or as
    an ordinary user; its stored games by key."""
    work = folder.parent
    argv = [*cli.COMMAND, "run", str(folder), "--game", GAME, "--games", "1", "--jobs", "1",
            "--sandbox", "on", "--bot-logs", str(work / "logs"), "--db", str(work / "t.db"), *extra]
    environment = None
    if way == "user" and os.geteuid() == 0:
        (work / "logs").mkdir()
        as_user.hand_over(work)
        argv, environment = as_user.command(argv, work), as_user.environment(work)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT, cwd=work, env=environment)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    first = done.stdout.splitlines()[0]
    assert (", cgroup v" in first) == (way == "root"), first
    return stored_games(work / "t.db")


def logs(folder: Path, games: dict, bot: str) -> list[str]:
    """``bot``'s stderr in each of its games, in schedule order (the seat rotations of a deal in turn)."""
    out = []
    for key in sorted(games):
        game = games[key]
        if bot in game.bots:
            path = folder.parent / "logs" / f"{key}-seat{game.bots.index(bot)}.log"
            out.append(path.read_text(errors="replace"))
    assert out, f"{bot} played no game"
    return out


# -- nothing of one game in the next ---------------------------------------------------------------


CHANNELS = ["home", "tmp", "dev-shm", "dev", "process", "sysv-shm", "sysv-msg", "sysv-sem", "posix-mq",
            "abstract-socket", "loopback-connection", "loopback-counter", "hostname", "global"]
CANNOT_LEAVE = {
    "root": {"dev": "Read-only file system", "hostname": "Operation not permitted"},
    "user": {"dev": "Read-only file system", "hostname": "Operation not permitted",
             "sysv-shm": "Operation not permitted", "sysv-msg": "Operation not permitted",
             "loopback-connection": "Operation not permitted", "loopback-counter": "Operation not permitted"},
}
"""What the rememberer cannot even write, and why: /dev is read-only, the host name is not the bot's, and
without a cgroup to count them System V shared memory and message queues and TCP are refused."""


@pytest.fixture(scope="module")
def remembered(way, tmp_path_factory) -> tuple[str, list[str]]:
    """The rememberer's logs of the two seat rotations of one deal, played one after the other (warm: in one
    sandbox)."""
    folder, tag = hostile_folder(tmp_path_factory.mktemp(f"remembered-{way}"), "rememberer")
    games = play(way, folder)
    assert {game.reason for game in games.values()} == {"finished"}
    assert_nothing_left(tag)
    return way, logs(folder, games, f"rememberer_{tag}")


def said(log: str, what: str) -> list[str]:
    return ast.literal_eval(re.search(rf"^{what}: (\[.*\])$", log, re.MULTILINE).group(1))


@pytest.mark.parametrize("channel", CHANNELS)
def test_nothing_a_bot_leaves_in_one_game_is_there_in_the_next(remembered, channel):
    """Attack (tests/tournaments/bots/hostile/rememberer.py): in each rotation of a deal the bot leaves a note
    through ``channel`` (a file in its home, /tmp, /dev/shm or /dev; a process holding an abstract socket;
    System V and POSIX IPC objects; a loopback connection in TIME_WAIT and the loopback's counters; the host
    name; a module global) and looks for it in the next. It sees its note in the game that left it, never in
    the next; what it cannot write at all is refused for the reason this way of running gives."""
    way, games = remembered
    assert len(games) == 2
    for log in games:
        assert channel not in said(log, "found"), log
        refused = re.search(rf"^could not leave {channel}: (.*)$", log, re.MULTILINE)
        if channel in CANNOT_LEAVE[way]:
            assert refused is not None and refused.group(1) == CANNOT_LEAVE[way][channel], log
            assert channel not in said(log, "left"), log
        else:
            assert refused is None and channel in said(log, "left"), log


# -- every byte counted or refused ---------------------------------------------------------------------

KINDS = ["tmpfs", "dev", "memfd", "shm", "sysv", "pipes", "tcp"]


@pytest.fixture(scope="module")
def hoarded(way, tmp_path_factory) -> tuple[str, dict[str, tuple[int, str]]]:
    """Each hoarder's outcome under --memory-mb 128: (the most it held, MiB; how it ended: its own
    `stopped ...: REASON`, or its forfeit)."""
    work = tmp_path_factory.mktemp(f"hoarded-{way}")
    folder, tag = hostile_folder(work, good=1)
    source = Path(__file__).parents[1] / "bots" / "hostile" / "hoarder.py"
    for kind in KINDS:
        (folder / f"hoarder_{kind}_{tag}.py").write_text(source.read_text())
    games = play(way, folder, "--format", "gauntlet", "--candidate", "random_bot", "--memory-mb", str(MEMORY_MB))
    assert_nothing_left(tag)
    out = {}
    for kind in KINDS:
        bot = f"hoarder_{kind}_{tag}"
        for log, game in zip(logs(folder, games, bot), sorted((k, g) for k, g in games.items() if bot in g.bots),
                             strict=True):
            held = max([int(n) for n in re.findall(r"(?:took|stopped at) (\d+) MiB", log)] or [0])
            stopped = re.search(r"^stopped at \d+ MiB: (.*)$", log, re.MULTILINE)
            forfeit = game[1].forfeit
            ended = stopped.group(1) if stopped else (forfeit["reason"] if forfeit else "played on holding it")
            out.setdefault(kind, []).append((held, ended))
    return way, out


OUTCOMES = {
    "root": {"tmpfs": "No space left on device", "dev": "Read-only file system", "memfd": "ran out of memory",
             "shm": "No space left on device", "sysv": "ran out of memory", "pipes": "Too many open files",
             "tcp": "Too many open files"},
    "user": {"tmpfs": "No space left on device", "dev": "Read-only file system", "memfd": "Operation not permitted",
             "shm": "No space left on device", "sysv": "Operation not permitted", "pipes": "Too many open files",
             "tcp": "Operation not permitted"},
}


@pytest.mark.parametrize("kind", KINDS)
def test_memory_a_bot_takes_is_counted_or_refused(hoarded, kind):
    """Attack (tests/tournaments/bots/hostile/hoarder.py): take memory of ``kind`` until something stops it,
    under --memory-mb 128, in both rotations of a deal. It never holds more than the limit: a write fails
    (the scratch mounts are a quarter of the limit each, /dev is read-only; without a cgroup what nothing
    would count is refused) or the game's cgroup kills it (a forfeit); and nothing is left after the run."""
    way, outcomes = hoarded
    for held, ended in outcomes[kind]:
        assert held <= MEMORY_MB, (held, ended)
        assert OUTCOMES[way][kind] in ended, (held, ended)


# -- nothing of the machine or of the other sandboxes ---------------------------------------------------

PROBES = ["mincore", "cachestat", "fadvise64", "readahead", "preadv2_nowait", "pwritev2_nowait", "io_setup",
          "inotify_init1", "inotify_init", "fanotify_init", "fcntl_notify", "flock", "fcntl_setlk", "fcntl_getlk",
          "fcntl_ofd_setlk", "fcntl_setlease", "sysinfo"]


@pytest.fixture(scope="module")
def probed(way, tmp_path_factory) -> list[str]:
    """The prober's logs (both rotations of a deal)."""
    folder, tag = hostile_folder(tmp_path_factory.mktemp(f"probed-{way}"), "prober")
    games = play(way, folder)
    assert {game.reason for game in games.values()} == {"finished"}
    return logs(folder, games, f"prober_{tag}")


def test_the_page_cache_watches_and_locks_of_other_sandboxes_cannot_be_probed(probed):
    """Attack (tests/tournaments/bots/hostile/prober.py): ask the kernel which pages of a shared read-only file
    are cached (mincore, cachestat, preadv2 with RWF_NOWAIT), drop or load them (fadvise, readahead, AIO),
    watch shared folders (inotify, fanotify, F_NOTIFY), lock a shared file (flock, record locks, a lease), and
    read the machine's counters (sysinfo). Every one is refused with EPERM by the seccomp filter, while a
    plain preadv2 and fcntl still work."""
    for log in probed:
        results = dict(re.findall(r"^(\w+): (\w+)$", log, re.MULTILINE))
        assert {name: results.get(name) for name in PROBES} == dict.fromkeys(PROBES, "EPERM"), log
        assert "preadv2 plain: ok" in log and "fcntl plain: ok" in log, log


def test_proc_shows_the_bot_nothing_of_the_machine(probed):
    """Attack: read /proc/stat, loadavg, meminfo, uptime, pressure, vmstat, diskstats, locks and /proc/sys,
    whose counters move with what every other process on the machine does (an opponent's imports, another
    sandbox's CPU). The game's /proc shows its own processes and nothing else: none of them exists."""
    for log in probed:
        reads = dict(re.findall(r"^read (\S+): (\w+)$", log, re.MULTILINE))
        assert set(reads.values()) == {"ENOENT"} and len(reads) == 10, log
        listed = ast.literal_eval(re.search(r"^proc: (\[.*\])$", log, re.MULTILINE).group(1))
        assert all(name.isdigit() or name in ("self", "thread-self") for name in listed), listed


def test_a_bot_has_no_capability_and_an_empty_bounding_set(probed):
    """Attack: read its own capability sets from inside. Every set is empty, the bounding set included (which
    the sandbox's first process, holding CAP_SETPCAP for this, empties before the bot runs)."""
    for log in probed:
        sets = dict(re.findall(r"^(Cap\w+): ([0-9a-f]+)$", log, re.MULTILINE))
        assert sets == dict.fromkeys(["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"], "0" * 16), log
