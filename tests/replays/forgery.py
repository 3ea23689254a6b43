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


def forge_forfeit(log: dict, step: int = 1) -> dict:
    """The log cut after ``step`` (>= 1; or the first step after it where a seat is to act), that seat made to
    forfeit: a seat_forfeited and its game_ended appended, ``signature`` dropped, every hash and the head recomputed
    (as docs/log-format.md hashes them). It verifies on its own (an unsigned log proves only its own consistency)
    and differs from the real one from that step on."""
    from engines.driver import forfeit_ranking
    from replays.verify import verify_log

    engine = registry.get(log["game"], log["engine_version"])
    states: dict[int, object] = {}
    verify_log({k: v for k, v in log.items() if k != "signature"},
               watch=lambda _actor, events, state: states.setdefault(events[0]["step"], state))
    step = next(s for s in sorted(states) if s >= step and engine.actor(states[s]) >= 0)
    state = states[step]
    seat = engine.actor(state)
    forged = copy.deepcopy({k: v for k, v in log.items() if k != "signature"})
    forged["events"] = [event for event in forged["events"] if event["step"] <= step]
    ended = {"opening": forged["events"][0]["hash"], "ranking": list(forfeit_ranking(engine.ranking(state), seat)),
             "reason": "forfeit", "seed": log["seed"]}
    scores = engine.scores(state)
    if scores is not None:
        ended["scores"] = list(scores)
    forged["events"] += [
        {"seq": 0, "step": step + 1, "type": "seat_forfeited", "audience": "public",
         "data": {"reason": "timeout", "seat": seat}, "commitment": None, "hash": ""},
        {"seq": 0, "step": step + 2, "type": "game_ended", "audience": "public", "data": ended,
         "commitment": None, "hash": ""}]
    forged["result"] = {"ranking": ended["ranking"], "reason": "forfeit"}
    return reseal(forged)
