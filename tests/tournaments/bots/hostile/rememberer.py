"""Attack: remember one game in the next (a duplicate deal replays the same cards from every seat
rotation, so a note from one rotation tells the next the opponent's hand). At its first act in a
game it looks for what an earlier game of its own left: files in its home, /tmp and /dev/shm, a
process still running (``sleep 300.TAG``), a System V shared-memory segment, and a module global;
it logs what it found (`found: [...]`), then leaves all of these behind, logs when it was
imported and when it first acted (wall clock), and plays on."""

import ctypes
import subprocess
import sys
import time
from pathlib import Path

GAMES = "*"
TAG = Path(__file__).stem.rpartition("_")[2]
IMPORTED = time.time()
MEMORY: list[str] = []
KEY = 0x7A0B0B
LIBC = ctypes.CDLL(None, use_errno=True)


def found() -> list[str]:
    seen = [place for place in ("/home/bot", "/tmp", "/dev/shm") if (Path(place) / f"note-{TAG}").exists()]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if f"300.{TAG}" in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    seen.append("process")
            except OSError:
                pass
    if LIBC.shmget(KEY, 4096, 0) >= 0:
        seen.append("sysv")
    if MEMORY:
        seen.append("global")
    return seen


class Bot:
    def __init__(self, game, seat, rng):
        self.first = True

    def act(self, turn):
        if self.first:
            self.first = False
            print(f"found: {found()}", file=sys.stderr)
            for place in ("/home/bot", "/tmp", "/dev/shm"):
                (Path(place) / f"note-{TAG}").write_text("the opponent holds ...")
            subprocess.Popen(["sleep", f"300.{TAG}"], start_new_session=True)
            LIBC.shmget(KEY, 4096, 0o1600)
            MEMORY.append("a note")
            deadline = time.monotonic() + 5
            while "process" not in found() and time.monotonic() < deadline:  # until the sleep has started
                time.sleep(0.01)
            print(f"left: {found()}", file=sys.stderr)
            print(f"imported {IMPORTED:.6f} first act {time.time():.6f}", file=sys.stderr, flush=True)
        print(f"acted {time.time():.6f}", file=sys.stderr, flush=True)
        return turn.legal[0]
