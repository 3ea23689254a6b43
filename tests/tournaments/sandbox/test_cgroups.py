"""A cgroup per sandbox per game (tournaments.sandbox.cgroups): real groups, real bwrap, real attacks.

Each attack is a small program started in a sandbox of its own through ``sandbox.start`` (as a
bot's process is), or in a bare group; the test reads the group's own accounting (its peak
memory, its CPU time, its tasks) before the group is removed. The attack is in each docstring.

They need cgroups: without any they fail where cgroups are expected (TOURNEY_TEST_CGROUPS=1,
which .ci/run sets) and are skipped elsewhere, saying why.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.tournaments.play.test_protocol import GRACE
from tournaments.bots.spec import PROGRAM, BotSpec, Resources
from tournaments.sandbox import cgroups, sandbox, warm

pytestmark = pytest.mark.sandbox

MIB = 1 << 20


@pytest.fixture(autouse=True)
def _cgroups():
    problem = cgroups.unavailable()
    if problem is not None:
        if os.environ.get("TOURNEY_TEST_CGROUPS") == "1":
            pytest.fail(f"the cgroup tests need a cgroup per sandbox: {problem}")
        pytest.skip(f"no cgroups here: {problem}")


@pytest.fixture
def files():
    """An empty folder any uid may read: the sandboxed programs' own files."""
    folder = tempfile.mkdtemp(prefix="tourney-cgroup-test-")
    os.chmod(folder, 0o755)
    yield folder
    os.rmdir(folder)


def run_sandboxed(code: str, files: str, memory_mb: int = 256, timeout: float = 60) -> tuple[int, str, int, bool]:
    """Run Python ``code`` in a sandbox with ``memory_mb``; its exit status, stderr, the group's peak memory
    (bytes) and whether the kernel killed a task of it for memory."""
    process = sandbox.start([sys.executable, "-I", "-c", code], files, Resources(memory_mb=memory_mb),
                            subprocess.PIPE)
    try:
        _, said = process.communicate(timeout=timeout)
        box = process.box
        assert box is not None
        return process.returncode, said.decode(errors="replace"), box.memory_peak() or 0, box.out_of_memory()
    finally:
        process.end()
        process.release()


SHM = """
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
held = 0
for _ in range(3):
    segment = libc.shmget(0, 1 << 30, 0o1600)
    address = libc.shmat(segment, None, 0)
    for offset in range(0, 1 << 30, 1 << 20):
        ctypes.memset(address + offset, 1, 1 << 20)
        held += 1
        print(f"holding {held} MiB", file=sys.stderr, flush=True)
"""


def test_system_v_shared_memory_counts_against_the_limit(files):
    """Attack: three System V shared-memory segments of 1 GiB, every page written, under 256 MiB. Shared
    memory counts against no process's rlimit; the group holds it to 256 MiB and the kernel kills the hog."""
    code, said, peak, oom = run_sandboxed(SHM, files)
    assert code != 0 and oom, said[-500:]
    assert peak <= 256 * MIB
    assert "holding 200 MiB" in said and "holding 256 MiB" not in said


SOCKETS = """
import os, socket, sys, time
for _ in range(15):  # 16 processes
    if os.fork() == 0:
        break
held, queued = [], 0
for _ in range(64):
    a, b = socket.socketpair()
    a.setblocking(False)
    a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 24)
    try:
        while True:
            queued += a.send(b"x" * 65536)
    except BlockingIOError:
        pass
    held.append((a, b))
print(f"queued {queued >> 20} MiB", file=sys.stderr, flush=True)
time.sleep(5)
"""


def test_socket_buffers_count_against_the_limit(files):
    """Attack: 16 small processes, each filling the buffers of 64 socket pairs (about 620 MiB in all where
    nothing counts them). The group counts them: it never holds more than its 128 MiB."""
    _, said, peak, oom = run_sandboxed(SOCKETS, files, memory_mb=128)
    assert peak <= 128 * MIB
    queued = sum(int(n) for n in re.findall(r"queued (\d+) MiB", said))
    assert oom or queued < 128, said[-500:]


TMPFS = """
import sys
held = 0
chunk = b"x" * (1 << 20)
for folder in ("/tmp", "/dev/shm", "/home/bot"):
    try:
        with open(f"{folder}/hoard", "wb") as file:
            for _ in range(60):
                file.write(chunk)
                file.flush()
                held += 1
    except OSError as error:
        print(f"{folder}: {error.strerror}", file=sys.stderr)
    print(f"holding {held} MiB", file=sys.stderr, flush=True)
"""


def test_files_in_the_scratch_mounts_count_against_the_limit(files):
    """Attack: 60 MiB in each of /tmp, /dev/shm and the home (each a tmpfs of 64 MiB, so 180 MiB in all) under
    a memory limit of 128 MiB. tmpfs pages are the bot's memory: the group stops it at 128 MiB."""
    _, said, peak, oom = run_sandboxed(TMPFS, files, memory_mb=128)
    assert peak <= 128 * MIB
    assert oom or "holding 180 MiB" not in said, said


def test_a_frozen_group_uses_no_cpu_and_thaws(files):
    """A program with three spinning children: frozen, the group's CPU time stands still; thawed, it runs on;
    its CPU time is every task's (frozen, the sum of what each of its tasks' own /proc/PID/stat says)."""
    process = sandbox.start([sys.executable, "-I", "-c", "import os\nfor _ in range(3):\n    if os.fork() == 0:\n"
                             "        break\nwhile True:\n    pass\n"], files, Resources(), subprocess.PIPE)
    box = process.box
    try:
        assert box is not None
        time.sleep(0.5)
        began = box.cpu_seconds()
        time.sleep(1)
        running = box.cpu_seconds() - began
        box.freeze()
        settle(box.stopped)  # freeze() gives the order; a spinner stops at its next tick
        began = box.cpu_seconds()
        time.sleep(1)
        frozen = box.cpu_seconds() - began
        box.thaw()
        began = box.cpu_seconds()
        time.sleep(0.5)
        thawed = box.cpu_seconds() - began
        assert frozen < 0.001 and running > 0 and thawed > 0, (running, frozen, thawed)
        box.freeze()
        settle(box.stopped)
        tasks = {pid: cpu_of(pid) for pid in box.tasks()}
        group = box.cpu_seconds()
        box.thaw()
        assert len([pid for pid, used in tasks.items() if used > 0.05]) >= 4, tasks  # the program and 3 children
        # /proc counts whole clock ticks per task; nothing left the group, so nothing counts outside the tasks
        assert sum(tasks.values()) - 0.01 <= group <= sum(tasks.values()) + 0.01 * len(tasks) + 0.05, (group, tasks)
    finally:
        process.end()
        process.communicate()
        process.release()
    assert not any(folder.exists() for folder in box.folders)


def settle(done) -> None:
    """Wait until ``done()`` (the kernel's word that a group is frozen), for at most cgroups.SETTLE_SECONDS."""
    deadline = time.monotonic() + cgroups.SETTLE_SECONDS
    while not done():
        assert time.monotonic() < deadline, "the group never froze"
        time.sleep(0.001)


def cpu_of(pid: int) -> float:
    """The CPU seconds (user and system) one process has used, from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


ESCAPER = """
import os, signal, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.setpgid(0, 0)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        print(os.getpid(), flush=True)
        time.sleep(300)
    os._exit(0)
time.sleep(300)
"""


def test_a_group_kills_what_left_its_process_group_and_session():
    """Attack, without any sandbox: a process in a group starts a daemon that leaves its session and process
    group and ignores SIGTERM and SIGHUP (as a bot's process could after taking over its sandbox's init).
    Killing the process group misses it; removing the group kills it, and the group is gone."""
    found = cgroups.hierarchy()
    assert found is not None
    box = cgroups.Box(found, 256, 16)
    process = subprocess.Popen([sys.executable, "-I", "-c", ESCAPER], stdout=subprocess.PIPE, text=True,
                               start_new_session=True, preexec_fn=box.join)
    daemon = int(process.stdout.readline())
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)
    process.stdout.close()
    assert Path(f"/proc/{daemon}").exists() and daemon in box.tasks()  # it escaped the process group
    box.remove()
    deadline = time.monotonic() + GRACE
    while Path(f"/proc/{daemon}/status").exists() and "zombie" not in Path(f"/proc/{daemon}/status").read_text():
        assert time.monotonic() < deadline, "the daemon outlived its group"
        time.sleep(0.01)
    assert not any(folder.exists() for folder in box.folders)


def test_the_groups_of_a_process_that_died_are_removed_by_the_next(files):
    """A starter SIGKILLed mid-game cannot remove its sandbox's group; the next process to look for the
    hierarchy (any tourney run) kills what is left in it and removes it, and leaves groups of live processes."""
    found = cgroups.hierarchy()
    assert found is not None
    name, sleeper = made_stale(found)
    mine = cgroups.Box(found, 64, 4)
    try:
        assert all((parent / name).exists() for parent in found.parents)
        assert [folder.name for folder in cgroups.stale(found)].count(name) == len(found.parents)
        cgroups._sweep(found)
        assert not any((parent / name).exists() for parent in found.parents)
        assert all(folder.exists() for folder in mine.folders)  # a live process's group is left alone
        assert process_gone(sleeper)
    finally:
        mine.remove()


def test_no_cgroup_file_belongs_to_the_uid_a_bot_runs_as(files):
    """As root each sandbox runs as a host uid of its own; its guard stays root, so no file of any group, the
    warm sandbox's and its games' included, need belong to that uid (before, the bot's uid owned its game's
    freezer.state and its sandbox's cgroup.procs: only the absence of a cgroup file system inside stood
    between it and them). Checked on a cold sandbox and on a warm one with a game prepared and begun."""
    if os.geteuid() != 0:
        pytest.skip("sandboxes run as uids of their own only when tourney is root")
    cold = sandbox.start(["/bin/sleep", "30"], files, Resources(), subprocess.DEVNULL)
    spec = BotSpec(name="sleeper", kind=PROGRAM, path=files, content_hash="0" * 64, command=("/bin/sleep", "30"),
                   cwd=files)
    game = warm.pool.spawn(spec, Resources(), paused=True)
    try:
        assert cold.started() or cold.poll() is None
        boxes = [cold.box, game.box, game.zygote.box]
        owners = {path: path.stat().st_uid for box in boxes for folder in box.folders for path in folder.rglob("*")}
        assert len(owners) > 50
        assert {path: uid for path, uid in owners.items() if uid != 0} == {}
        ran_as = {int(Path(f"/proc/{pid}/status").read_text().split("Uid:")[1].split()[0]) for pid in game.box.tasks()}
        assert ran_as and all(uid >= sandbox.HOST_UID_BASE for uid in ran_as), ran_as
    finally:
        game.end()
        cold.end()
        cold.release()
        for stream in (game.stdin, game.stdout, game.stderr, cold.stdin, cold.stdout):
            stream.close()
        warm.pool.close()


def test_two_parents_do_not_see_each_others_stale_groups():
    """TOURNEY_CGROUP_PARENT (the suite gives each pytest-xdist worker one): a process that makes groups in subtree A
    and one in subtree B are SIGKILLed, leaving a stale group (a sleeper inside) in each. A's view of stale groups
    lists only A's, its sweep removes only A's; B's the same; the usual parent's view lists neither. A process
    started with the variable makes its groups in the subtree it names, in every hierarchy."""
    usual, problem = cgroups._usual()
    assert usual is not None, problem
    names = [f"tourney-tests-isolation-{os.getpid()}-{side}" for side in "ab"]
    a, b = (cgroups._within(usual, name)[0] for name in names)
    assert a is not None and b is not None
    try:
        left = [made_stale(a), made_stale(b)]
        for mine, other, (group, _) in zip((a, b), (b, a), left, strict=True):
            assert {folder.parent for folder in cgroups.stale(mine) if folder.name == group} == set(mine.parents)
            assert group not in {folder.name for folder in cgroups.stale(other)}
            assert group not in {folder.name for folder in cgroups.stale(usual)}
        cgroups._sweep(a)
        assert not any((parent / left[0][0]).exists() for parent in a.parents)
        assert all((parent / left[1][0]).exists() for parent in b.parents)  # A's sweep left B's stale group
        assert process_gone(left[0][1]) and not process_gone(left[1][1])
        cgroups._sweep(b)
        assert not any((parent / left[1][0]).exists() for parent in b.parents) and process_gone(left[1][1])
        said = subprocess.run([sys.executable, "-c", "from tournaments.sandbox import cgroups\n"
                               "print(*cgroups.Box(cgroups.hierarchy(), 64, 4).folders, sep='\\n')"],
                              capture_output=True, text=True, timeout=60,
                              env={**os.environ, cgroups.PARENT_VARIABLE: names[0]})
        made = [Path(line) for line in said.stdout.split()]
        assert [folder.parent for folder in made] == list(a.parents), said.stderr
        cgroups._sweep(a)  # the process exited without removing its group: stale, swept
        assert not any(folder.exists() for folder in made)
    finally:
        for found in (a, b):
            cgroups._sweep(found)
            for parent in found.parents:
                with contextlib.suppress(OSError):
                    parent.rmdir()
    assert not any(parent.exists() for found in (a, b) for parent in found.parents)


def test_a_parent_that_is_not_one_folder_name_is_refused():
    """TOURNEY_CGROUP_PARENT is one folder name under tourney's usual parent: a path, or a name a sweep of the usual
    parent would take for a group of a process, is refused with a reason (no group is made anywhere else)."""
    usual, problem = cgroups._usual()
    assert usual is not None, problem
    for name in ("../escape", "a/b", "..", "tourney-1-2-3"):
        found, why = cgroups._within(usual, name)
        assert found is None and f"TOURNEY_CGROUP_PARENT={name!r} is not a folder name" in why, why


def test_the_suites_workers_each_keep_their_groups_apart():
    """tests/conftest.py gives this worker (or this run) its subtree: the groups tourney makes here go inside it."""
    found = cgroups.hierarchy()
    assert found is not None
    subtree = os.environ[cgroups.PARENT_VARIABLE]
    assert subtree.endswith(os.environ.get("PYTEST_XDIST_WORKER", "main"))
    assert all(parent.name == subtree and parent.is_dir() for parent in found.parents)
    box = cgroups.Box(found, 64, 4)
    try:
        assert [folder.parent for folder in box.folders] == list(found.parents)
    finally:
        box.remove()


def made_stale(found: cgroups.Hierarchy) -> tuple[str, int]:
    """A group of ``found`` with a sleeper in it, made by a process then SIGKILLed: its name and the sleeper's pid."""
    read, write = os.pipe()
    starter = os.fork()
    if starter == 0:  # pragma: no cover (never returns into pytest)
        try:
            box = cgroups.Box(found, 64, 4)
            child = subprocess.Popen(["sleep", "300"], preexec_fn=box.join, start_new_session=True)
            os.write(write, f"{box.folders[0].name} {child.pid}\n".encode())
            time.sleep(300)
        finally:
            os.kill(os.getpid(), signal.SIGKILL)
    name, sleeper = os.read(read, 100).decode().split()
    os.close(read)
    os.close(write)
    os.kill(starter, signal.SIGKILL)
    os.waitpid(starter, 0)
    return name, int(sleeper)


def process_gone(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status")
    with contextlib.suppress(FileNotFoundError):
        return "zombie" in status.read_text()
    return True
