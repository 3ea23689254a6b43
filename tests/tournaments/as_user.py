"""Running tourney as an ordinary user from tests that run as root (CI's case).

As an ordinary user tourney has no cgroups (no cgroup v1 without root, no delegated v2 subtree
here): bots play in cold sandboxes, one bwrap per bot per game, bounded by rlimits and mount sizes,
timed by the wall clock. That is the other half of what the sandbox promises (docs/security.md),
and these tests play it for real: ``command`` wraps a command line so that it runs as USER.

tourney's Python (the interpreter, the virtual environment, the checkout) and the test's own folder
may sit under folders that user cannot enter (root's home is 0700, so is pytest's base folder
under /tmp). The command therefore runs in a mount namespace of its own in which each such folder
is covered by an empty tmpfs holding, bound again at their own paths, only the entries the way to
what the command needs passes through: the host's folders are neither changed nor shown.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

import engines
import tournaments

USER = 65534
"""nobody: an ordinary user with no files of its own."""

OPEN_UP = r'''
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
def check(result, what):
    if result != 0:
        raise OSError(ctypes.get_errno(), what)
uid = int(sys.argv[1])
separator = sys.argv.index("--")
needed = [os.path.realpath(path) for path in sys.argv[2:separator]]
check(libc.unshare(0x00020000), "unshare")
check(libc.mount(b"none", b"/", None, 16384 | (1 << 18), None), "make / private")
closed = set()
for path in sorted(needed, key=len):
    parts = path.strip("/").split("/")
    for depth in range(1, len(parts)):
        folder = "/" + "/".join(parts[:depth])
        if folder in closed or os.stat(folder).st_mode & 0o001:
            continue
        # Everything needed through this folder, its entries kept open before the tmpfs hides them.
        below = sorted({p[len(folder) + 1:].split("/")[0] for p in needed if p.startswith(folder + "/")})
        kept = [(name, os.open(f"{folder}/{name}", os.O_PATH)) for name in below]
        check(libc.mount(b"tmpfs", folder.encode(), b"tmpfs", 2 | 4, b"mode=0755,size=64k"), "tmpfs " + folder)
        for name, fd in kept:
            target = f"{folder}/{name}"
            if os.path.isdir(f"/proc/self/fd/{fd}"):
                os.mkdir(target)
            else:
                open(target, "w").close()
            source = f"/proc/self/fd/{fd}".encode()
            check(libc.mount(source, target.encode(), None, 4096 | 16384, None), "bind " + target)
            os.close(fd)
        closed.add(folder)
os.setgroups([])
os.setgid(uid)
os.setuid(uid)
os.execvp(sys.argv[separator + 1], sys.argv[separator + 1:])
'''
"""Run as root: ``python -c OPEN_UP UID NEEDED... -- COMMAND...``."""


def needed_paths(*extra: str | Path) -> list[str]:
    """What a tourney run needs to reach: the interpreter and its prefix, the virtual environment, every
    folder on sys.path (site-packages, an editable install's checkout), and ``extra``."""
    paths = {os.path.realpath(sys.executable), sys.base_prefix, sys.prefix,
             str(Path(engines.__file__).parents[1]), str(Path(tournaments.__file__).parents[1])}
    paths |= {path for path in sys.path if path and os.path.isdir(path)}
    return sorted(paths | {str(path) for path in extra})


def command(argv: Sequence[str], *extra: str | Path) -> list[str]:
    """``argv`` run as USER, with the paths tourney needs and ``extra`` (the test's folder) reachable."""
    return [sys.executable, "-I", "-c", OPEN_UP, str(USER), *needed_paths(*extra), "--", *argv]


def environment(home: Path) -> dict[str, str]:
    """The user's environment: no root's leftovers, a home of the test's."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8",
            "PYTHONHASHSEED": os.environ.get("PYTHONHASHSEED", "0")}


def hand_over(folder: Path) -> None:
    """Give USER the test's folder (and everything in it) to write in."""
    for root, folders, files in os.walk(folder):
        os.chown(root, USER, USER)
        for name in folders + files:
            os.chown(os.path.join(root, name), USER, USER, follow_symlinks=False)
