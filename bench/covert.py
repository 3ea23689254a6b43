"""The best channel the sandbox leaves between two games: the page cache of a shared read-only file.

docs/security.md, "What remains", says what a sealed game still shares with the others: the pages
of the read-only files every sandbox reads (the system's libraries, tourney's Python), cached or
not. A bot cannot ask the kernel which are cached (mincore, cachestat, preadv2 with RWF_NOWAIT
are refused), nor drop them (fadvise), but it can load one by reading it, and tell whether one was
loaded by how long reading it takes. This bench builds that channel for real, in sandboxed games
played as a tournament plays them, and measures it:

* the organiser (this process) drops a large shared file's pages from the cache (what a bot cannot
  do: it stands for a file nobody has read lately);
* a game: the sender bot reads one page per 1-bit of a message (pages 64 apart, beyond any
  read-ahead);
* the next game: the receiver bot times a one-byte read of each of those pages and decides each
  bit by a threshold (a read served from the cache takes microseconds, from the disk far more).

It prints the bits sent, the bits received correctly, the receiver's probing time and the rate:

    covert: page-cache file=/usr/lib/chromium/chromium bits=512 correct=512 probe_ms=40.1 bits/s=12768
    covert: error rate: 0.000

Usage: python bench/covert.py [--bits N] [--file PATH]
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tournaments.bots.spec import Confinement, Limits, Resources  # noqa: E402
from tournaments.play import preparation, runner  # noqa: E402
from tournaments.play.schedule import table_games  # noqa: E402
from tournaments.sandbox import sandbox  # noqa: E402 (after the sys.path line)

GAME = "lemur-tails"
STRIDE = 64 * 4096
"""Bytes between two bits' pages: more than the kernel reads ahead around one read (128 KiB)."""

BOT = '''"""One end of a page-cache channel (bench/covert.py): ROLE."""
import os, sys, time
GAMES = "*"
ROLE = "ROLE_NAME"
STRIDE = STRIDE_BYTES
PLAN = PLAN_JSON


class Bot:
    def __init__(self, game, seat, rng):
        self.done = False

    def act(self, turn):
        if not self.done:
            self.done = True
            plan = PLAN
            fd = os.open(plan["file"], os.O_RDONLY)
            if ROLE == "send":
                for i, bit in enumerate(plan["bits"]):
                    if bit == "1":
                        os.pread(fd, 1, i * STRIDE)
            else:
                began = time.perf_counter()
                times = []
                for i in range(len(plan["bits"])):
                    start = time.perf_counter_ns()
                    os.pread(fd, 1, i * STRIDE)
                    times.append(time.perf_counter_ns() - start)
                took = time.perf_counter() - began
                fast = sorted(times)[: max(len(times) // 8, 1)]
                cutoff = 8 * (sum(fast) / len(fast))
                bits = "".join("1" if t < cutoff else "0" for t in times)
                print(f"received {bits} in {took * 1000:.3f} ms", file=sys.stderr, flush=True)
        return turn.legal[0]
'''


def largest_shared_file() -> str:
    """The largest regular file under /usr (what every sandbox sees), for the channel's pages."""
    best = (0, "")
    for folder, _, names in os.walk("/usr"):
        for name in names:
            path = os.path.join(folder, name)
            try:
                info = os.stat(path, follow_symlinks=False)
            except OSError:
                continue
            if info.st_size > best[0] and (info.st_mode & 0o004):
                best = (info.st_size, path)
    return best[1]


def drop_cached(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def play(folder: Path, bot: str, confinement: Confinement) -> bytes:
    """One sandboxed game of ``bot`` against random_bot; the bot's stderr."""
    prepared, k = preparation.prepare(folder, GAME, None, Limits(), confinement)
    with prepared:
        spec = runner.Spec(GAME, k, 1, "covert", 1.0, 5.0, tuple(prepared.bots), sandbox=True,
                           clock=confinement.clock, ponder=confinement.ponder)
        scheduled = table_games(0, (bot, "random_bot"), [0], "covert")[0]
        result = runner.play_job(runner.Job(spec, scheduled, keep_logs=True))
        return result.logs[0] or b""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bits", type=int, default=512)
    parser.add_argument("--file", default=None, help="the shared file (default: the largest under /usr)")
    args = parser.parse_args()
    problem = sandbox.unavailable()
    if problem is not None:
        sys.exit(f"error: {problem}")
    path = args.file or largest_shared_file()
    bits = min(args.bits, os.path.getsize(path) // STRIDE)
    message = "".join(secrets.choice("01") for _ in range(bits))
    confinement = Confinement(True, Resources(), *sandbox.timing())
    with tempfile.TemporaryDirectory() as directory:
        received = ""
        took = 0.0
        for role in ("send", "receive"):
            folder = Path(directory) / role
            folder.mkdir()
            os.chmod(folder, 0o755)
            shutil.copy(ROOT / "bots" / "random_bot.py", folder / "random_bot.py")
            source = BOT.replace("ROLE_NAME", role).replace("ROLE", role).replace("STRIDE_BYTES", str(STRIDE))
            plan = repr({"file": path, "bits": message})
            (folder / f"covert_{role}.py").write_text(source.replace("PLAN_JSON", plan))
            if role == "send":
                drop_cached(path)
            log = play(folder, f"covert_{role}", confinement).decode(errors="replace")
            if role == "receive":
                found = re.search(r"received ([01]+) in ([\d.]+) ms", log)
                if found is None:
                    sys.exit(f"error: the receiver said nothing: {log[-300:]}")
                received, took = found.group(1), float(found.group(2))
    correct = sum(a == b for a, b in zip(message, received, strict=True))
    print(f"covert: page-cache file={path} bits={bits} correct={correct} probe_ms={took:.1f} "
          f"bits/s={bits / (took / 1000):.0f}")
    print(f"covert: error rate: {1 - correct / bits:.3f}")


if __name__ == "__main__":
    main()
