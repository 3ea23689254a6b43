"""Attack: outlive the game by taking over the sandbox's init. At its first act it tries to trace
pid 1 (bwrap's init, which runs as the bot's own uid) with ptrace, to read its memory with
process_vm_readv, and to make a new user namespace (where it would hold every capability); it logs
the errno of each attempt, and plays on. (setsid_daemon.py is the daemon such a take-over would
keep alive.)"""

import ctypes
import errno
import sys

GAMES = "*"
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
PTRACE_SEIZE, SYS_PTRACE, SYS_PROCESS_VM_READV, SYS_UNSHARE, CLONE_NEWUSER = 0x4206, 101, 310, 272, 0x10000000


def attempt(name: str, *args: int) -> None:
    result = LIBC.syscall(*args)
    said = "succeeded" if result >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
    print(f"{name}: {said}", file=sys.stderr, flush=True)


class Bot:
    def __init__(self, game, seat, rng):
        self.tried = False

    def act(self, turn):
        if not self.tried:
            self.tried = True
            attempt("ptrace init", SYS_PTRACE, PTRACE_SEIZE, 1, 0, 0)
            attempt("process_vm_readv init", SYS_PROCESS_VM_READV, 1, 0, 0, 0, 0, 0)
            attempt("unshare user", SYS_UNSHARE, CLONE_NEWUSER)
        return turn.legal[0]
