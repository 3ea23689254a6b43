"""ISMCTS against each game's heuristic bot: `tourney match` on paired deals, Elo with its 95% interval.

For each game, bots/ismcts.py at a fixed iteration budget (deterministic: a seed reproduces every
move) plays ``tourney match`` against the game's heuristic bot (bots/heuristic_<game>.py) at the
game's usual table (Tails on Fire 4 seats, Nine Tails 3, Lemur Tails 2: the other seats are copies
of the heuristic), each deal from every seat rotation. The match's paired statistics give the
logistic Elo of ISMCTS over the heuristic and its 95% interval; one line per game:

    strength: tails-on-fire ismcts-vs-heuristic elo=+180 [+95, +275] games=240

The goal (issue 23) is a lower bound above +50 in each game. docs/benchmarks.md records the runs.
Move time is generous (the budget is in iterations, so the clock only guards against a stuck bot
on a loaded machine); `--iterations` sets one budget for every game, else the bot's own defaults.

Usage: python bench/strength.py [--game G]... [--deals N] [--iterations I] [--jobs J] [--seed S]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bots import ismcts  # noqa: E402 (after the sys.path line)

GAMES = ("tails-on-fire", "nine-tails", "lemur-tails")
GOAL = 50.0

def measure(game: str, deals: int, iterations: int, jobs: int, seed: str, folder: Path) -> dict:
    """Play the match and return its statistics (tourney match --json)."""
    candidate = folder / f"ismcts_{game.replace('-', '_')}.py"
    candidate.write_text(ismcts.bot_file(iterations))
    baseline = ROOT / "bots" / f"heuristic_{game.replace('-', '_')}.py"
    command = [sys.executable, "-m", "tournaments", "match", str(candidate), str(baseline), "--game", game,
               "--games", str(deals), "--seed", seed, "--jobs", str(jobs), "--move-time", "30",
               "--time-bank", "120", "--cpu-seconds", "3600", "--json", "--db", str(folder / f"{game}.db")]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"error: tourney match failed for {game}: {done.stderr.strip()}")
    stats = json.loads(done.stdout)
    # A forfeit would count as a win or a loss: say how many games ended so, and why.
    games = subprocess.run([sys.executable, "-m", "tournaments", "games", "--forfeits", "--json", "--db",
                            str(folder / f"{game}.db")], cwd=ROOT, capture_output=True, text=True, check=True)
    stats["forfeits"] = [f"{g['forfeit']['bot']}: {g['forfeit']['reason']}" for g in json.loads(games.stdout)]
    return stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", choices=GAMES, help="a game (repeat; default all three)")
    parser.add_argument("--deals", type=int, default=40, help="deals per game, each from every seat rotation")
    parser.add_argument("--iterations", type=int, help="ISMCTS iterations per move (default: the bot's per game)")
    parser.add_argument("--jobs", type=int, default=2, help="games played at once")
    parser.add_argument("--seed", default="strength", help="seed of every deal")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        for game in args.game or GAMES:
            iterations = args.iterations or ismcts.ITERATIONS[game]
            began = time.perf_counter()
            stats = measure(game, args.deals, iterations, args.jobs, args.seed, Path(scratch))
            low, elo, high = stats["estimate"]["elo"]
            verdict = "goal met" if low > GOAL else f"goal NOT met (lower bound {low:+.0f} <= +{GOAL:.0f})"
            print(f"strength: {game} ismcts-vs-heuristic elo={elo:+.0f} [{low:+.0f}, {high:+.0f}] "
                  f"games={stats['games']}", flush=True)
            print(f"  {iterations} iterations per move, {stats['players']} seats, {stats['deals']} deals, "
                  f"score {stats['estimate']['score']:.3f}, W/D/L {stats['wins']}/{stats['draws']}/{stats['losses']}, "
                  f"{time.perf_counter() - began:.0f} s, {len(stats['forfeits'])} forfeits; {verdict}", flush=True)
            for forfeit in sorted(set(stats["forfeits"])):
                print(f"  forfeit: {forfeit}", flush=True)


if __name__ == "__main__":
    main()
