"""Golden replays: a few fixed games whose logs are checked in and diffed in CI.

Any change of behaviour (rules, event names or data, the log format, hashing) changes
these bytes, so it shows up as a diff someone must look at and accept. To accept one,
regenerate the files and review the diff before committing it:

    python -m tests.golden.regenerate
    git diff tests/golden/
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from engines import registry
from engines.driver import play
from replays import log as logfmt
from replays.record import SeatInfo, record
from tournaments.bots.discovery import sha256_file
from tournaments.bots.inprocess import load_module

HERE = Path(__file__).resolve().parent
BOTS = HERE.parents[1] / "bots"


@dataclass(frozen=True)
class Case:
    name: str
    game: str
    seed: str
    bots: tuple[str, ...]
    options: dict | None = None

    @property
    def path(self) -> Path:
        return HERE / f"{self.name}.json"


CASES = (
    Case("tails-on-fire-4-seats", "tails-on-fire", "golden-1",
         ("heuristic_tails_on_fire", "random_bot", "heuristic_tails_on_fire", "random_bot")),
    Case("tails-on-fire-2-seats-rogue", "tails-on-fire", "golden-2", ("heuristic_tails_on_fire", "random_bot")),
    Case("nine-tails-3-seats", "nine-tails", "golden-3", ("heuristic_nine_tails", "random_bot", "random_bot"),
         {"fast": True}),
    Case("lemur-tails", "lemur-tails", "golden-4", ("heuristic_lemur_tails", "random_bot")),
)


def render(case: Case) -> bytes:
    """The case's full log, byte for byte: fixed seed, bot seeds, game id and salt key."""
    engine = registry.get(case.game)
    config = engine.configure(len(case.bots), case.options)
    agents = [load_module(str(BOTS / f"{bot}.py")).Bot(case.game, seat, random.Random(f"{case.seed}/{seat}"))
              for seat, bot in enumerate(case.bots)]
    played = play(engine, config, case.seed, agents)
    seats = [SeatInfo(bot, sha256_file(BOTS / f"{bot}.py")) for bot in case.bots]
    recorded = record(engine, config, case.seed, played, seats, game_id=case.name, salt_key=b"golden" * 6)
    return logfmt.dumps(logfmt.from_recorded(recorded))
