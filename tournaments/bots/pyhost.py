"""Run an in-process Python bot as a separate process speaking the JSON-lines protocol.

    python -m tournaments.bots.pyhost path/to/bot.py

Ladders never import a submitted bot into their own process: a Python submission is run
through this host, under the ladder's CPU-time and memory limits. The bot sees the same
``turn`` as in process (``legal``, ``view``, ``events``, ``seat``) and gets its seeded
``random.Random`` from the hello message.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass
from typing import Any

import orjson

from engines.base import Event
from tournaments.bots.inprocess import load_module


@dataclass(slots=True)
class HostedTurn:
    seat: int
    legal: list[str]
    view: dict[str, Any]
    events: list[Event]


def _event(message: dict[str, Any], seat: int) -> Event:
    private = message.get("private")
    audience = (seat,) if private is not None else ((-1,) if message.get("hidden") else ())
    return Event(message["type"], message.get("data", {}), private, audience)


def serve(path: str, stdin=sys.stdin.buffer, stdout=sys.stdout.buffer) -> int:
    module = load_module(path)
    bot = None
    seat = 0
    for line in stdin:
        message = orjson.loads(line)
        kind = message.get("type")
        if kind == "hello":
            games = module.GAMES
            if games != "*" and message["game"] not in games:
                answer = {"type": "decline", "reason": f"plays {', '.join(games)}, not {message['game']}"}
            else:
                seat = message["seat"]
                bot = module.Bot(message["game"], seat, random.Random(message["seed"]))
                answer = {"type": "ready"}
        elif kind == "act" and bot is not None:
            turn = HostedTurn(seat, message["legal"], message["view"], [_event(e, seat) for e in message["events"]])
            answer = {"type": "action", "action": bot.act(turn)}
        elif kind == "end":
            return 0
        else:
            continue
        stdout.write(orjson.dumps(answer) + b"\n")
        stdout.flush()
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tournaments.bots.pyhost BOT.py")
    sys.exit(serve(sys.argv[1]))
