"""Heuristic bots against random ones: a `tourney run` series with 2 copies of each, per game.

For each game a bots folder holds two copies of the game's heuristic bot and two of
bots/random_bot.py; `tourney run` plays the round robin (every table of the game's usual
seat count, every deal from every rotation) and this prints, per kind, the mean place,
the share of first places and the mean Elo, then the Elo gap:

    tails-on-fire seats=4 games=160: heuristic mean place 1.80, firsts 43%, Elo 1650 | random ... | Elo gap: 300

Usage: python bench/series.py [--games N] [--game NAME]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("tails-on-fire", "nine-tails", "lemur-tails")


def series(game: str, deals: int, directory: Path) -> dict:
    folder = directory / game / "bots"
    folder.mkdir(parents=True)
    heuristic = ROOT / "bots" / f"heuristic_{game.replace('-', '_')}.py"
    for copy in ("a", "b"):
        shutil.copy(heuristic, folder / f"heuristic_{copy}.py")
        shutil.copy(ROOT / "bots" / "random_bot.py", folder / f"random_{copy}.py")
    command = [sys.executable, "-m", "tournaments", "run", str(folder), "--game", game, "--games", str(deals),
               "--seed", "1", "--json", "--db", str(directory / f"{game}.db")]
    return json.loads(subprocess.run(command, check=True, capture_output=True, text=True, cwd=ROOT).stdout)


def summary(result: dict, kind: str) -> tuple[float, float, float]:
    rows = [row for row in result["standings"] if row["bot"].startswith(kind)]
    games = sum(row["games"] for row in rows)
    mean_place = sum(row["mean_place"] * row["games"] for row in rows) / games
    firsts = sum(row["first"] for row in rows) / games
    elo = sum(row["elo"] for row in rows) / len(rows)
    return mean_place, firsts, elo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="deals per table")
    parser.add_argument("--game", choices=GAMES)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        for game in GAMES:
            if args.game and game != args.game:
                continue
            result = series(game, args.games, Path(directory))
            seats = {"tails-on-fire": 4, "nine-tails": 3, "lemur-tails": 2}[game]
            parts = []
            for kind in ("heuristic", "random"):
                place, firsts, elo = summary(result, kind)
                parts.append(f"{kind} mean place {place:.2f}, firsts {firsts:.0%}, Elo {elo:.0f}")
            gap = summary(result, "heuristic")[2] - summary(result, "random")[2]
            print(f"{game} seats={seats} games={result['games']}: {' | '.join(parts)} | Elo gap: {gap:.0f}",
                  flush=True)


if __name__ == "__main__":
    main()
