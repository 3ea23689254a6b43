"""The seccomp filter every sandboxed bot runs under: the kernel's riskiest doors shut, with EPERM.

bwrap loads it (``--seccomp FD``) into the bot's process just before the bot's command starts,
after its own setup; every process the bot starts inherits it and cannot lift it. Like
Flatpak's filter, it allows every system call but those named here; the list is Docker's
default profile's (moby/profiles, seccomp/default.json) set of calls that a container without
privileges has no use for, and the ones this sandbox's attacks used. A bot that makes one of
them gets EPERM (clone3 ENOSYS, below), never a crash of tourney. Other system-call ABIs than
the machine's own (x32, i386 on x86_64) are refused whole.

It is built once per process with libseccomp, through pyseccomp (PyPI): a ctypes binding that
mirrors libseccomp's own Python module call for call. Debian's python3-seccomp is that own
module, but compiled for Debian's interpreter only: a virtual environment of another Python
build cannot import it, while pyseccomp loads the system's libseccomp.so.2 from any Python.
Without libseccomp (``unavailable`` says why) sandboxes run without the filter, and the
run's banner says so.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os

from tournaments.bots.spec import BotError

DENIED: dict[str, str] = {
    # Reading or steering another process (the sandbox's init among them).
    "ptrace": "trace, stop or rewrite another process: the sandbox's init included",
    "process_vm_readv": "read another process's memory",
    "process_vm_writev": "write another process's memory",
    "pidfd_getfd": "take a descriptor out of another process",
    "kcmp": "compare kernel objects of other processes (an address-leak oracle)",
    # The kernel's keyrings: the organiser's session keyring is where secrets live.
    "keyctl": "read or change a keyring",
    "add_key": "add a key to a keyring",
    "request_key": "ask the kernel for a key",
    # Large kernel interfaces, frequent in kernel exploits.
    "bpf": "load eBPF programs or maps",
    "perf_event_open": "kernel performance events (side channels, kernel bugs)",
    "userfaultfd": "handle page faults in user space (widens race windows in kernel exploits)",
    "io_uring_setup": "io_uring (a second system-call interface, outside seccomp's view)",
    "io_uring_enter": "io_uring",
    "io_uring_register": "io_uring",
    # Mounts and namespaces: the sandbox's own are made; no new ones.
    "mount": "mount file systems", "umount2": "unmount file systems", "pivot_root": "change the root mount",
    "fsopen": "mount file systems (new API)", "fsconfig": "mount file systems (new API)",
    "fsmount": "mount file systems (new API)", "fspick": "reconfigure mounts (new API)",
    "move_mount": "move mounts (new API)", "open_tree": "clone mounts (new API)",
    "mount_setattr": "change mount attributes",
    "unshare": "make new namespaces", "setns": "enter other namespaces",
    "chroot": "change the root folder",
    # Files by handle, bypassing the mount's view.
    "open_by_handle_at": "open a file by handle, outside the sandbox's mounts",
    "name_to_handle_at": "get file handles (the other half of open_by_handle_at)",
    # The machine itself.
    "kexec_load": "load a new kernel", "kexec_file_load": "load a new kernel",
    "init_module": "load a kernel module", "finit_module": "load a kernel module",
    "delete_module": "unload a kernel module",
    "reboot": "reboot", "swapon": "swap", "swapoff": "swap", "acct": "process accounting",
    "settimeofday": "set the clock", "clock_settime": "set the clock", "clock_adjtime": "set the clock",
    "adjtimex": "set the clock", "syslog": "read the kernel log", "quotactl": "disk quotas",
    "quotactl_fd": "disk quotas", "lookup_dcookie": "kernel profiling", "uselib": "a.out libraries",
    "ustat": "file-system statistics of devices", "sysfs": "file-system types", "_sysctl": "kernel tunables",
    "nfsservctl": "the NFS server", "iopl": "I/O port privileges", "ioperm": "I/O port privileges",
    "vm86": "virtual 8086 mode", "vm86old": "virtual 8086 mode", "modify_ldt": "segment descriptors",
    "move_pages": "NUMA placement of other processes' pages", "migrate_pages": "NUMA placement",
    "mbind": "NUMA placement", "set_mempolicy": "NUMA placement", "get_mempolicy": "NUMA placement",
    # What another sandbox, or an earlier game, leaves in the kernel's shared state: pages cached of
    # the read-only files every sandbox reads, watches and locks on them, the machine's counters.
    "mincore": "see which pages of a mapped file are cached (a page-cache channel between sandboxes)",
    "cachestat": "count the cached pages of a file (a page-cache channel)",
    "fadvise64": "drop or load a file's cached pages (the other end of a page-cache channel)",
    "readahead": "load a file's pages into the cache",
    "io_setup": "asynchronous I/O, whose requests carry RWF_NOWAIT where the filter cannot see it",
    "io_submit": "asynchronous I/O",
    "inotify_init": "watch shared folders (an opponent's imports, another sandbox's reads)",
    "inotify_init1": "watch shared folders", "inotify_add_watch": "watch shared folders",
    "inotify_rm_watch": "watch shared folders",
    "fanotify_init": "watch file access machine-wide", "fanotify_mark": "watch file access machine-wide",
    "flock": "lock shared files: a lock on a file every sandbox reads is seen by all of them",
    "sysinfo": "the machine's free memory, load and process count, which move with other sandboxes",
}
"""Denied with EPERM, each with why a bot may not."""

NEWER_CALLS = {"cachestat": 451}
"""Calls newer than some libseccomp releases (Debian 12's 2.5.4 does not know cachestat, Linux 6.5):
denied by number, which is the same on x86_64 and aarch64 (the unified table)."""

UNGROUPED_DENIED: dict[str, str] = {
    "memfd_create": "memory in files of no mount, which no rlimit bounds (without a cgroup to count it)",
    "shmget": "System V shared memory, which no rlimit bounds (without a cgroup to count it)",
    "msgget": "System V message queues, which no rlimit bounds (without a cgroup to count it)",
}
"""Denied as well where the bot has no cgroup to count its memory (tourney not root, no delegated
cgroup v2): what would take memory beyond every rlimit. Sockets other than AF_UNIX are refused too
(TCP and UDP buffers are counted by nothing then)."""

READ_FLAGS = {"RWF_NOWAIT": 0x00000008}
"""preadv2 and pwritev2 with these flags (the sixth argument) are EPERM: a read that fails rather than
wait for the disk says whether a page was cached."""

FILE_LOCK_COMMANDS = {
    "F_GETLK": 5, "F_SETLK": 6, "F_SETLKW": 7, "F_OFD_GETLK": 36, "F_OFD_SETLK": 37, "F_OFD_SETLKW": 38,
    "F_SETLEASE": 1024, "F_GETLEASE": 1025, "F_NOTIFY": 1026,
}
"""fcntl commands that are EPERM: record locks and leases on a shared read-only file are seen by every
sandbox (a channel between them), and F_NOTIFY watches a shared folder as inotify does. (SQLite
takes such locks: a bot reads a database with ``?immutable=1`` or ``?nolock=1``, docs/security.md.)"""

AF_UNIX = 1

NAMESPACE_FLAGS = {
    "CLONE_NEWNS": 0x00020000, "CLONE_NEWCGROUP": 0x02000000, "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000, "CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}
"""clone() with any of these is EPERM (threads and forks need none of them)."""

PERSONALITY_FLAGS = {
    "ADDR_NO_RANDOMIZE": 0x0040000, "FDPIC_FUNCPTRS": 0x0080000, "MMAP_PAGE_ZERO": 0x0100000,
    "ADDR_COMPAT_LAYOUT": 0x0200000, "READ_IMPLIES_EXEC": 0x0400000, "ADDR_LIMIT_32BIT": 0x0800000,
    "SHORT_INODE": 0x1000000, "WHOLE_SECONDS": 0x2000000, "STICKY_TIMEOUTS": 0x4000000, "ADDR_LIMIT_3GB": 0x8000000,
}
"""personality() with any of these is EPERM: they switch off address-space randomisation or make data
executable (Docker allows only the default personalities). A query (0xffffffff) sets them all and is
refused too."""

TERMINAL_IOCTLS = {"TIOCSTI": 0x5412, "TIOCLINUX": 0x541C}
"""ioctl requests that push keystrokes into a terminal (or drive the console): EPERM."""


STRICT = "strict"
UNGROUPED = "ungrouped"
ZYGOTE = "zygote"
ZYGOTE_ALLOWED = ("mount", "umount2", "unshare")
"""What the zygote of a warm sandbox (tournaments.sandbox.zygote: tourney's code, never a bot's) may do
beyond a bot: give each game fresh mount, IPC and PID namespaces and fresh scratch mounts. Its
filter still refuses a new user namespace; each game's bot then loads the strict filter itself."""


class SeccompError(BotError):
    """The filter cannot be built; the message is one clear line."""


@functools.cache
def program(variant: str = STRICT) -> bytes | None:
    """The filter as a classic BPF program (what bwrap --seccomp reads), or None without libseccomp;
    ``variant`` STRICT: a bot's; UNGROUPED: a bot's without a cgroup (UNGROUPED_DENIED, no socket but
    AF_UNIX); ZYGOTE: the sandbox's zygote's (it may make each game's namespaces: ZYGOTE_ALLOWED)."""
    try:
        import pyseccomp as seccomp
    except (ImportError, OSError):  # not installed, or no libseccomp.so.2 to load
        return None
    refuse = seccomp.ERRNO(errno.EPERM)
    rules = seccomp.SyscallFilter(seccomp.ALLOW)
    rules.set_attr(seccomp.Attr.ACT_BADARCH, refuse)  # x32 and i386 calls on x86_64: refused whole
    for name in [*DENIED, *(UNGROUPED_DENIED if variant == UNGROUPED else ())]:
        if variant == ZYGOTE and name in ZYGOTE_ALLOWED:
            continue
        if seccomp.resolve_syscall(seccomp.Arch.NATIVE, name) >= 0:
            rules.add_rule(refuse, name)
        elif name in NEWER_CALLS and os.uname().machine in ("x86_64", "aarch64"):
            rules.add_rule(refuse, NEWER_CALLS[name])
        # else: unknown to this libseccomp and too new to number here; not a call of this system
    if variant == ZYGOTE:
        rules.add_rule(refuse, "unshare", seccomp.Arg(0, seccomp.MASKED_EQ, NAMESPACE_FLAGS["CLONE_NEWUSER"],
                                                       NAMESPACE_FLAGS["CLONE_NEWUSER"]))
    for flag in NAMESPACE_FLAGS.values():
        rules.add_rule(refuse, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    # clone3 passes its flags in memory, which a filter cannot read: ENOSYS makes the C library
    # fall back to clone, whose flags are checked above (EPERM would make thread creation fail).
    if seccomp.resolve_syscall(seccomp.Arch.NATIVE, "clone3") >= 0:
        rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    for flag in PERSONALITY_FLAGS.values():
        rules.add_rule(refuse, "personality", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    for request in TERMINAL_IOCTLS.values():  # the request is an int: compare its low 32 bits only
        rules.add_rule(refuse, "ioctl", seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, request))
    for command in FILE_LOCK_COMMANDS.values():  # an int too
        rules.add_rule(refuse, "fcntl", seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, command))
    for flag in READ_FLAGS.values():
        for name in ("preadv2", "pwritev2"):
            rules.add_rule(refuse, name, seccomp.Arg(5, seccomp.MASKED_EQ, flag, flag))
    if variant == UNGROUPED:  # the domain is an int: anything but AF_UNIX
        rules.add_rule(refuse, "socket", seccomp.Arg(0, seccomp.NE, AF_UNIX))
    fd = os.memfd_create("tourney-seccomp")
    try:
        with open(fd, "rb", closefd=False) as file:
            rules.export_bpf(file)
        os.lseek(fd, 0, os.SEEK_SET)
        return _read_all(fd)
    finally:
        os.close(fd)


def unavailable() -> str | None:
    """Why no filter can be built here (None: ``program`` has one)."""
    if program() is not None:
        return None
    try:
        import pyseccomp  # noqa: F401
    except ImportError:
        return "the pyseccomp package is not installed (pip install pyseccomp)"
    except OSError:
        return "libseccomp is not installed (apt-get install libseccomp2)"
    return "the filter could not be built"


def descriptor(variant: str = STRICT) -> int:
    """A new descriptor from which bwrap reads the filter (the caller closes it once bwrap started)."""
    code = program(variant)
    if code is None:
        raise SeccompError(f"no seccomp filter: {unavailable()}")
    fd = os.memfd_create("tourney-seccomp")
    try:
        os.write(fd, code)
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        with contextlib.suppress(OSError):
            os.close(fd)
        raise
    return fd


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    return b"".join(chunks)
