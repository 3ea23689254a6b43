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

With ``--opponent openspiel-ismcts`` the candidate is OpenSpiel's own ISMCTSBot instead
(bots/rl/openspiel_ismcts.py at its budget, or ``--simulations`` a move) and the baseline is
bots/ismcts.py at equal CPU per move: one game in process first, both at one table, measures
each one's CPU seconds per searched move, and ISMCTS gets the iteration count that spends what
OpenSpiel's spends. One line per game, then what was measured:

    strength: lemur-tails openspiel-ismcts-vs-ismcts elo=-250 [-400, -120] games=24
      cpu per move in the calibration game: openspiel-ismcts 0.090 s at 100 simulations, ismcts 0.030 s at
      150 iterations, so ismcts played 450 iterations; ...

Usage: python bench/strength.py [--game G]... [--deals N] [--iterations I] [--jobs J] [--seed S]
       python bench/strength.py --opponent openspiel-ismcts [--simulations N] [--game G]... [--deals N]
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

import random  # noqa: E402 (after the sys.path line)

from bots import ismcts  # noqa: E402
from engines import registry  # noqa: E402
from engines.driver import play  # noqa: E402
from tournaments.bots.inprocess import load_module  # noqa: E402

GAMES = ("tails-on-fire", "nine-tails", "lemur-tails")
GOAL = 50.0
OPENSPIEL_ISMCTS = ROOT / "bots" / "rl" / "openspiel_ismcts.py"


def measure(game: str, deals: int, jobs: int, seed: str, folder: Path, candidate: Path, baseline: Path) -> dict:
    """Play the match and return its statistics (tourney match --json)."""
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


class Timed:
    """A driver agent that counts the CPU seconds its bot spends on the moves it searches (more than one legal)."""

    def __init__(self, bot) -> None:
        self.bot = bot
        self.seconds = 0.0
        self.moves = 0

    def act(self, turn) -> str:
        began = time.process_time()
        action = self.bot.act(turn)
        if len(turn.legal) > 1:
            self.seconds += time.process_time() - began
            self.moves += 1
        return action

    def per_move(self) -> float:
        return self.seconds / max(self.moves, 1)


def calibrate(game: str, candidate: Path, seed: str) -> tuple[float, float, int]:
    """CPU seconds per searched move of OpenSpiel's ISMCTS (``candidate``) and of bots/ismcts.py at its default
    iterations, from one game in this process with OpenSpiel's in seat 0 and ISMCTS in the others; and the
    iterations that give ISMCTS the same CPU per move."""
    engine = registry.get(game)
    config = engine.configure(engine.default_seats)
    spiel = Timed(load_module(str(candidate)).Bot(game, 0, random.Random(0)))
    iterations = ismcts.ITERATIONS[game]
    own = [Timed(ismcts.Bot(game, seat, random.Random(seat), iterations=iterations))
           for seat in range(1, config.seats)]
    play(engine, config, f"{seed}-calibration", [spiel, *own])
    theirs = sum(bot.seconds for bot in own) / max(sum(bot.moves for bot in own), 1)
    return spiel.per_move(), theirs, max(1, round(iterations * spiel.per_move() / theirs))


def versus_openspiel(args, folder: Path) -> None:
    """OpenSpiel's ISMCTSBot against bots/ismcts.py at equal CPU per move, game by game (the module docstring)."""
    source = OPENSPIEL_ISMCTS.read_text()
    if args.simulations:
        source += f"\n\n# written by bench/strength.py\nSIMULATIONS = dict.fromkeys(GAMES, {args.simulations})\n"
    candidate = folder / "openspiel_ismcts.py"
    candidate.write_text(source)
    simulations = load_module(str(candidate)).SIMULATIONS
    for game in args.game or GAMES:
        began = time.perf_counter()
        spiel_cpu, own_cpu, iterations = calibrate(game, candidate, args.seed)
        baseline = folder / f"ismcts_{game.replace('-', '_')}.py"
        baseline.write_text(ismcts.bot_file(iterations))
        stats = measure(game, args.deals, args.jobs, args.seed, folder, candidate, baseline)
        low, elo, high = stats["estimate"]["elo"]
        print(f"strength: {game} openspiel-ismcts-vs-ismcts elo={elo:+.0f} [{low:+.0f}, {high:+.0f}] "
              f"games={stats['games']}", flush=True)
        print(f"  cpu per move in the calibration game: openspiel-ismcts {spiel_cpu:.3f} s at {simulations[game]} "
              f"simulations, ismcts {own_cpu:.3f} s at {ismcts.ITERATIONS[game]} iterations, so ismcts played "
              f"{iterations} iterations; {stats['players']} seats, {stats['deals']} deals, "
              f"score {stats['estimate']['score']:.3f}, W/D/L {stats['wins']}/{stats['draws']}/{stats['losses']}, "
              f"{time.perf_counter() - began:.0f} s, {len(stats['forfeits'])} forfeits", flush=True)
        for forfeit in sorted(set(stats["forfeits"])):
            print(f"  forfeit: {forfeit}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", choices=GAMES, help="a game (repeat; default all three)")
    parser.add_argument("--deals", type=int, default=40, help="deals per game, each from every seat rotation")
    parser.add_argument("--iterations", type=int, help="ISMCTS iterations per move (default: the bot's per game)")
    parser.add_argument("--jobs", type=int, default=2, help="games played at once")
    parser.add_argument("--seed", default="strength", help="seed of every deal")
    parser.add_argument("--opponent", choices=("heuristic", "openspiel-ismcts"), default="heuristic",
                        help="ISMCTS against the heuristic bots, or OpenSpiel's ISMCTS against ISMCTS at equal CPU")
    parser.add_argument("--simulations", type=int, help="OpenSpiel ISMCTS simulations a move (default: its file's)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        if args.opponent == "openspiel-ismcts":
            versus_openspiel(args, Path(scratch))
            return
        for game in args.game or GAMES:
            iterations = args.iterations or ismcts.ITERATIONS[game]
            began = time.perf_counter()
            candidate = Path(scratch) / f"ismcts_{game.replace('-', '_')}.py"
            candidate.write_text(ismcts.bot_file(iterations))
            baseline = ROOT / "bots" / f"heuristic_{game.replace('-', '_')}.py"
            stats = measure(game, args.deals, args.jobs, args.seed, Path(scratch), candidate, baseline)
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
