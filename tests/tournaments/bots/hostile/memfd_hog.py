"""Attack: memory that no rlimit counts. At its first act it makes 48 memfd files of 64 MiB each
(3 GiB) and writes every page of each (a memfd's pages are shared memory: they count against no
process's address space), logging how many it holds; then it plays on, if it still can."""

import os
import sys

GAMES = "*"
MIB = 1 << 20


class Bot:
    def __init__(self, game, seat, rng):
        self.files = []

    def act(self, turn):
        if not self.files:
            chunk = b"x" * MIB
            for i in range(48):
                fd = os.memfd_create(f"hoard-{i}")
                for _ in range(64):
                    os.write(fd, chunk)
                self.files.append(fd)
                print(f"holding {len(self.files) * 64} MiB of memfd", file=sys.stderr, flush=True)
        return turn.legal[0]
