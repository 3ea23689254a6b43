"""bots/ismcts.py: Information Set MCTS for all three games (determinism, budgets, the hosted path, a real run)."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from bots import ismcts, random_bot
from engines import registry
from engines.driver import play
from tests.runs import run_and_verify

ROOT = Path(__file__).resolve().parents[2]
GAMES = ("tails-on-fire", "nine-tails", "lemur-tails")


class Recording:
    """Wraps a bot, recording its answers; ``hosted`` hides Turn.determinize, as a bot run as a program sees it."""

    def __init__(self, bot, hosted: bool = False) -> None:
        self.bot = bot
        self.hosted = hosted
        self.moves: list[str] = []

    def act(self, turn) -> str:
        if self.hosted:
            turn = Hosted(turn.seat, list(turn.legal), turn.events)
        action = self.bot.act(turn)
        self.moves.append(action)
        return action


class Hosted:
    """What tournaments/bots/pyhost.py hands a bot: seat, legal actions, the events since it was last asked."""

    def __init__(self, seat, legal, events) -> None:
        self.seat, self.legal, self.events = seat, legal, events


def game_with_search(game: str, seed: str, iterations: int, hosted: bool = False, bot_seed: int = 5):
    """A 2-seat game (Nine Tails' fast game, NT-9, to keep it short) of the search bot against random."""
    engine = registry.get(game)
    search = Recording(ismcts.Bot(game, 0, random.Random(bot_seed), iterations=iterations, rollout_depth=20), hosted)
    agents = [search, random_bot.Bot(game, 1, random.Random(1))]
    played = play(engine, engine.configure(2, {"fast": True} if game == "nine-tails" else {}), seed, agents)
    return played, search.moves


@pytest.mark.parametrize("game", GAMES)
def test_same_seed_and_iterations_same_moves_and_the_hosted_path_agrees(game):
    """With a fixed seed and iteration budget every move repeats; fed turn.events (a hosted bot) instead of
    Turn.determinize it plays the very same moves; no move is ever illegal."""
    first, moves = game_with_search(game, f"same-{game}", 6)
    again, moves_again = game_with_search(game, f"same-{game}", 6)
    hosted, moves_hosted = game_with_search(game, f"same-{game}", 6, hosted=True)
    assert first.outcome.reason == "finished" and moves
    assert moves == moves_again == moves_hosted
    assert first.events == again.events == hosted.events


def test_another_seed_searches_otherwise():
    """The bot's seed drives its samples and playouts: another seed gives another game."""
    _, moves = game_with_search("tails-on-fire", "seeded", 6, bot_seed=1)
    _, other = game_with_search("tails-on-fire", "seeded", 6, bot_seed=2)
    assert moves != other


def test_a_budget_in_milliseconds_answers_a_legal_action():
    """A time budget still answers legal actions to the end of a game."""
    engine = registry.get("lemur-tails")
    agents = [ismcts.Bot("lemur-tails", 0, random.Random(1), milliseconds=5), random_bot.Bot("lemur-tails", 1,
                                                                                            random.Random(2))]
    assert play(engine, engine.configure(2), "clock", agents).outcome.reason == "finished"


def test_one_budget_at_a_time():
    """Iterations and milliseconds together are refused; no budget means the per-game default with its time cap."""
    with pytest.raises(ValueError, match="iterations or in milliseconds"):
        ismcts.Bot("nine-tails", 0, random.Random(0), iterations=5, milliseconds=5)
    bot = ismcts.Bot("nine-tails", 0, random.Random(0))
    assert (bot.iterations, bot.milliseconds) == (ismcts.ITERATIONS["nine-tails"], ismcts.TIME_CAP_MS)


def test_pairwise_rewards_count_seats_below_and_ties():
    """A seat's reward is its share of the other seats ranked below it, ties counting half."""
    assert ismcts.pairwise([1, 2]) == [1.0, 0.0]
    assert ismcts.pairwise([1, 1]) == [0.5, 0.5]
    assert ismcts.pairwise([2, 1, 2, 4]) == [0.5, 1.0, 0.5, 0.0]


@pytest.mark.slow
def test_search_beats_random_in_lemur_tails():
    """At 16 iterations a move the search wins at least 5 of 6 Lemur Tails games against random, seats alternating."""
    engine = registry.get("lemur-tails")
    wins = 0
    for index in range(6):
        seat = index % 2
        agents = [None, None]
        agents[seat] = ismcts.Bot("lemur-tails", seat, random.Random(index), iterations=16)
        agents[1 - seat] = random_bot.Bot("lemur-tails", 1 - seat, random.Random(100 + index))
        ranking = play(engine, engine.configure(2), f"beats-{index}", agents).outcome.ranking
        wins += ranking[seat] == 1 and ranking[1 - seat] == 2
    assert wins >= 5


@pytest.mark.slow
@pytest.mark.sandbox
@pytest.mark.parametrize("game", GAMES)
def test_tourney_run_plays_the_search_bot_and_its_logs_verify(tmp_path, game):
    """`tourney run` plays ISMCTS (at 4 iterations a move) against random in each game, and every log verifies."""
    folder = tmp_path / "bots"
    folder.mkdir()
    (folder / "search.py").write_text(ismcts.bot_file(iterations=4, rollout_depth=10))
    shutil.copy(ROOT / "bots" / "random_bot.py", folder / "random_bot.py")
    rows = run_and_verify(folder, game, tmp_path / "t.db")
    assert {row["bot"] for row in rows} == {"search", "random_bot"}
