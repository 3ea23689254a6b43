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
}
"""Denied with EPERM, each with why a bot may not."""

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


class SeccompError(BotError):
    """The filter cannot be built; the message is one clear line."""


@functools.cache
def program() -> bytes | None:
    """The filter as a classic BPF program (what bwrap --seccomp reads), or None without libseccomp."""
    try:
        import pyseccomp as seccomp
    except (ImportError, OSError):  # not installed, or no libseccomp.so.2 to load
        return None
    refuse = seccomp.ERRNO(errno.EPERM)
    rules = seccomp.SyscallFilter(seccomp.ALLOW)
    rules.set_attr(seccomp.Attr.ACT_BADARCH, refuse)  # x32 and i386 calls on x86_64: refused whole
    for name in DENIED:
        if seccomp.resolve_syscall(seccomp.Arch.NATIVE, name) >= 0:  # unknown to this libseccomp: not a call here
            rules.add_rule(refuse, name)
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


def descriptor() -> int:
    """A new descriptor from which bwrap reads the filter (the caller closes it once bwrap started)."""
    code = program()
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
