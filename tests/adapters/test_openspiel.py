"""adapters/openspiel.py: each game as a registered OpenSpiel Python game, checked with pyspiel's own utilities
(random_sim_test with serialisation, its observers, pickling) and against the engines (chance, strings, undo)."""

from __future__ import annotations

import json
import pickle
import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import outcome_sampling_mccfr
from open_spiel.python.algorithms.ismcts import ISMCTSBot
from open_spiel.python.algorithms.mcts import RandomRolloutEvaluator
from open_spiel.python.observation import make_observation

import adapters.openspiel  # noqa: F401 (registers the games with pyspiel)
from adapters.actions import SPACES, ActionSpace
from adapters.observations import ENCODINGS
from adapters.openspiel import short_name
from adapters.openspiel_state import Core, Rules
from engines import registry
from engines.base import CHANCE, TERMINAL, EngineError, Event, IllegalAction
from engines.chance import Prng
from engines.driver import play, redact
from tests import fourth_game

fourth_game.register()  # a game defined only in tests passes these suites too (docs/games/adding-a-game.md)
GAMES = ("tails-on-fire", "nine-tails", "lemur-tails", fourth_game.NAME)
TABLES = [(game, seats) for game in GAMES for seats in range(registry.get(game).min_seats,
                                                              registry.get(game).max_seats + 1)]
"""Every game at every table size the adapter offers."""
SLOW_TABLES = {("nine-tails", 4), ("nine-tails", 5), ("tails-on-fire", 6)}
PRIVATE = pyspiel.PrivateInfoType


def load(game: str, seats: int | None = None) -> pyspiel.Game:
    return pyspiel.load_game(short_name(game), {"players": seats or registry.get(game).default_seats})


def walk(state: pyspiel.State, seed: int, most: int = 10**6):
    """Play ``state`` on with uniformly random actions and chance outcomes, yielding it before every action."""
    rng = random.Random(seed)
    for _ in range(most):
        if state.is_terminal():
            return
        yield state
        state.apply_action(rng.choice(state.legal_actions()))


@pytest.mark.slow
@pytest.mark.parametrize(("game", "seats"), [
    pytest.param(game, seats, marks=[pytest.mark.slow] if (game, seats) in SLOW_TABLES else [])
    for game, seats in TABLES])
def test_random_sim_test_passes_with_serialisation(game, seats):
    """pyspiel's random_sim_test, serialising and deserialising the state along the way, passes at every table
    size of every game (Nine Tails' games run past a thousand events, deeper than pickle could once go)."""
    pyspiel.random_sim_test(load(game, seats), num_sims=1, serialize=True, verbose=False)


def test_every_game_is_registered_with_its_table_sizes():
    """The three games are registered, take a players parameter, and say what they are (no information-state
    tensor)."""
    for game in GAMES:
        engine = registry.get(game)
        spiel_game = load(game)
        kind = spiel_game.get_type()
        assert short_name(game) in pyspiel.registered_names()
        assert (kind.min_num_players, kind.max_num_players) == (engine.min_seats, engine.max_seats)
        assert spiel_game.num_players() == engine.default_seats
        assert spiel_game.num_distinct_actions() == len(SPACES[game])
        assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        assert kind.provides_information_state_string and not kind.provides_information_state_tensor


class Chooser:
    """A driver agent that picks at random with a seeded rng."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, turn) -> str:
        return self.rng.choice(turn.legal)


def replayed(game: str, seats: int, seed: str):
    """A driver game, and the OpenSpiel state that chose every chance outcome as the game's PRNG and every
    decision as the driver's agents did."""
    engine = registry.get(game)
    played = play(engine, engine.configure(seats), seed, [Chooser(seat) for seat in range(seats)])
    decisions = [step.action for step in played.steps if step.actor >= 0]
    state = load(game, seats).new_initial_state()
    prng = None
    while not state.is_terminal():
        if state.is_chance_node():
            if not state.core.draws:  # a new chance step: its draws come from the stream of its place in the game
                prng = Prng(seed, state.core.steps)
            outcomes = state.chance_outcomes()
            assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
            state.apply_action(prng.below(len(outcomes)))
        else:
            state.apply_action(SPACES[game].index[decisions.pop(0)])
    assert not decisions
    return played, state


@pytest.mark.parametrize("game", GAMES)
def test_chance_nodes_are_the_engines_own_draws(game):
    """Choosing each chance outcome as the game's PRNG would (stream by stream) and the same decisions as a
    driver game gives the very same events: every announced chance node is one of the engine's draws."""
    seats = registry.get(game).min_seats
    played, state = replayed(game, seats, "spiel")
    for player in range(seats):
        assert state.information_state_string(player).split("\n") == [
            json.dumps({"type": event.type, "data": event.data,
                        **({"private": event.private} if event.private is not None and event.visible_to(player)
                           else {})}, sort_keys=True)
            for event in played.events]
    assert state.returns() == pytest.approx([
        sum((mine < theirs) - (mine > theirs) for theirs in played.outcome.ranking) / (seats - 1)
        for mine in played.outcome.ranking])


def long_game(events: int = 1200) -> pyspiel.State:
    """A Nine Tails state more than ``events`` events into a random game (still going, at a decision)."""
    for seed in range(20):
        state = load("nine-tails", 3).new_initial_state()
        for _ in walk(state, seed):
            if state.core.n_events > events and not state.is_chance_node():
                return state
    raise AssertionError(f"no game went past {events} events")


def test_a_long_game_pickles_and_serialises_and_plays_on_the_same():
    """pickle, state.serialize() and pyspiel.serialize_game_and_state of a game past a thousand events give back
    the same state (strings, history, legal actions), which then plays on exactly as the original."""
    state = long_game()
    game = state.get_game()
    copies = [pickle.loads(pickle.dumps(state)), game.deserialize_state(state.serialize()),
              pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]]
    rng = random.Random(9)
    for _ in range(300):
        for copy in copies:
            assert str(copy) == str(state) and copy.history() == state.history()
            assert copy.legal_actions() == state.legal_actions()
            assert all(copy.information_state_string(p) == state.information_state_string(p) for p in range(3))
        if state.is_terminal():
            break
        action = rng.choice(state.legal_actions())
        for one in (state, *copies):
            one.apply_action(action)


def test_serialisation_is_linear_in_the_history():
    """A pickled state is its origin and its actions: its size grows with the history by the same few bytes an
    action all along (pyspiel's own record of actions and this state's), never with the events' contents."""
    state = long_game(1500)
    quarter = len(state.history()) // 4
    sizes = {}
    replay = state.get_game().new_initial_state()
    for action in state.history():
        if len(replay.history()) in (quarter, 2 * quarter, 4 * quarter):
            sizes[len(replay.history())] = len(pickle.dumps(replay))
        replay.apply_action(action)
    assert quarter > 300 and len(sizes) == 3, sizes
    early = (sizes[2 * quarter] - sizes[quarter]) / quarter  # bytes an action (pyspiel's history line, then ours)
    late = (sizes[4 * quarter] - sizes[2 * quarter]) / (2 * quarter)
    assert early <= 16 and late <= 16 and abs(late - early) <= 0.25 * early, sizes


def test_a_bad_chance_outcome_is_refused_and_the_state_plays_on():
    """An out-of-range or negative chance outcome raises and changes nothing: the history, the open chance node
    and every later legal action are as before."""
    state = load("lemur-tails").new_initial_state()
    assert state.is_chance_node()
    before = (state.history(), state.chance_outcomes(), str(state))
    for bad in (len(state.chance_outcomes()), 10**6, -1, -2):
        # pyspiel itself refuses -1 (its kInvalidAction) before the game sees it
        with pytest.raises((ValueError, pyspiel.SpielError), match=r"chance outcome|kInvalidAction"):
            state.apply_action(bad)
        assert (state.history(), state.chance_outcomes(), str(state)) == before
    for _ in walk(state, 1, most=400):
        pass
    assert len(state.history()) == 400 or state.is_terminal()


def test_a_bad_decision_is_refused_and_the_state_plays_on():
    """A decision index out of range raises ValueError, an index that is not legal now the engine's IllegalAction
    (with its reason); neither changes the state."""
    state = load("tails-on-fire", 3).new_initial_state()
    while state.is_chance_node():
        state.apply_action(0)
    legal = state.legal_actions()
    before = (state.history(), str(state), state.information_state_string(0))
    with pytest.raises(ValueError, match="not an action"):
        state.apply_action(len(SPACES["tails-on-fire"]))
    with pytest.raises(ValueError, match="not an action"):
        state.apply_action(-2)
    illegal = next(action for action in range(len(SPACES["tails-on-fire"])) if action not in legal)
    with pytest.raises(IllegalAction):
        state.apply_action(illegal)
    assert (state.history(), str(state), state.information_state_string(0)) == before
    state.apply_action(legal[0])
    assert state.history() == [*before[0], legal[0]]


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_undo_restores_every_earlier_state(game):
    """undo_action, walked back from the end of a random game, gives at each step the state as it was (its string,
    history, every player's strings, legal actions and returns), and a state undone then redone plays the same."""
    state = load(game).new_initial_state()
    earlier = []
    for _ in walk(state, 3):
        earlier.append((state.clone(), state.current_player()))
    assert state.is_terminal()
    for history in reversed(range(len(earlier))):
        clone, player = earlier[history]
        state.undo_action(player, state.history()[-1])
        assert str(state) == str(clone) and state.history() == clone.history()
        assert state.move_number() == clone.move_number() == history
        assert state.legal_actions() == clone.legal_actions() and state.returns() == clone.returns()
        for p in range(state.num_players()):
            assert state.information_state_string(p) == clone.information_state_string(p)
            assert state.observation_string(p) == clone.observation_string(p)
    with pytest.raises(ValueError, match="no action to undo"):
        state.undo_action(0, 0)


def snapshot(state: pyspiel.State) -> tuple:
    """Everything a caller reads of a state: its string, history, legal actions, returns, every player's strings."""
    players = range(state.num_players())
    return (str(state), state.history(), state.legal_actions(), state.returns(),
            [state.information_state_string(p) for p in players], [state.observation_string(p) for p in players])


def undo_all(state: pyspiel.State, stop: int = 0) -> None:
    while len(state.history()) > stop:
        last = state.full_history()[-1]
        state.undo_action(last.player, last.action)


def test_undo_keeps_one_engine_state_in_a_checkpoint_and_refolds_the_rest():
    """A long Nine Tails game's undo records hold an engine state for one action in CHECKPOINT only (so a game
    does not keep thousands of live states), and undoing through every kind of record, on two clones that went
    their own ways from a common past, gives back exactly the states they had."""
    from adapters.openspiel_state import CHECKPOINT

    state = load("nine-tails").new_initial_state()
    seen = [snapshot(s) for s in walk(state, 5, most=CHECKPOINT * 12 + 5)]
    core = state.core
    kept = [record for record in core.moves.items[:core.n_moves] if record[2] is not None]
    assert len(kept) == -(-core.n_moves // CHECKPOINT) and core.n_moves > 10 * CHECKPOINT
    fork = len(seen) - 2 * CHECKPOINT - 3  # between checkpoints, so both clones refold across one
    for back in reversed(range(fork, len(seen))):
        undo_all(state, back)
        assert snapshot(state) == seen[back]
    other = state.clone()
    went_on = [snapshot(s) for s in walk(other, 6, most=3 * CHECKPOINT)]
    assert went_on[1:] != seen[fork + 1:fork + len(went_on)]  # the clone played a game of its own
    undo_all(other, fork)
    assert snapshot(other) == seen[fork]
    for back in reversed(range(fork)):
        undo_all(state, back)
        assert snapshot(state) == seen[back]


def test_full_history_is_the_record_cpp_keeps_and_follows_undo():
    """full_history() names (player, action) of every action as pyspiel's own C++ record does (chance outcomes by
    player -1), and after an undo it drops the undone action (which the C++ record cannot)."""
    for game in GAMES:
        state = load(game).new_initial_state()
        for _ in walk(state, 2, most=60):
            pass
        ours = [(entry.player, entry.action) for entry in state.full_history()]
        assert ours == [(entry.player, entry.action) for entry in pyspiel.State.full_history(state)]
        assert [action for _, action in ours] == state.history() and ours[0][0] == -1
        undo_all(state, 50)
        assert [(entry.player, entry.action) for entry in state.full_history()] == ours[:50]


def test_undo_of_a_resampled_state_goes_back_to_its_sample():
    """A state resampled for a player, played on past several checkpoints and undone to its start, is the very
    state the resampling gave (its first undo record holds the sample)."""
    from adapters.openspiel_state import CHECKPOINT

    for game in GAMES:
        state = load(game).new_initial_state()
        for _ in walk(state, 8, most=40):
            pass
        world = state.resample_from_infostate(0, random.Random(4))
        start = snapshot(world)
        played = [snapshot(s) for s in walk(world, 9, most=3 * CHECKPOINT + 1)]
        assert len(played) > 2 * CHECKPOINT and played[0] == start
        for back in reversed(range(len(played))):
            undo_all(world, back)
            assert snapshot(world) == played[back]


def test_undo_names_the_action_it_takes_back():
    """undo_action of anything but the last action, by its player, raises and changes nothing."""
    state = load("lemur-tails").new_initial_state()
    state.apply_action(5)
    with pytest.raises(ValueError, match="last action was 5 by player -1"):
        state.undo_action(-1, 4)
    state.undo_action(-1, 5)
    assert state.history() == [] and state.is_initial_state()


def test_there_is_no_information_state_tensor_and_asking_for_one_raises():
    """As OpenSpiel's games without one do: the game type says so, and the tensor and its shape raise SpielError
    (never an empty list)."""
    for game in GAMES:
        spiel_game = load(game)
        state = spiel_game.new_initial_state()
        with pytest.raises(pyspiel.SpielError, match="no information-state tensor"):
            state.information_state_tensor(0)
        with pytest.raises(pyspiel.SpielError, match="no information-state tensor"):
            spiel_game.information_state_tensor_shape()
        assert len(state.observation_tensor(0)) == ENCODINGS[game].size == spiel_game.observation_tensor_size()


OBSERVATION_TYPES = [pyspiel.IIGObservationType(perfect_recall=recall, public_info=public, private_info=private)
                     for recall in (False, True) for public in (True, False)
                     for private in (PRIVATE.SINGLE_PLAYER, PRIVATE.NONE, PRIVATE.ALL_PLAYERS)]


def expected_string(state, kind, player: int) -> str:
    """What an observation string of ``kind`` may hold, built from the engine's views and the driver's redaction
    (what a seat may see), not from the adapter."""
    core = state.core
    engine, now, seats = core.rules.engine, core.now, core.rules.players
    whose = {PRIVATE.SINGLE_PLAYER: [player], PRIVATE.NONE: [None], PRIVATE.ALL_PLAYERS: list(range(seats))}[
        kind.private_info]
    if not kind.perfect_recall:
        if not kind.public_info:
            if whose == [None]:
                return ""
            public = engine.view(now, None)
            views = [{key: value for key, value in engine.view(now, seat).items() if public.get(key, ...) != value}
                     for seat in whose]
        else:
            views = [engine.view(now, seat) for seat in whose]
        return json.dumps(views[0] if len(views) == 1 else views, sort_keys=True)
    events = core.events.items[:core.n_events]
    if whose == [None]:
        seen = [redact(event, None) for event in events] if kind.public_info else []
    elif whose == [player]:
        seen = [redact(event, player) for event in events]
    else:
        seen = list(events)
    if kind.public_info:
        lines = [{"type": e.type, "data": e.data, **({"private": e.private} if e.private is not None else {})}
                 for e in seen]
    else:
        lines = [{"type": e.type, "private": e.private} for e in seen if e.private is not None]
    return "\n".join(json.dumps(line, sort_keys=True) for line in lines)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_every_observation_type_shows_what_a_seat_may_see(game):
    """OpenSpiel's make_observation, for every IIGObservationType, at decisions of a random game: each string is
    the view or the redacted events the type allows (the player's own private parts, none, or all); each tensor
    the encoding of those views; the public-only ones, and the all-players ones, the same for every player."""
    spiel_game = load(game, 3 if game != "lemur-tails" else 2)
    seats = spiel_game.num_players()
    observations = [(kind, make_observation(spiel_game, kind)) for kind in OBSERVATION_TYPES]
    encoding = ENCODINGS[game]
    checked = 0
    for state in walk(spiel_game.new_initial_state(), 5, most=3000):
        if state.is_chance_node() or random.Random(len(state.history())).random() > 0.1:
            continue
        checked += 1
        now, engine = state.core.now, state.core.rules.engine
        for kind, observation in observations:
            strings = [observation.string_from(state, p) for p in range(seats)]
            assert strings == [expected_string(state, kind, p) for p in range(seats)], kind
            if kind.private_info != PRIVATE.SINGLE_PLAYER:
                assert len(set(strings)) == 1, kind
            if kind.perfect_recall or not kind.public_info:
                assert observation.tensor is None
                with pytest.raises(pyspiel.SpielError, match="has no"):
                    observation.set_from(state, 0)
                continue
            for p in range(seats):
                observation.set_from(state, p)
                whose = {PRIVATE.SINGLE_PLAYER: [p], PRIVATE.NONE: [None],
                         PRIVATE.ALL_PLAYERS: list(range(seats))}[kind.private_info]
                assert np.array_equal(observation.tensor,
                                      np.concatenate([encoding.encode(engine.view(now, seat)) for seat in whose]))
    assert checked > 10


@pytest.mark.parametrize("game", GAMES)
def test_a_player_sees_nothing_of_what_its_resampled_worlds_change(game):
    """Worlds drawn by resample_from_infostate(p) change what p cannot see (the full states differ),
    yet give p the same information-state string, observation string and tensor, current player and (when p is
    to act) legal actions, and give every player the same public observation and public information state: no
    string or tensor of p's or of the public's reads a hidden card."""
    spiel_game = load(game, 3 if game != "lemur-tails" else 2)
    seats = spiel_game.num_players()
    public = [make_observation(spiel_game, pyspiel.IIGObservationType(perfect_recall=recall, public_info=True,
                                                                       private_info=PRIVATE.NONE))
              for recall in (False, True)]
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    differed = checked = 0
    for state in walk(spiel_game.new_initial_state(), 8, most=1500):
        if state.is_chance_node() or len(state.history()) % 7:
            continue
        for p in range(seats):
            world = state.resample_from_infostate(p, sampler)
            checked += 1
            assert world.information_state_string(p) == state.information_state_string(p)
            assert world.observation_string(p) == state.observation_string(p)
            assert world.observation_tensor(p) == state.observation_tensor(p)
            assert world.current_player() == state.current_player()
            if p == state.current_player():
                assert world.legal_actions() == state.legal_actions()
            for observation in public:
                assert observation.string_from(world, p) == observation.string_from(state, p)
            differed += world.core.now != state.core.now
    assert checked > 20 and differed > checked // 4


@pytest.mark.parametrize("game", GAMES)
def test_resampling_draws_the_engines_determinization(game):
    """resample_from_infostate(p, rng) with a random.Random is the engine's determinizer's sample, fed the events
    as p saw them, with that rng: the sampling is the determinizers' (exact where they are, docs/rl.md)."""
    spiel_game = load(game)
    engine = registry.get(game)
    for state in walk(spiel_game.new_initial_state(), 6, most=400):
        if state.is_chance_node() or len(state.history()) % 50:
            continue
        player = state.current_player()
        sighting = engine.determinizer(player)
        sighting.see([redact(event, player) for event in state.core.events.items[:state.core.n_events]])
        world = state.resample_from_infostate(player, random.Random(11))
        assert world.core.now == sighting.sample(random.Random(11))
        assert world.history() == [] and world.core.past.seat == player


def test_a_resampled_state_resamples_again_only_for_its_player():
    """A world drawn for p is p's: p can resample it again (same strings), another player gets a clear error."""
    state = load("lemur-tails").new_initial_state()
    for _ in walk(state, 2, most=120):
        pass
    player = state.current_player()
    world = state.resample_from_infostate(player, random.Random(1))
    world.apply_action(world.legal_actions()[0])
    again = world.resample_from_infostate(player, random.Random(2))
    assert again.information_state_string(player) == world.information_state_string(player)
    with pytest.raises(ValueError, match="resampled for player"):
        world.resample_from_infostate(1 - player, random.Random(3))


def test_the_state_struct_api_speaks_the_games_words():
    """to_struct holds the spectator's and every seat's view; an action's struct names it, and turns back into it."""
    state = load("tails-on-fire", 3).new_initial_state()
    assert json.loads(state.action_to_struct(0).to_json()) == {"draw": 0, "of": state.chance_outcomes()[-1][0] + 1}
    while state.is_chance_node():
        state.apply_action(0)
    struct = json.loads(state.to_struct().to_json())
    assert struct["public"] == json.loads(str(state)) and len(struct["seats"]) == 3
    assert json.loads(state.to_observation_struct(1).to_json()) == json.loads(state.observation_string(1))
    for action in state.legal_actions():
        named = state.action_to_struct(action)
        assert json.loads(named.to_json()) == {"action": SPACES["tails-on-fire"].names[action]}
        assert state.struct_to_actions(named) == [action]
    with pytest.raises(pyspiel.SpielError, match="not a mean-field game"):  # as C++ games say, not a crash
        state.distribution_support()


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_openspiel_ismcts_runs_unmodified_with_its_default_settings(game):
    """OpenSpiel's ISMCTSBot, given only its required arguments (OpenSpiel's own random-rollout evaluator), searches
    seat 0's moves of a real game through resample_from_infostate and information-state strings: its own check
    that every world has the root's information state holds, and every move it picks is legal."""
    spiel_game = load(game, 2)
    random_state = np.random.RandomState(7)
    bot = ISMCTSBot(spiel_game, RandomRolloutEvaluator(1, random_state, max_length=300), 2.0, 8,
                    random_state=random_state)
    searched = 0
    rng = random.Random(7)
    state = spiel_game.new_initial_state()
    while not state.is_terminal() and searched < 25:
        if state.current_player() == 0 and len(state.legal_actions()) > 1:
            action = bot.step(state)
            assert action in state.legal_actions()
            searched += 1
        else:
            action = rng.choice(state.legal_actions())
        state.apply_action(action)
    assert searched >= 10


@pytest.mark.parametrize("game", ["tails-on-fire", "lemur-tails"])
def test_outcome_sampling_mccfr_runs(game):
    """OpenSpiel's outcome-sampling MCCFR (recursive, one frame per step of a sampled game) runs iterations on the
    games short enough for Python's recursion limit: nothing in a state recurses with the history."""
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(load(game, 2))
    for _ in range(3):
        solver.iteration()
    assert solver.average_policy() is not None


# --- the chance machinery on a made-up engine whose draws depend on earlier draws ---------------------------------


class Dice:
    """One chance step: roll a die below 3, then one below (first roll + 2); then seat 0 says "stop"."""

    name = "dice"
    min_seats = max_seats = default_seats = 1

    def configure(self, seats, options=None):
        return seats

    def start(self, config):
        return [Event("begun", {})]

    def apply(self, state, event):
        return (state or ()) + (event,)

    def actor(self, state):
        kinds = [event.type for event in state]
        return TERMINAL if "stopped" in kinds else 0 if "rolled" in kinds else CHANCE

    def chance(self, state, rng):
        first = rng.below(3)
        return [Event("rolled", {"dice": [first, rng.below(first + 2)]})]

    def legal_actions(self, state):
        return ["stop"]

    def decide(self, state, action):
        return [Event("stopped", {})]

    def ranking(self, state):
        return [1]


def dice_rules() -> Rules:
    rules = Rules.__new__(Rules)
    rules.name, rules.players, rules.engine = "dice", 1, Dice()
    rules.space = ActionSpace("dice", ["stop"])
    return rules


@pytest.mark.parametrize("first", [0, 1, 2])
def test_a_chance_step_whose_bounds_depend_on_its_draws_is_replayed_exactly(first):
    """When a chance step's bounds depend on its outcomes, each node's bound is the one its earlier draws lead to."""
    core = Core.initial(dice_rules())
    assert core.bounds is None and core.pending == 3
    core.apply(first)
    assert core.pending == first + 2
    core.apply(first + 1)
    assert core.actor == 0 and core.now[-1].data == {"dice": [first, first + 1]}


def test_announced_bounds_are_checked_when_the_step_runs():
    """A step that asks at run time for other bounds than the ones announced raises instead of folding."""
    core = Core.initial(dice_rules())
    core.bounds, core.pending = (3, 9), 3  # as if the probes had agreed on a wrong second bound
    core.apply(0)
    with pytest.raises(EngineError, match="announced below 9"):
        core.apply(1)
