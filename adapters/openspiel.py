"""The three games as OpenSpiel Python games, registered with ``pyspiel.register_game``.

    import pyspiel
    import adapters.openspiel  # registers python_tourney_tails_on_fire, _nine_tails, _lemur_tails
    game = pyspiel.load_game("python_tourney_lemur_tails")            # or "...(players=3)" for the others
    state = game.new_initial_state()

Shaped on OpenSpiel's own kuhn_poker.py. Actions are the indices of adapters/actions.py (the
same as the PettingZoo environments'). **Chance nodes** are OpenSpiel chance outcomes: a game's
chance step draws from its PRNG one uniform number at a time (``below(n)``: a card of a shuffle,
a blind draw), and each such draw is one chance node with ``n`` equally likely outcomes, so a
shuffle of 88 cards is 87 chance nodes and every outcome list stays small. The engine's own
chance function is replayed with the outcomes chosen so far until it has all it needs, so the
events and their probabilities are exactly the engine's. Returns come at the end from the
ranking: (seats below - seats above) / (n - 1), a zero-sum game. **Strings**: the observation
string of a player is its view (JSON, sorted keys); its information-state string is every event
so far as that player sees it (redacted: its own private parts, never another's), one JSON
event a line: perfect recall. The observation tensor is adapters/observations.py's encoding.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyspiel

from adapters.actions import SPACES
from adapters.observations import ENCODINGS
from adapters.rewards import rewards
from engines import registry
from engines.base import CHANCE, TERMINAL
from engines.chance import Prng
from engines.lemur_tails.cards import TAIL_CARDS
from engines.nine_tails.cards import WILDS_IDS

GAMES = {"tails-on-fire": 9, "nine-tails": len(WILDS_IDS), "lemur-tails": TAIL_CARDS}
"""Each game, and the most outcomes one chance node has: the largest deck it shuffles (or a hand it draws from)."""
MAX_LENGTH = {"tails-on-fire": 2_000, "nine-tails": 3_000 * 60, "lemur-tails": 400 * 100}
"""A bound on decisions per game: the move cap (ALL-4) times the most decisions a turn may take."""


class NeedDraw(Exception):
    """The chance step needs one more uniform draw below ``n`` than it was given."""

    def __init__(self, n: int) -> None:
        super().__init__(n)
        self.n = n


class Draws(Prng):
    """A Prng that hands out given outcomes of ``below`` (shuffle, sample and choice are Prng's own)."""

    __slots__ = ("outcomes", "used")

    def __init__(self, outcomes: list[int]) -> None:  # no seed: nothing is hashed
        self.outcomes = outcomes
        self.used = 0

    def below(self, n: int) -> int:
        if self.used == len(self.outcomes):
            raise NeedDraw(n)
        outcome = self.outcomes[self.used]
        self.used += 1
        return outcome


def short_name(game: str) -> str:
    return f"python_tourney_{game.replace('-', '_')}"


class TourneyGame(pyspiel.Game):
    """One of the three games as a pyspiel.Game (parameter ``players``: the table size)."""

    def __init__(self, game: str, params: dict | None = None) -> None:
        engine = registry.get(game)
        players = int((params or {}).get("players", engine.default_seats))
        engine.configure(players)  # ConfigError for a table the game cannot seat
        super().__init__(_game_type(game), pyspiel.GameInfo(
            num_distinct_actions=len(SPACES[game]), max_chance_outcomes=GAMES[game], num_players=players,
            min_utility=-1.0, max_utility=1.0, utility_sum=0.0, max_game_length=MAX_LENGTH[game],
        ), {"players": players})

    def new_initial_state(self) -> TourneyState:
        return TourneyState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> TourneyObserver:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        return TourneyObserver(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False))


def game_of(game: pyspiel.Game) -> tuple[str, int]:
    """The tourney game name and table size of a loaded OpenSpiel game (pyspiel keeps no Python attributes)."""
    name = game.get_type().short_name.removeprefix("python_tourney_").replace("_", "-")
    return name, int(game.get_parameters()["players"])


class Shared:
    """Game data that clones of a state share: pyspiel clones a Python state with copy.deepcopy, and engine
    states and events are immutable, so copying them would only cost time."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __deepcopy__(self, memo) -> Shared:
        return self


class TourneyState(pyspiel.State):
    """A game in progress: the engine's state, the events so far, and the draws of a pending chance step."""

    def __init__(self, game: pyspiel.Game) -> None:
        super().__init__(game)
        name, players = game_of(game)
        engine = registry.get(name)
        self.fixed = Shared((engine, SPACES[name], players))
        self.now = Shared(None)
        self.log = Shared(None)  # the events so far, newest first: (public line, private line, audience, older)
        self.draws: list[int] = []
        self.pending = 0  # outcomes of the chance node now open (0: none)
        self.chance_steps = 0  # chance steps completed: the k-th draws from the game's PRNG stream k
        for event in engine.start(engine.configure(players)):
            self._fold(event)
        self._settle()

    @property
    def engine(self) -> Any:
        return self.fixed.value[0]

    @property
    def state(self) -> Any:
        return self.now.value

    def _fold(self, event) -> None:
        self.now = Shared(self.engine.apply(self.now.value, event))
        public = json.dumps({"type": event.type, "data": event.data}, sort_keys=True)
        private = None
        if event.private is not None:
            private = json.dumps({"type": event.type, "data": event.data, "private": event.private}, sort_keys=True)
        self.log = Shared((public, private, event.audience, self.log.value))

    def _settle(self) -> None:
        """Run chance steps as far as the draws given allow: stop at a draw still to make, a seat, or the end."""
        engine = self.engine
        while engine.actor(self.state) == CHANCE:
            try:
                events = engine.chance(self.state, Draws(self.draws))
            except NeedDraw as need:
                self.pending = need.n
                return
            self.draws, self.pending = [], 0
            self.chance_steps += 1
            for event in events:
                self._fold(event)

    def lines(self, player: int) -> list[str]:
        """The events so far as ``player`` sees them, one JSON object each, oldest first."""
        out = []
        link = self.log.value
        while link is not None:
            public, private, audience, link = link
            out.append(private if private is not None and player in audience else public)
        out.reverse()
        return out

    def current_player(self) -> int:
        if self.pending:
            return pyspiel.PlayerId.CHANCE
        actor = self.engine.actor(self.state)
        return pyspiel.PlayerId.TERMINAL if actor == TERMINAL else actor

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self.fixed.value[1].indices(self.engine.legal_actions(self.state)))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        p = 1.0 / self.pending
        return [(outcome, p) for outcome in range(self.pending)]

    def _apply_action(self, action: int) -> None:
        if self.pending:
            self.draws.append(action)
        else:
            for event in self.engine.decide(self.state, self.fixed.value[1].names[action]):
                self._fold(event)
        self._settle()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"draw {action} of {self.pending}"
        return self.fixed.value[1].names[action]

    def is_terminal(self) -> bool:
        return not self.pending and self.engine.actor(self.state) == TERMINAL

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.fixed.value[2]
        return rewards(self.engine.ranking(self.state))

    def __str__(self) -> str:
        return json.dumps(self.engine.view(self.state, None), sort_keys=True)


def state_at(game: pyspiel.Game, engine_state: Any) -> TourneyState:
    """An OpenSpiel state at a given engine state (a determinization, for a search that needs a full state).

    Its information-state strings know no history (it starts here); everything else is as in a real game.
    """
    state = game.new_initial_state()
    state.now = Shared(engine_state)
    state.log = Shared(None)
    state.draws, state.pending = [], 0
    state._settle()
    return state


class SearchBot:
    """A tourney bot (docs/bot-protocol.md) that asks an OpenSpiel bot (``pyspiel.Bot``: ``step(state) -> action``)
    for each move, on a full state drawn from what the seat has seen (one determinization a move).

    ``make(game, random_state)`` builds the OpenSpiel bot once the table size is known; ``random_state``
    is a numpy RandomState seeded from the tourney bot's own rng, so a tournament seed replays it.
    """

    def __init__(self, game: str, seat: int, rng, make) -> None:
        self.engine = registry.get(game)
        self.name = game
        self.seat = seat
        self.rng = rng
        self.make = make
        self.bot = None
        self.spiel_game = None
        self.determinizer = None

    def act(self, turn) -> str:
        sample = self._sample(turn)
        if len(turn.legal) == 1:
            return turn.legal[0]
        if self.bot is None:
            seats = len(self.engine.ranking(sample))
            self.spiel_game = pyspiel.load_game(short_name(self.name), {"players": seats})
            self.bot = self.make(self.spiel_game, np.random.RandomState(self.rng.getrandbits(32)))
        action = SPACES[self.name].names[self.bot.step(state_at(self.spiel_game, sample))]
        return action if action in turn.legal else turn.legal[0]

    def _sample(self, turn) -> Any:
        determinize = getattr(turn, "determinize", None)
        if determinize is not None:
            return determinize(self.rng)
        if self.determinizer is None:  # a bot run as a program: its events add up to the game
            self.determinizer = self.engine.determinizer(self.seat)
        self.determinizer.see(turn.events)
        return self.determinizer.sample(self.rng)


class TourneyObserver:
    """Observation (the view, as a string and as adapters/observations.py's tensor) and, with perfect recall,
    the information state (the player's redacted events, as a string)."""

    def __init__(self, game: pyspiel.Game, iig_obs_type) -> None:
        self.perfect_recall = iig_obs_type.perfect_recall
        self.encoding = ENCODINGS[game_of(game)[0]]
        size = 0 if self.perfect_recall else self.encoding.size
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: TourneyState, player: int) -> None:
        if not self.perfect_recall:
            self.tensor[:] = self.encoding.encode(state.engine.view(state.state, player))

    def string_from(self, state: TourneyState, player: int) -> str:
        if not self.perfect_recall:
            return json.dumps(state.engine.view(state.state, player), sort_keys=True)
        lines = state.lines(player)
        return "\n".join(lines)


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


# pyspiel creates games from a class (a closure as the creator crashes the interpreter at exit).
for _game, _class in (("tails-on-fire", TailsOnFireGame), ("nine-tails", NineTailsGame),
                      ("lemur-tails", LemurTailsGame)):
    if short_name(_game) not in pyspiel.registered_names():
        pyspiel.register_game(_game_type(_game), _class)
