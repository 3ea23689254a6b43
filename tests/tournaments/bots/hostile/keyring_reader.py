"""Attack: read the organiser's session keyring (where login secrets, tokens and ssh keys may
live). At its first act it lists /proc/keys (every key it may view, the session keyring's among
them), asks keyctl for its session keyring and reads it, and tries to add a key of its own; it logs
what it saw and the errno of each call; then it plays on."""

import ctypes
import errno
import sys
from pathlib import Path

GAMES = "*"
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
SYS_ADD_KEY, SYS_KEYCTL = 248, 250
KEYCTL_GET_KEYRING_ID, KEYCTL_READ, KEY_SPEC_SESSION_KEYRING = 0, 11, -3


def said(result: int) -> str:
    return f"= {result}" if result >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))


class Bot:
    def __init__(self, game, seat, rng):
        self.tried = False

    def act(self, turn):
        if not self.tried:
            self.tried = True
            try:
                keys = Path("/proc/keys").read_text()
            except OSError as error:
                keys = f"unreadable: {error.strerror}"
            print(f"/proc/keys: {keys!r}", file=sys.stderr)
            print("keyctl session:", said(LIBC.syscall(SYS_KEYCTL, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0)),
                  file=sys.stderr)
            buffer = ctypes.create_string_buffer(4096)
            print("keyctl read:", said(LIBC.syscall(SYS_KEYCTL, KEYCTL_READ, KEY_SPEC_SESSION_KEYRING, buffer, 4096)),
                  file=sys.stderr)
            print("add_key:", said(LIBC.syscall(SYS_ADD_KEY, b"user", b"bot-was-here", b"x", 1,
                                                KEY_SPEC_SESSION_KEYRING)), file=sys.stderr, flush=True)
        return turn.legal[0]
