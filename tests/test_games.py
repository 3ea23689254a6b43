"""Each game end to end: the shipped bots play `tourney run`, and every stored log verifies."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests import cli

BOTS = Path(__file__).resolve().parents[1] / "bots"


@pytest.mark.slow
@pytest.mark.parametrize("game", ["tails-on-fire", "nine-tails", "lemur-tails"])
def test_the_shipped_bots_play_each_game_and_the_logs_verify(tmp_path, game):
    """`tourney run bots/ --game G` finishes with the game's heuristic first, and `replay verify --db` passes.

    The search bot bots/ismcts.py sits out (a quarter of a second a move over hundreds of games);
    tests/bots/test_ismcts.py runs it through `tourney run` at a small budget.
    """
    db = str(tmp_path / "t.db")
    folder = tmp_path / "bots"
    shutil.copytree(BOTS, folder, ignore=shutil.ignore_patterns("ismcts.py", "rl", "__pycache__"))
    result = cli.invoke("run", str(folder), "--game", game, "--games", "1", "--jobs", "0", "--db", db, "--json")
    assert result.exit_code == 0, result.output
    standings = json.loads(result.stdout)
    bots = [row["bot"] for row in standings["standings"]]
    assert f"heuristic_{game.replace('-', '_')}" in bots and "random_program" in bots
    # bots/first_legal.sh declines Nine Tails at its handshake, and is left out with a notice.
    assert ("first_legal" in bots) == (game != "nine-tails")
    if game == "nine-tails":
        assert "left out first_legal: declined: first-legal play stalls Nine Tails" in result.stderr
    verified = cli.invoke("replay", "verify", "--db", db, "--quiet")
    assert verified.exit_code == 0, verified.output
    assert f"verified {standings['games']} games" in verified.output and "all passed" in verified.output
