"""bots/rl/: a policy trained in PettingZoo, OpenSpiel's MCTS and OpenSpiel's ISMCTS play tournaments as ordinary
bot files."""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from adapters import tabular
from engines import registry
from engines.driver import play
from tests.runs import run_and_verify
from tournaments.bots.inprocess import load_module

ROOT = Path(__file__).resolve().parents[2]
RL = ROOT / "bots" / "rl"


@pytest.mark.slow
@pytest.mark.parametrize("bot", ["openspiel_mcts", "openspiel_ismcts"])
def test_the_openspiel_bots_play_legal_moves_in_and_out_of_process(bot):
    """OpenSpiel's MCTS (one determinization a move) and ISMCTS (from the seat's information state) finish a Lemur
    Tails game, driven in process and, as a hosted bot sees it, from the seat's events alone."""
    engine = registry.get("lemur-tails")
    module = load_module(str(RL / f"{bot}.py"))

    class Hosted:
        def __init__(self, bot):
            self.bot = bot

        def act(self, turn):
            bare = type("Turn", (), {"seat": turn.seat, "legal": list(turn.legal), "events": turn.events})()
            return self.bot.act(bare)

    agents = [module.Bot("lemur-tails", 0, random.Random(1)), Hosted(module.Bot("lemur-tails", 1, random.Random(2)))]
    played = play(engine, engine.configure(2), "spiel-bot", agents)
    assert played.outcome.reason == "finished"


def test_the_trained_table_plays_every_game():
    """The PettingZoo table policy has a table for each game it declares, and plays a Tails on Fire game through."""
    module = load_module(str(RL / "pettingzoo_table.py"))
    assert set(module.TABLES) == set(module.GAMES)
    engine = registry.get("tails-on-fire")
    agents = [module.Bot("tails-on-fire", seat, random.Random(seat)) for seat in range(3)]
    assert play(engine, engine.configure(3), "table", agents).outcome.reason == "finished"


def test_training_rewrites_one_game_table_in_the_bot_file(tmp_path):
    """`python -m adapters.tabular` into a bot file puts the trained table in for that game and keeps the others."""
    bot = tmp_path / "pettingzoo_table.py"
    shutil.copy(RL / "pettingzoo_table.py", bot)
    before = load_module(str(RL / "pettingzoo_table.py")).TABLES
    tabular.main(["tails-on-fire", "3", "5", str(bot)])
    after = load_module(str(bot)).TABLES
    trained = tabular.train("tails-on-fire", 3, 5)
    assert after["tails-on-fire"] == {action: round(value, 4) for action, value in trained.items()}
    assert after["tails-on-fire"] != before["tails-on-fire"]
    assert {game: after[game] for game in ("nine-tails", "lemur-tails")} == {
        game: before[game] for game in ("nine-tails", "lemur-tails")}


@pytest.mark.slow
@pytest.mark.sandbox
def test_tourney_run_plays_the_rl_bots_and_the_logs_verify(tmp_path):
    """`tourney run` of bots/rl beside random_bot in their sandboxes (numpy, pettingzoo, open_spiel and adapters
    importable there): no forfeits, and every stored log verifies."""
    folder = tmp_path / "bots"
    shutil.copytree(RL, folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "bots" / "random_bot.py", folder / "random_bot.py")
    rows = run_and_verify(folder, "lemur-tails", tmp_path / "t.db")
    assert {row["bot"] for row in rows} == {"openspiel_ismcts", "openspiel_mcts", "pettingzoo_table", "random_bot"}


@pytest.mark.slow
@pytest.mark.sandbox
@pytest.mark.parametrize("game", ["tails-on-fire", "nine-tails", "lemur-tails"])
def test_openspiel_ismcts_plays_sandboxed_tourney_run_games_of_every_game(game, tmp_path):
    """bots/rl/openspiel_ismcts.py, as shipped (its default budget, the default move time and CPU limit), plays
    `tourney run` games of each game against random_bot, each bot in its bubblewrap sandbox: no forfeits, every
    log verifies."""
    folder = tmp_path / "bots"
    folder.mkdir()
    shutil.copy(RL / "openspiel_ismcts.py", folder / "openspiel_ismcts.py")
    shutil.copy(ROOT / "bots" / "random_bot.py", folder / "random_bot.py")
    rows = run_and_verify(folder, game, tmp_path / "t.db")
    assert {row["bot"] for row in rows} == {"openspiel_ismcts", "random_bot"}


SPENT = """
import random, resource, sys, time
from engines import registry
from engines.driver import play
from tournaments.bots.inprocess import load_module

module = load_module(sys.argv[1])
engine = registry.get("nine-tails")
bots = [module.Bot("nine-tails", seat, random.Random(seat)) for seat in range(2)]
resource.setrlimit(resource.RLIMIT_CPU, (4, resource.RLIM_INFINITY))
fresh = bots[0].out_of_cpu()
while time.process_time() < 3.1:
    pass
outcome = play(engine, engine.configure(2), "spent", bots).outcome
print(fresh, bots[0].out_of_cpu(), outcome.reason, [bot.bot is None for bot in bots])
"""


@pytest.mark.slow
def test_an_openspiel_bot_near_its_cpu_limit_plays_on_at_random_instead_of_forfeiting():
    """A process past 3/4 of its RLIMIT_CPU (a sandboxed game's --cpu-seconds, stretched on a loaded machine)
    stops searching: the ISMCTS bot finishes the game at random, its OpenSpiel bot never built, with no SIGXCPU."""
    process = subprocess.run([sys.executable, "-c", SPENT, str(RL / "openspiel_ismcts.py")], cwd=ROOT,
                             capture_output=True, text=True, timeout=120)
    assert process.returncode == 0, process.stderr
    assert process.stdout.split() == ["False", "True", "finished", "[True,", "True]"]
