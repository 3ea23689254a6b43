"""Verification speed beside play speed, for the same games, in one run.

Each round plays a batch of games between in-process random bots exactly as
``tourney run --jobs 0`` does, all in one process (the runner's per-game path: bots with
their time limits, the driver, every event folded and sealed, the game stored in an SQLite
ledger in one transaction; with ``--jobs 1`` a worker process plays and this one stores),
then exports the stored games to JSON log text (not timed) and verifies every log from its
text as ``tourney replay verify`` does (parse, shape, hash chain, seed, every chance step
re-derived, every decision re-decided, the result).
Rounds alternate so both see the same machine noise.

It also prints the play rate in memory only (driver and sealing, no bots' time limits,
no database), for transparency. The ratio is verified over played (the tourney run
path), and the last line is the smallest ratio over the games:

    lemur-tails played=9876 events/s (in memory 15432) verified=23456 events/s ratio: 2.37
    ratio: 2.37

Then verification on every core (issue 30): a ledger of G random-bot Tails on Fire games
(default 2,000, played and sealed in memory, stored in one SQLite file) is verified as
``tourney replay verify --db`` verifies it (replays.game_audit.stored_games: each game exported,
refolded, its rows and signature checked) by one worker process and by two
(``--jobs 1``, ``--jobs 2``: the workers are started in the timed part, as the command starts
them), rounds alternating, best of R, in wall-clock time. The line printed (a contract):

    verify: jobs1=N jobs2=N games/s speedup: X

Usage: python bench/verify.py [--seconds S] [--game NAME] [--only ratio|speedup] [--games G] [--rounds R]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.engine import RandomAgent
from engines import registry
from engines.driver import play
from ledger.store import Ledger
from replays import archive, game_audit
from replays import log as logfmt
from replays.record import Recorded, SeatInfo, record
from replays.verify import collector_paused, verify_log
from tournaments.bots.discovery import sha256_file
from tournaments.bots.spec import PYTHON, BotSpec
from tournaments.play.executors.choice import Local
from tournaments.play.runner import Job, Spec, play_job
from tournaments.play.schedule import schedule

SEATS = {"tails-on-fire": 4, "nine-tails": 3, "lemur-tails": 2}
RANDOM_BOT = Path(__file__).resolve().parent.parent / "bots" / "random_bot.py"


def spec_for(game: str) -> Spec:
    bots = tuple(BotSpec(f"random{i}", PYTHON, str(RANDOM_BOT), sha256_file(RANDOM_BOT), ("*",))
                 for i in range(SEATS[game]))
    return Spec(game, SEATS[game], 1, "bench", 1.0, 5.0, bots)


def play_and_store(ledger: Ledger, spec: Spec, round_: int, bot_ids: dict[str, int]) -> list[str]:
    """One deal from every rotation, through the runner's per-game path; returns the game ids."""
    ids = []
    for scheduled in schedule([b.name for b in spec.bots], spec.players, 1, f"bench-{round_}"):
        result = play_job(Job(spec, scheduled), in_worker=True)  # the bots in this process
        seats = [bot_ids[seat.name] for seat in result.recorded.seats]
        archive.store_recorded(ledger, result.recorded, seats, result.scores)
        ids.append(result.recorded.game_id)
    return ids


def recorded_in_memory(game: str, seed: str) -> Recorded:
    """One random-bot game played and sealed in memory (driver and sealing only)."""
    engine = registry.get(game)
    config = engine.configure(SEATS[game])
    rng = random.Random(seed)
    played = play(engine, config, seed, [RandomAgent(rng) for _ in range(config.seats)])
    seats = [SeatInfo(f"random{i}", "0" * 64) for i in range(config.seats)]
    return record(engine, config, seed, played, seats)


def play_in_memory(game: str, seed: str) -> int:
    return len(recorded_in_memory(game, seed).records)


def measure(game: str, seconds: float, directory: Path) -> dict[str, float]:
    ledger = Ledger(str(directory / f"{game}.db"))
    spec = spec_for(game)
    bot_ids = {b.name: ledger.ensure_bot(b.name, b.content_hash, b.kind) for b in spec.bots}
    spent = {"played": 0.0, "memory": 0.0, "verified": 0.0}
    events = {"played": 0, "memory": 0, "verified": 0}
    deadline = time.perf_counter() + seconds
    round_ = 0
    while time.perf_counter() < deadline:
        began = time.perf_counter()
        ids = play_and_store(ledger, spec, round_, bot_ids)
        spent["played"] += time.perf_counter() - began
        texts = [logfmt.dumps(archive.export(ledger, game_id)) for game_id in ids]
        count = sum(len(logfmt.parse(text)["events"]) for text in texts)
        events["played"] += count
        began = time.perf_counter()
        for text in texts:
            with collector_paused():
                verify_log(logfmt.parse(text))
        spent["verified"] += time.perf_counter() - began
        events["verified"] += count
        began = time.perf_counter()
        for rotation in range(len(ids)):
            events["memory"] += play_in_memory(game, f"bench-{round_}-{rotation}")
        spent["memory"] += time.perf_counter() - began
        round_ += 1
    ledger.close()
    return {kind: events[kind] / spent[kind] for kind in spent}


def speedup(games: int, rounds: int, directory: Path) -> dict[int, float]:
    """Games verified per second (wall clock) by one worker process and by two, best of ``rounds``."""
    ledger = Ledger(str(directory / "speedup.db"))
    bots = [ledger.ensure_bot(f"random{i}", "0" * 64, "python") for i in range(SEATS[SPEEDUP_GAME])]
    for number in range(games):
        archive.store_recorded(ledger, recorded_in_memory(SPEEDUP_GAME, f"speedup-{number}"), bots)
    ids = ledger.game_ids()
    best = {1: float("inf"), 2: float("inf")}
    for _ in range(rounds):
        for jobs in best:
            began = time.perf_counter()
            with Local(jobs) as pool:
                verdicts = list(game_audit.stored_games(ledger, ids, None, pool))
            best[jobs] = min(best[jobs], time.perf_counter() - began)
            assert len(verdicts) == games and all(v.state == game_audit.OK for v in verdicts), "a game did not verify"
    ledger.close()
    return {jobs: games / seconds for jobs, seconds in best.items()}


SPEEDUP_GAME = "tails-on-fire"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--game", choices=sorted(SEATS))
    parser.add_argument("--only", choices=("ratio", "speedup"), help="one of the two measures (default: both)")
    parser.add_argument("--games", type=int, default=2000, help="games of the ledger the speed-up is measured on")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the speed-up (the best is kept)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        if args.only != "speedup":
            ratios = []
            for game in SEATS:
                if (args.game and game != args.game) or game not in registry.names():
                    continue
                rates = measure(game, args.seconds, Path(directory))
                ratio = rates["verified"] / rates["played"]
                ratios.append(ratio)
                print(f"{game} played={rates['played']:.0f} events/s (in memory {rates['memory']:.0f}) "
                      f"verified={rates['verified']:.0f} events/s ratio: {ratio:.2f}", flush=True)
            print(f"ratio: {min(ratios):.2f}", flush=True)
        if args.only != "ratio":
            rates = speedup(args.games, args.rounds, Path(directory))
            print(f"verify: jobs1={rates[1]:.0f} jobs2={rates[2]:.0f} games/s speedup: {rates[2] / rates[1]:.2f}")


if __name__ == "__main__":
    main()
