"""Attack: read what is not the bot's: the environment of every process (tourney's secrets),
other bots' files, the host's folders; write into its own folder; and leave a note in its home
and /tmp for its next game (the same deal from the other seat)."""

import os
import sys

GAMES = "*"


def snoop() -> None:
    print(f"environment: {sorted(os.environ.items())}", file=sys.stderr)
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as file:
                print(f"environ of {pid}: {file.read()!r}", file=sys.stderr)
        except OSError as error:
            print(f"cannot read environ of {pid}: {error.strerror}", file=sys.stderr)
    for folder in (os.path.expanduser("~"), ".", "/", "/bot", "/tmp", "/home", "/root", "/work", "/etc"):
        try:
            print(f"listing {folder}: {sorted(os.listdir(folder))}", file=sys.stderr)
        except OSError as error:
            print(f"cannot list {folder}: {error.strerror}", file=sys.stderr)
    for path in ("notes.txt", "/bot/notes.txt", os.path.expanduser("~/notes.txt"), "/tmp/notes.txt"):
        try:
            with open(path, "w") as file:
                file.write("remember this")
            print(f"wrote {path}", file=sys.stderr)
        except OSError as error:
            print(f"cannot write {path}: {error.strerror}", file=sys.stderr)


class Bot:
    def __init__(self, game, seat, rng):
        snoop()

    def act(self, turn):
        return turn.legal[0]
