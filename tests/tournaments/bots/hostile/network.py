"""Attack: open TCP connections to the host, on 127.0.0.1 at the port the test listens on and
at a public address, then play on."""

import socket
import sys

GAMES = "*"
PORT = 0  # the test writes the port it listens on here


def call_home() -> None:
    for address in (("127.0.0.1", PORT), ("1.1.1.1", 53)):
        try:
            with socket.create_connection(address, timeout=2):
                print(f"connected to {address}", file=sys.stderr)
        except OSError as error:
            print(f"cannot connect to {address}: {error}", file=sys.stderr)


class Bot:
    called = False

    def __init__(self, game, seat, rng):
        self.choose = rng.choice

    def act(self, turn):
        if not Bot.called:
            Bot.called = True
            call_home()
        return self.choose(turn.legal)
