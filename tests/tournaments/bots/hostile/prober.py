"""Attack: watch the machine and the other sandboxes. At its first act it tries every way it knows to
see what other processes do to the kernel's shared state: which pages of a shared read-only file
are cached (mincore, cachestat, preadv2 with RWF_NOWAIT, and the other end: fadvise, readahead,
asynchronous I/O), watches on shared folders (inotify, fanotify, fcntl F_NOTIFY), locks on shared
files (flock, fcntl record locks and leases), the machine's counters (sysinfo, /proc/stat, loadavg,
meminfo, uptime, pressure, /proc/sys), and its own capabilities. It logs the errno of each call
(`NAME: EPERM`), whether each file could be read (`read PATH: ENOENT`), its capability sets
(`CapBnd: ...`), and that a plain preadv2 and fcntl still work; then it plays on."""

import ctypes
import errno
import os
import sys

GAMES = "*"
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
SHARED = "/usr/bin/env"
"""A read-only file every sandbox reads."""
PATHS = ["/proc/stat", "/proc/loadavg", "/proc/meminfo", "/proc/uptime", "/proc/pressure/cpu", "/proc/vmstat",
         "/proc/sys/fs/file-nr", "/proc/sys/kernel/random/entropy_avail", "/proc/locks", "/proc/diskstats"]


class Flock(ctypes.Structure):
    _fields_ = [("l_type", ctypes.c_short), ("l_whence", ctypes.c_short), ("l_start", ctypes.c_long),
                ("l_len", ctypes.c_long), ("l_pid", ctypes.c_int)]


def calls(fd: int) -> dict:
    page = ctypes.create_string_buffer(4096)
    iovec = (ctypes.c_void_p * 2)(ctypes.cast(page, ctypes.c_void_p), 4096)
    lock = Flock(0, 0, 0, 0, 0)  # F_RDLCK of the whole file
    mapped = LIBC.mmap
    mapped.restype = ctypes.c_void_p
    mapped.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    address = mapped(None, 4096, 1, 2, fd, 0)  # PROT_READ, MAP_PRIVATE
    return {  # name: the x86_64 system call and its arguments
        "mincore": (27, address, 4096, page),
        "cachestat": (451, fd, page, page, 0),
        "fadvise64": (221, fd, 0, 0, 4),  # POSIX_FADV_DONTNEED
        "readahead": (187, fd, 0, 4096),
        "preadv2_nowait": (327, fd, iovec, 1, 0, 0, 8),
        "pwritev2_nowait": (328, fd, iovec, 1, 0, 0, 8),
        "io_setup": (206, 1, page),
        "inotify_init1": (294, 0),
        "inotify_init": (253,),
        "fanotify_init": (300, 0, 0),
        "fcntl_notify": (72, os.open("/usr", os.O_RDONLY), 1026, 1),  # F_NOTIFY DN_ACCESS
        "flock": (73, fd, 1 | 4),  # LOCK_SH | LOCK_NB
        "fcntl_setlk": (72, fd, 6, ctypes.byref(lock)),
        "fcntl_getlk": (72, fd, 5, ctypes.byref(lock)),
        "fcntl_ofd_setlk": (72, fd, 37, ctypes.byref(lock)),
        "fcntl_setlease": (72, fd, 1024, 0),
        "sysinfo": (99, page),
    }


class Bot:
    def __init__(self, game, seat, rng):
        self.tried = False

    def act(self, turn):
        if not self.tried:
            self.tried = True
            fd = os.open(SHARED, os.O_RDONLY)
            for name, (number, *args) in calls(fd).items():
                result = LIBC.syscall(number, *args)
                code = ctypes.get_errno()
                print(f"{name}: {'succeeded' if result >= 0 else errno.errorcode.get(code, code)}", file=sys.stderr)
            page = ctypes.create_string_buffer(4096)
            iovec = (ctypes.c_void_p * 2)(ctypes.cast(page, ctypes.c_void_p), 16)
            print(f"preadv2 plain: {'ok' if LIBC.syscall(327, fd, iovec, 1, 0, 0, 0) == 16 else 'failed'}",
                  file=sys.stderr)
            print(f"fcntl plain: {'ok' if LIBC.syscall(72, fd, 3) >= 0 else 'failed'}", file=sys.stderr)  # F_GETFL
            for path in PATHS:
                try:
                    with open(path, "rb") as file:
                        file.read()
                    print(f"read {path}: ok", file=sys.stderr)
                except OSError as error:
                    print(f"read {path}: {errno.errorcode.get(error.errno, error.errno)}", file=sys.stderr)
            with open("/proc/self/status") as status:
                for line in status:
                    if line.startswith("Cap"):
                        print(line.strip().replace("\t", " "), file=sys.stderr)
            print(f"proc: {sorted(os.listdir('/proc'))}", file=sys.stderr, flush=True)
        return turn.legal[0]
