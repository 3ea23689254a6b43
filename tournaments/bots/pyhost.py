"""Run a Python bot as a separate process speaking the JSON-lines protocol.

    python -I -m tournaments.bots.pyhost path/to/bot.py

(tourney itself starts it as ``python -I -S -c BOOT bot.py``, with the folders of its own
packages and of site-packages on sys.path: without ``site`` it starts in half the time.)

tourney never imports a bot into the organiser's process: a Python bot plays through this
host, in the bot's sandbox (or, with ``--sandbox off`` and ``--jobs 0``, as a plain process).
The bot sees the same ``turn`` as in process (``legal``, ``view``, ``events``, ``seat``) and
gets its seeded ``random.Random`` from the hello message.

The host imports the bot before it reads hello, so that a slow import counts against the
handshake time. A bot that fails to import or construct answers hello with its failure, as
``{"type": "failed", "reason": ..., "diagnosis": {...}}`` in the words an in-process bot's
failure gets (``crashed while starting: SystemExit: 3``): the check before a tournament leaves it
out, and in a game it forfeits at its first turn, where the handshake is. An exception in act is
reported the same way. ``diagnosis`` holds the exception's traceback from the bot's own first
frame on (tournaments.bots.diagnosis), which the host also writes to stderr, where Python would
have: it is private to the bot's owner, the reason public. The bot's own prints go to stderr,
never into the protocol.
"""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass
from typing import Any

import orjson

from engines.base import Event
from engines.driver import BotFailure, not_an_action
from tournaments.bots.diagnosis import attribute
from tournaments.bots.inprocess import BotCrash, crashed, load_module, start_bot


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


def _protocol_streams():
    """The protocol's own copies of stdin and stdout; fd 0 becomes /dev/null and fd 1 stderr."""
    incoming = os.fdopen(os.dup(0), "rb")
    outgoing = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull)  # noqa: SIM115 (lives as long as the process)
    sys.stdout = sys.stderr
    return incoming, outgoing


def serve(path: str, stdin, stdout) -> int:
    failure: BotFailure | None = None
    module = None
    try:
        module = load_module(path)
    except BotFailure as error:
        failure = error
    bot = None
    seat = 0
    for line in stdin:
        message = orjson.loads(line)
        kind = message.get("type")
        if kind == "hello":
            games = getattr(module, "GAMES", "*")
            if games != "*" and message["game"] not in games:
                answer = {"type": "decline", "reason": f"plays {', '.join(games)}, not {message['game']}"}
            else:
                seat = message["seat"]
                if failure is None:
                    try:
                        bot = start_bot(path, message["game"], seat, message["seed"])
                    except BotFailure as error:
                        failure = error
                answer = {"type": "ready"} if failure is None else failed(failure)
        elif kind == "act":
            answer = _act(bot, failure, seat, message, path)
        elif kind == "end":
            return 0
        else:
            continue
        stdout.write(orjson.dumps(answer) + b"\n")
        stdout.flush()
    return 0


def failed(failure: BotFailure) -> dict[str, Any]:
    """The answer that reports the bot's failure: its reason, and for an exception its traceback (also
    written to stderr, where the bot's own prints and the organiser's --bot-logs see it)."""
    answer: dict[str, Any] = {"type": "failed", "reason": str(failure)}
    if isinstance(failure, BotCrash):
        told = failure.diagnosis
        answer["diagnosis"] = {"summary": told.summary, "detail": told.detail, "where": told.where}
        with contextlib.suppress(OSError):
            os.write(2, f"{told.detail.rstrip()}\n".encode("utf-8", "replace"))
    return answer


def _act(bot: Any, failure: BotFailure | None, seat: int, message: dict[str, Any], path: str) -> dict[str, Any]:
    if failure is not None or bot is None:
        return failed(failure or BotFailure("crashed while starting: no hello"))
    turn = HostedTurn(seat, message["legal"], message["view"], [_event(e, seat) for e in message["events"]])
    try:
        action = bot.act(turn)
    except BaseException as error:  # the bot's failure, reported as an in-process bot's would be
        return failed(crashed(error, path, called=attribute(bot, "act")))
    try:
        orjson.dumps(action)
    except TypeError:
        return {"type": "failed", "reason": not_an_action(action)}
    return {"type": "action", "action": action}


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tournaments.bots.pyhost BOT.py")
    sys.exit(serve(sys.argv[1], *_protocol_streams()))


if __name__ == "__main__":
    main()
