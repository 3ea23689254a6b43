"""Helpers that build real logs and forge them the way an attacker would."""

from __future__ import annotations

import copy
import random

from engines import registry
from engines.driver import play
from ledger.chain import body_of, link
from replays import log as logfmt
from replays.record import SeatInfo, record


class RandomAgent:
    def __init__(self, seed):
        self.rng = random.Random(seed)

    def act(self, turn):
        return self.rng.choice(turn.legal)


def real_log(game: str, seed: str = "s", seats: int | None = None, agents=None, game_id=None) -> dict:
    """A full log of a real game played by random bots (or the given agents)."""
    engine = registry.get(game)
    config = engine.configure(seats or engine.default_seats)
    agents = agents or [RandomAgent(f"{seed}/{i}") for i in range(config.seats)]
    played = play(engine, config, seed, agents)
    infos = [SeatInfo(f"bot{i}", f"{i:064x}") for i in range(config.seats)]
    return logfmt.from_recorded(record(engine, config, seed, played, infos, game_id=game_id or f"g-{game}-{seed}",
                                       salt_key=b"k" * 32))


def reseal(log: dict) -> dict:
    """Recompute seqs, hashes and the head after a forgery, as a forger with no key would."""
    forged = copy.deepcopy(log)
    prev = None
    for seq, event in enumerate(forged["events"]):
        event["seq"] = seq
        body = body_of(forged["game_id"], seq, event["type"], event["audience"], event["data"],
                       event["commitment"], event["step"])
        prev = event["hash"] = link(prev, body)
    forged["head"] = prev
    return forged
