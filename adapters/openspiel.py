"""The three games as OpenSpiel Python games, registered with ``pyspiel.register_game``.

    import pyspiel
    import adapters.openspiel  # registers python_tourney_tails_on_fire, _nine_tails, _lemur_tails
    game = pyspiel.load_game("python_tourney_lemur_tails")            # or "...(players=3)" for the others
    state = game.new_initial_state()

Shaped on OpenSpiel's own kuhn_poker.py. Actions are the indices of adapters/actions.py (the same as the
PettingZoo environments'). **Chance nodes** are the engine's own draws: a chance step draws from its PRNG one
uniform number at a time (``below(n)``: a card of a shuffle, a blind draw), and each draw is one chance node of
``n`` equally likely outcomes, so a shuffle of 88 cards is 87 chance nodes. Returns come at the end from the
ranking: (seats below - seats above) / (n - 1), a zero-sum game. The state's work is done in plain Python by
adapters/openspiel_state.py (``Core``: copies in O(1), chance steps announced, strings made when read,
serialisation linear in the history, undo, resampling); this module is the pyspiel side of it.

**Strings and tensors**, for every ``IIGObservationType`` (``TourneyObserver``): an observation (no perfect
recall) is a view of the state now: the player's view (``engine.view(state, player)``), the spectator's (public
information only: the same for every player), or every seat's (all private information); its tensor is
adapters/observations.py's encoding of that view (one per seat for all players; no tensor without public
information). An information state (perfect recall) is every event so far, one JSON object a line: as the player
sees it (its own private parts, never another's), the public parts only, or every part (``KINDS`` in
openspiel_state.py). There is no information-state tensor: the game type says so
(``provides_information_state_tensor=False``) and asking for one raises ``pyspiel.SpielError``, as OpenSpiel's
games without one do.

pyspiel calls no Python ``undo_action`` or ``resample_from_infostate``; Python callers (OpenSpiel's Python
algorithms, ISMCTSBot among them) find this module's. pyspiel also gives Python no way to rewind its C++ record
of actions, so the state keeps its own and ``history()``, ``history_str()``, ``full_history()``, ``move_number()``
and ``is_initial_state()`` read it: after an undo they are right from Python, while C++ code reading the same
state's ``History()`` would still see the undone action.
"""

from __future__ import annotations

import json
import resource
import time
from copy import copy
from typing import Any, NamedTuple

import numpy as np
import pyspiel

from adapters import games
from adapters.actions import SPACES
from adapters.observations import ENCODINGS
from adapters.openspiel_state import CHANCE_PLAYER, Core, Log, Past, Rules, private_view
from adapters.rewards import rewards
from engines import registry

GAMES = {game: games.module(game).MAX_CHANCE_OUTCOMES for game in games.names()}
"""Each game, and the most outcomes one chance node has: the largest deck it shuffles (or a hand it draws from)."""
MAX_LENGTH = {game: games.module(game).MAX_LENGTH for game in games.names()}
"""A bound on decisions per game: the move cap (ALL-4) times the most decisions a turn may take."""


def short_name(game: str) -> str:
    return f"python_tourney_{game.replace('-', '_')}"


def game_of(game: pyspiel.Game) -> tuple[str, int]:
    """The tourney game name and table size of a loaded OpenSpiel game."""
    name = game.get_type().short_name.removeprefix("python_tourney_").replace("_", "-")
    return name, int(game.get_parameters()["players"])


class TourneyGame(pyspiel.Game):
    """One of the three games as a pyspiel.Game (parameter ``players``: the table size)."""

    def __init__(self, game: str, params: dict | None = None) -> None:
        engine = registry.get(game)
        players = int((params or {}).get("players", engine.default_seats))
        engine.configure(players)  # ConfigError for a table the game cannot seat
        encoding = games.module(game)
        super().__init__(_game_type(game), pyspiel.GameInfo(
            num_distinct_actions=len(SPACES[game]), max_chance_outcomes=encoding.MAX_CHANCE_OUTCOMES,
            num_players=players, min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
            max_game_length=encoding.MAX_LENGTH,
        ), {"players": players})
        self.rules = Rules(game, players)
        self.start = Core.initial(self.rules)  # every new state (and every clone pyspiel makes) copies it

    def new_initial_state(self) -> TourneyState:
        return TourneyState(self, copy(self.start))

    def make_py_observer(self, iig_obs_type=None, params=None) -> TourneyObserver:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        return TourneyObserver(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False))


class PlayerAction(NamedTuple):
    """One entry of ``full_history()``: what ``pyspiel.PlayerAction`` holds (``player``, ``action``), which Python
    cannot build (pybind gives that class no constructor)."""

    player: int
    action: int


_OUTCOMES: dict[int, list[tuple[int, float]]] = {}
"""The outcomes of a chance node of n equally likely outcomes, by n."""


class TourneyState(pyspiel.State):
    """A game in progress: pyspiel's side of an openspiel_state.Core (``self.core``), which does the work."""

    def __init__(self, game: pyspiel.Game, core: Core | None = None) -> None:
        super().__init__(game)
        self.core = core if core is not None else Core.initial(Rules(*game_of(game)))

    # Read from Python directly (pyspiel's own versions reach the same functions through C++, at a cost).
    def current_player(self) -> int:
        return self.core.current_player()

    def is_terminal(self) -> bool:
        return self.core.is_terminal()

    def is_chance_node(self) -> bool:
        return self.core.pending > 0

    def legal_actions(self, player: int | None = None) -> list[int]:
        core = self.core
        if player is None or player == core.current_player() or core.pending or core.is_terminal():
            return core.legal_actions()
        if player < 0:
            raise pyspiel.SpielError(f"legal_actions of pseudo-player {player}")
        return []

    def _legal_actions(self, player: int) -> list[int]:
        return self.core.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        n = self.core.pending
        if not n:
            return []
        outcomes = _OUTCOMES.get(n)
        if outcomes is None:
            outcomes = _OUTCOMES[n] = [(outcome, 1.0 / n) for outcome in range(n)]
        return list(outcomes)

    def _apply_action(self, action: int) -> None:
        self.core.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"draw {action} of {self.core.pending}"
        return self.core.rules.space.names[action]

    def returns(self) -> list[float]:
        return self.core.returns()

    def __str__(self) -> str:
        core = self.core
        return json.dumps(core.rules.engine.view(core.now, None), sort_keys=True)

    def information_state_string(self, player: int | None = None) -> str:
        return self.core.text("seat", self._player(player))

    def observation_string(self, player: int | None = None) -> str:
        core = self.core
        return json.dumps(core.rules.engine.view(core.now, self._player(player)), sort_keys=True)

    def _player(self, player: int | None) -> int:
        core = self.core
        player = core.current_player() if player is None else int(player)
        if not 0 <= player < core.rules.players:
            raise pyspiel.SpielError(f"player {player} is not one of 0..{core.rules.players - 1}")
        return player

    # What pyspiel does not reach through C++: undo, resampling, the record of actions (module docstring).
    def undo_action(self, player: int, action: int) -> None:
        self.core.undo(int(player), int(action))

    def resample_from_infostate(self, player: int, rng: Any) -> TourneyState:
        """A state drawn from what ``player`` has seen, its hidden parts drawn by the engine's determinizer.

        ``rng``: a sampler (a callable giving floats in [0, 1), such as ``pyspiel.UniformProbabilitySampler``) or
        a ``random.Random`` / ``engines.chance.Prng``. The new state gives ``player`` the same information-state
        string, observation and legal actions; docs/rl.md says where the draw is exact.
        """
        return TourneyState(self.get_game(), self.core.resample(self._player(player), rng))

    def history(self) -> list[int]:
        return [action for _, action in self.core.history()]

    def full_history(self) -> list[PlayerAction]:
        return [PlayerAction(player, action) for player, action in self.core.history()]

    def history_str(self) -> str:
        return ", ".join(str(action) for action in self.history())

    def move_number(self) -> int:
        return self.core.n_moves

    def is_initial_state(self) -> bool:
        return not self.core.n_moves

    # The SpielStruct API: plain dicts (pyspiel wraps them).
    def _to_struct(self) -> dict[str, Any]:
        core = self.core
        engine = core.rules.engine
        return {"game": core.rules.name, "current_player": core.current_player(), "draws": list(core.draws),
                "public": engine.view(core.now, None),
                "seats": [engine.view(core.now, seat) for seat in range(core.rules.players)]}

    def _to_observation_struct(self, player: int) -> dict[str, Any]:
        core = self.core
        return core.rules.engine.view(core.now, self._player(player))

    def _action_to_struct(self, player: int, action: int) -> dict[str, Any]:
        if player == CHANCE_PLAYER:
            return {"draw": int(action), "of": self.core.pending}
        return {"action": self.core.rules.space.names[action]}

    def _struct_to_actions(self, action: dict[str, Any]) -> list[int]:
        if "draw" in action:
            return [int(action["draw"])]
        return [self.core.rules.space.index[action["action"]]]

    def distribution_support(self) -> list[str]:
        # Mean-field games only; without this, pyspiel's pure virtual raised a RuntimeError, not OpenSpiel's error.
        raise pyspiel.SpielError("DistributionSupport has not been implemented: not a mean-field game")


def state_at(game: pyspiel.Game, engine_state: Any) -> TourneyState:
    """An OpenSpiel state at a given engine state (a determinization, for a search that needs a full state).

    Its information-state strings know no history (it starts here); everything else is as in a real game.
    """
    return TourneyState(game, Core.at(Rules(*game_of(game)), engine_state))


class TourneyObserver:
    """Strings and tensors of one IIGObservationType (the module docstring says what each holds)."""

    def __init__(self, game: pyspiel.Game, iig_obs_type) -> None:
        name, self.players = game_of(game)
        self.recall = iig_obs_type.perfect_recall
        self.public = iig_obs_type.public_info
        self.whose = {pyspiel.PrivateInfoType.SINGLE_PLAYER: "seat", pyspiel.PrivateInfoType.NONE: "none",
                      pyspiel.PrivateInfoType.ALL_PLAYERS: "all"}[iig_obs_type.private_info]
        self.kind = {(True, "seat"): "seat", (True, "none"): "public", (True, "all"): "all",
                     (False, "seat"): "seat-secret", (False, "all"): "all-secret", (False, "none"): None,
                     }[(self.public, self.whose)]
        self.encoding = ENCODINGS[name]
        self.about = (f"{short_name(name)}'s observation (perfect_recall={self.recall}, public_info={self.public}, "
                      f"private_info={iig_obs_type.private_info.name})")
        self.tensor = None
        self.dict: dict[str, np.ndarray] = {}
        if not self.recall and self.public:
            self.tensor = np.zeros(self.encoding.size * (self.players if self.whose == "all" else 1), np.float32)
            self.dict = {"observation": self.tensor}

    def _seats(self, player: int) -> list[int | None]:
        """Whose views this observation shows: the player's, the spectator's (None), or every seat's."""
        return [player] if self.whose == "seat" else [None] if self.whose == "none" else list(range(self.players))

    def set_from(self, state: TourneyState, player: int) -> None:
        if self.tensor is None:
            what = "information-state tensor" if self.recall else "tensor without public information"
            raise pyspiel.SpielError(f"{self.about} has no {what} (use string_from)")
        core = state.core
        size, engine = self.encoding.size, core.rules.engine
        for i, seat in enumerate(self._seats(player)):
            self.tensor[i * size:(i + 1) * size] = self.encoding.encode(engine.view(core.now, seat))

    def string_from(self, state: TourneyState, player: int) -> str:
        core = state.core
        if self.recall:
            return core.text(self.kind, player) if self.kind else ""
        engine, now = core.rules.engine, core.now
        if self.public:
            views = [engine.view(now, seat) for seat in self._seats(player)]
        elif self.kind is None:
            return ""
        else:
            views = [private_view(engine, now, seat) for seat in self._seats(player)]
        return json.dumps(views[0] if len(views) == 1 else views, sort_keys=True)


class SearchBot:
    """A tourney bot (docs/bot-protocol.md) that asks an OpenSpiel bot (``pyspiel.Bot``: ``step(state) -> action``)
    for each move, on a full state drawn from what the seat has seen (one determinization a move).

    ``make(game, random_state)`` builds the OpenSpiel bot once the table size is known; ``random_state``
    is a numpy RandomState seeded from the tourney bot's own rng, so a tournament seed replays it.

    A search's cost is fixed in simulations, not in time, and a sandboxed bot's process has ``--cpu-seconds``
    of CPU for its whole game (RLIMIT_CPU; SIGXCPU past it, a forfeit). A loaded machine stretches the CPU
    time of the same work, so once the process has used ``CPU_SHARE`` of its limit the bot plays the rest of
    the game at random (from its rng) rather than forfeit it; without a limit it always searches.
    """

    CPU_SHARE = 0.75

    def __init__(self, game: str, seat: int, rng, make) -> None:
        self.engine = registry.get(game)
        self.name = game
        self.seat = seat
        self.rng = rng
        self.make = make
        self.bot = None
        self.spiel_game = None
        self.sighting = self.engine.determinizer(seat)
        self.seen = Log()  # the seat's events so far, as it saw them

    def act(self, turn) -> str:
        events = turn.events  # every turn: they add up to the whole game (docs/bot-protocol.md)
        self.sighting.see(events)
        for event in events:
            self.seen = self.seen.add(len(self.seen.items), event)
        if len(turn.legal) == 1:
            return turn.legal[0]
        if self.out_of_cpu():
            return self.rng.choice(turn.legal)
        sample = self.sighting.sample(self.rng)
        if self.bot is None:
            self.spiel_game = pyspiel.load_game(short_name(self.name), {"players": len(self.engine.ranking(sample))})
            self.bot = self.make(self.spiel_game, np.random.RandomState(self.rng.getrandbits(32)))
        action = SPACES[self.name].names[self.bot.step(self.root(sample))]
        return action if action in turn.legal else turn.legal[0]

    def out_of_cpu(self) -> bool:
        """Whether this process has used ``CPU_SHARE`` of its CPU-time limit (never, without one)."""
        limit = resource.getrlimit(resource.RLIMIT_CPU)[0]
        return limit != resource.RLIM_INFINITY and time.process_time() >= self.CPU_SHARE * limit

    def root(self, sample: Any) -> TourneyState:
        """The state the OpenSpiel bot searches from: the sample (it knows no history)."""
        return state_at(self.spiel_game, sample)


class InformationSetBot(SearchBot):
    """A SearchBot for an OpenSpiel bot that searches over information sets (``ISMCTSBot``): its root state holds
    the seat's own events as its past, so its information-state string is the seat's, and
    ``resample_from_infostate`` draws every world from the seat's determinizer (fed once per event)."""

    def root(self, sample: Any) -> TourneyState:
        n = len(self.seen.items)
        core = Core.at(self.spiel_game.rules, sample, Past(self.seen, n, self.seat, sample))
        core.memo[self.seat] = (n, self.sighting)
        return TourneyState(self.spiel_game, core)


class StandingRollout:
    """An evaluator for OpenSpiel's MCTS and ISMCTS (``evaluate``, ``prior``): one random playout of at most
    ``max_length`` steps (chance nodes included), scored by the returns at the game's end, else by the rewards of
    the ranking as it stands (ALL-6: the engines rank any state).

    OpenSpiel's ``RandomRolloutEvaluator(max_length=...)`` scores a cut playout by ``returns()``, all zero before
    the end in these games; this one scores it by the ranking, and plays on the Core (no pyspiel call a step).
    """

    def __init__(self, max_length: int, random_state: np.random.RandomState) -> None:
        self.max_length = max_length
        self.random = random_state.random_sample

    def evaluate(self, state: TourneyState) -> np.ndarray:
        core = copy(state.core)
        random = self.random
        for _ in range(self.max_length):
            if core.pending:
                core.apply(int(random() * core.pending))
            elif core.actor >= 0:
                legal = core.legal_actions()
                core.apply(legal[int(random() * len(legal))])
            else:
                break
        return np.array(rewards(core.rules.engine.ranking(core.now)))

    def prior(self, state: TourneyState) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions()
        return [(action, 1.0 / len(legal)) for action in legal]


def _game_type(game: str) -> pyspiel.GameType:
    engine = registry.get(game)
    return pyspiel.GameType(
        short_name=short_name(game),
        long_name=f"tourney {game}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=engine.max_seats,
        min_num_players=engine.min_seats,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": engine.default_seats},
    )


class TailsOnFireGame(TourneyGame):
    def __init__(self, params: dict | None = None) -> None:
        super().__init__("tails-on-fire", params)


class NineTailsGame(TourneyGame):
    def __init__(self, params: dict | None = None) -> None:
        super().__init__("nine-tails", params)


class LemurTailsGame(TourneyGame):
    def __init__(self, params: dict | None = None) -> None:
        super().__init__("lemur-tails", params)


def register(game: str, game_class: type[TourneyGame]) -> None:
    """Register ``game`` with pyspiel as ``python_tourney_<game>``, made by ``game_class``: a subclass of
    TourneyGame whose ``__init__(params)`` names the game, like the three below (pyspiel creates games from a
    class; a closure as the creator crashes the interpreter at exit). A game added at run time registers its
    engine and encoding first (docs/games/adding-a-game.md)."""
    if short_name(game) not in pyspiel.registered_names():
        pyspiel.register_game(_game_type(game), game_class)


for _game, _class in (("tails-on-fire", TailsOnFireGame), ("nine-tails", NineTailsGame),
                      ("lemur-tails", LemurTailsGame)):
    register(_game, _class)
