"""Information Set MCTS: one search bot for all three games (single-observer ISMCTS).

Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree Search" (IEEE TCIAIG, 2012).
One tree per move, its nodes reached by (seat, action) from the seat's decision. Each iteration:

1. **determinize**: draw a full state consistent with everything the seat has seen
   (``turn.determinize``; a bot run as a program feeds ``turn.events`` to the engine's
   determinizer itself, with the same result);
2. **select**: from the root, while every action legal in that state has a child, go to the
   child with the best UCB1 score among the children legal *in this determinization*, counting
   how often each child was available (so an action that is rarely possible is not punished for
   being rarely tried): ``mean + EXPLORATION * sqrt(ln(available) / visits)``, the mean being the
   reward of the seat that chose the action;
3. **expand** one untried legal action;
4. **play out** with the game's playout policy (``PLAYOUT_POLICY``; a ``RANDOM_SHARE`` of the
   decisions uniformly random; chance steps drawn from the bot's own stream) to the end of the
   game, or for at most ``ROLLOUT_DEPTH`` decisions;
5. **back up** every seat's reward: at the game's end its pairwise score against the others from
   the ranking (ALL-6): 1 for each seat ranked below it, 1/2 for each tie, over the number of other
   seats; in a playout cut short, its mean over the others of a logistic of its margin on the
   game's score (``SCORE``: flames, ascended foxes and tails, the shortest tail).

The move is the root's most visited child. Chance steps are not tree nodes (open loop): their
outcomes come from the determinization and the bot's stream.

**Budget.** ``iterations`` (deterministic: the same seed and position give the same move) or
``milliseconds`` per move. By default a per-game iteration count (``ITERATIONS``) chosen to take
about 50-250 ms of the default move time of 1 s on a loaded 2-core machine, with a safety cap of
``TIME_CAP_MS`` milliseconds that ends the search early on an unusually slow position or a
loaded machine (only then is the move not a function of the seed). Constructor: ``Bot(game, seat, rng,
iterations=None, milliseconds=None, exploration=EXPLORATION, rollout_depth=None)``.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

from engines import registry
from engines.base import CHANCE, TERMINAL
from engines.chance import Prng

GAMES = ("tails-on-fire", "nine-tails", "lemur-tails")

EXPLORATION = 0.35
"""UCB1's exploration constant, for rewards in [0, 1]. The textbook sqrt(2) ~ 1.41 explores far too much here:
rewards are noisy (a determinization and a short playout each) and close together (cut-off scores pass through
a logistic), so the search must exploit sooner; 0.35 played better than 0.7 in the tuning round recorded in
docs/benchmarks.md."""

ITERATIONS = {"tails-on-fire": 300, "nine-tails": 150, "lemur-tails": 150}
"""Default iterations per move, per game: about 100-250 ms a move on this project's loaded 2-core machine."""

ROLLOUT_DEPTH = {"tails-on-fire": 20, "nine-tails": 20, "lemur-tails": 20}
"""Decisions a playout makes at most before the position is scored as it stands (``SCORE``)."""

TIME_CAP_MS = 600
"""An iteration budget stops early past this many milliseconds (the default move time is 1,000)."""


class Node:
    """A node of the search tree: the (seat, action) children seen so far and their statistics."""

    __slots__ = ("available", "children", "reward", "visits")

    def __init__(self) -> None:
        self.children: dict[tuple[int, str], Node] = {}
        self.visits = 0
        self.available = 0
        self.reward = 0.0  # summed over visits, for the seat whose action leads here


class Bot:
    def __init__(self, game: str, seat: int, rng, iterations: int | None = None, milliseconds: float | None = None,
                 exploration: float = EXPLORATION, rollout_depth: int | None = None) -> None:
        if iterations is not None and milliseconds is not None:
            raise ValueError("ismcts: give a budget in iterations or in milliseconds, not both")
        self.engine = registry.get(game)
        self.seat = seat
        self.rng = rng
        self.iterations = iterations
        self.milliseconds = milliseconds
        if iterations is None and milliseconds is None:  # the default: iterations, with a safety cap on time
            self.iterations, self.milliseconds = ITERATIONS[game], TIME_CAP_MS
        self.exploration = exploration
        self.depth = rollout_depth if rollout_depth is not None else ROLLOUT_DEPTH[game]
        self.determinizer = None  # fed with turn.events when the Turn cannot determinize (a hosted bot)
        self.key = f"ismcts-{rng.getrandbits(64):016x}"  # the playouts' chance stream, from the bot's seed
        self.streams = 0

    def act(self, turn) -> str:
        legal = turn.legal
        determinize = self._sampler(turn)  # every turn: a hosted bot must see every turn's events
        if len(legal) == 1:
            return legal[0]
        root = Node()
        iterations, clock = self.iterations, self.milliseconds is not None
        ends = time.perf_counter() + (self.milliseconds or 0) / 1000
        done = 0
        while True:
            self._iterate(root, determinize(self.rng))
            done += 1
            if done == iterations or (clock and time.perf_counter() >= ends):
                break
        choice = max(root.children.items(), key=lambda item: (item[1].visits, item[1].reward))[0][1]
        return choice if choice in legal else legal[0]

    def _sampler(self, turn):
        sample = getattr(turn, "determinize", None)
        if sample is not None:
            return sample
        if self.determinizer is None:
            self.determinizer = self.engine.determinizer(self.seat)
        self.determinizer.see(turn.events)
        return self.determinizer.sample

    def _iterate(self, root: Node, state: Any) -> None:
        engine = self.engine
        actor, legal_actions = engine.actor, engine.legal_actions
        path: list[tuple[Node, int]] = []  # the nodes descended into, and the seat whose action led there
        node = root
        while (seat := actor(state)) != TERMINAL:
            if seat == CHANCE:
                state = self._chance(state)
                continue
            legal = legal_actions(state)
            children = node.children
            untried = []
            for action in legal:
                child = children.get((seat, action))
                if child is None:
                    untried.append(action)
                else:
                    child.available += 1
            if untried:  # expansion: one new node, then the playout
                action = untried[int(self.rng.random() * len(untried))]
                child = children[(seat, action)] = Node()
                child.available = 1
                path.append((child, seat))
                state = self._step(state, action)
                break
            action, node = self._select(children, seat, legal)
            path.append((node, seat))
            state = self._step(state, action)
        state = self._play_out(state)
        rewards = pairwise(engine.ranking(state)) if actor(state) == TERMINAL else self._evaluate(state)
        for node, seat in path:
            node.visits += 1
            node.reward += rewards[seat]

    def _select(self, children: dict, seat: int, legal) -> tuple[str, Node]:
        """The legal action with the best UCB1 score (availability counts, not the parent's visits)."""
        c = self.exploration
        best, best_node, best_score = "", None, -1.0
        for action in legal:
            child = children[(seat, action)]
            score = child.reward / child.visits + c * math.sqrt(math.log(child.available) / child.visits)
            if score > best_score:
                best, best_node, best_score = action, child, score
        return best, best_node

    def _step(self, state: Any, action: str) -> Any:
        apply = self.engine.apply
        for event in self.engine.decide(state, action):
            state = apply(state, event)
        return state

    def _play_out(self, state: Any) -> Any:
        engine = self.engine
        actor, legal_actions, decide, apply = engine.actor, engine.legal_actions, engine.decide, engine.apply
        random = self.rng.random
        policy = PLAYOUT_POLICY[engine.name]
        decisions = 0
        while decisions < self.depth:
            seat = actor(state)
            if seat == TERMINAL:
                break
            if seat == CHANCE:
                state = self._chance(state)
                continue
            legal = legal_actions(state)
            action = policy(legal, seat, random) if random() >= RANDOM_SHARE else legal[int(random() * len(legal))]
            for event in decide(state, action):
                state = apply(state, event)
            decisions += 1
        return state

    def _evaluate(self, state: Any) -> list[float]:
        """A playout cut short: each seat's mean over the others of logistic(score margin / scale)."""
        score, scale = SCORE[self.engine.name]
        scores = score(self.engine.view(state, None))
        n = len(scores)
        return [sum(1.0 / (1.0 + math.exp((theirs - mine) / scale)) for other, theirs in enumerate(scores)
                    if other != seat) / (n - 1) for seat, mine in enumerate(scores)]

    def _chance(self, state: Any) -> Any:
        self.streams += 1
        for event in self.engine.chance(state, Prng(self.key, self.streams)):
            state = self.engine.apply(state, event)
        return state


# --- playout policies: a little of each game's sense, read from the legal actions alone ---------------

RANDOM_SHARE = 0.1
"""The share of playout decisions taken uniformly at random instead of by the game's playout policy."""


def _tails_on_fire(legal, seat: int, random) -> str:
    # Choose at random; in the Hunt play whenever possible, a numbered opossum before the trickster
    # (legal lists "pass" first, then the numbered card, then the trickster).
    if len(legal) > 1 and legal[0] == "pass":
        return legal[1]
    return legal[int(random() * len(legal))]


def _nine_tails(legal, seat: int, random) -> str:
    # Tricks are left alone; a card is taken (the biggest tail first) and given to a fox whenever
    # one can be; a venture's discards stop at once; otherwise venture more often than sneak or rest.
    first = legal[0]
    if first == "decline":
        return first
    if first == "venture":  # legal is venture, (sneak,) rest
        roll = random()
        if roll < 0.6:
            return "venture"
        return "rest" if roll >= 0.85 or len(legal) == 2 else "sneak"
    tails = [action for action in legal if action.startswith("take:T-")]
    if tails:  # the tail worth most (a longer cost, NT-4), ties at random
        most = max(len(action) for action in tails)
        tails = [action for action in tails if len(action) == most]
        return tails[int(random() * len(tails))]
    takes = [action for action in legal if action.startswith(("take:", "fox:"))]
    if takes:
        return takes[int(random() * len(takes))]
    if "stop" in legal:
        return "stop"
    return legal[int(random() * len(legal))]


def _lemur_tails(legal, seat: int, random) -> str:
    # Grow the own tails (a card a Sun lemur brought too), take jokers' places, else end the turn.
    own = str(seat)  # a tail is named by its owner and ring ("0w"), the action's last two characters
    grow = [action for action in legal
            if (action.startswith(("play:", "place:")) and action[-2] == own) or action.startswith("exchange:")]
    if grow:
        return grow[int(random() * len(grow))]
    for closing in ("keep", "end", "draw"):
        if closing in legal:
            return closing
    return legal[int(random() * len(legal))]


PLAYOUT_POLICY = {"tails-on-fire": _tails_on_fire, "nine-tails": _nine_tails, "lemur-tails": _lemur_tails}


# --- how a position cut short is scored: a number per seat from the spectator's view, and its scale ---------


def _flames(view) -> list[float]:
    return [player["flames"] for player in view["players"]]


def _foxes(view) -> list[float]:
    # Ascended foxes first (NT-9), then the biggest fox, then the tails on the others.
    out = []
    for ascended, foxes in zip(view["ascended"], view["foxes"], strict=True):
        tails = sorted((fox["tail_count"] for fox in foxes), reverse=True) or [0]
        out.append(9 * ascended + tails[0] + 0.25 * sum(tails[1:]))
    return out


def _tails(view) -> list[float]:
    # The shortest tail counts (LT-9), then the longest.
    out = []
    tails = view["tails"]
    for seat in (0, 1):
        lengths = sorted(len(tails[f"{seat}{ring}"]) for ring in "wb")
        out.append(lengths[0] + 0.25 * lengths[1])
    return out


SCORE = {"tails-on-fire": (_flames, 2.0), "nine-tails": (_foxes, 3.0), "lemur-tails": (_tails, 1.5)}
"""Per game: the score of each seat in a position cut short, and the margin that makes a 73% favourite."""


def pairwise(ranking) -> list[float]:
    """Each seat's score against the others from a ranking (1 = best): 1 per seat below, 1/2 per tie, averaged."""
    n = len(ranking)
    return [sum(1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
                for other, theirs in enumerate(ranking) if other != seat) / (n - 1)
            for seat, mine in enumerate(ranking)]


def bot_file(iterations: int, rollout_depth: int | None = None) -> str:
    """This bot's source as a bot file of its own at another fixed budget (bench/strength.py, tests).

    A copy, not an import: a sandboxed bot reads no file but its own. Its default becomes ``iterations`` a move
    in every game, without the time cap (so every move is a function of the seed).
    """
    tail = (f"\n\n# written by bots.ismcts.bot_file\nITERATIONS = dict.fromkeys(GAMES, {iterations})\n"
            "TIME_CAP_MS = None\n")
    if rollout_depth is not None:
        tail += f"ROLLOUT_DEPTH = dict.fromkeys(GAMES, {rollout_depth})\n"
    return Path(__file__).read_text() + tail
