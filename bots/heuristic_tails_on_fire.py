"""Heuristic: a Tails on Fire bot that follows the rulebook's strategy tips.

Choosing opossums, each pick takes the card that scores best for the coming Hunt:
- the starting number, or one or two higher the later this seat plays after the first seat;
- one above the number each of its own fire stacks shows (so the round cannot end on that
  number and let a rival steal the stack);
- the number an opponent's fire stack shows (to steal it), worth that stack's flames;
- one below an opponent's exhausted opossum (that opponent cannot follow with it);
- the trickster is always useful (it follows any number).
In the Hunt it plays whenever it can: the starting number, else the number one higher than
the top card, keeping the trickster for when it holds nothing else that fits.

It reads only what a seat may see (``turn.view``, ``turn.legal``): docs/games/tails-on-fire.md.
"""

from __future__ import annotations

GAMES = ("tails-on-fire",)

TRICKSTER = 0
TRICKSTER_VALUE = 2.5


def follow(number: int) -> int:
    """The number one higher than ``number`` (9 -> 1)."""
    return number % 9 + 1


class Bot:
    def __init__(self, game, seat, rng):
        self.seat = seat
        self.rng = rng

    def act(self, turn) -> str:
        legal = turn.legal
        if len(legal) == 1:
            return legal[0]
        if legal[0].startswith("choose:"):
            return self._choose(turn.view, legal)
        plays = [action for action in legal if action != "pass"]
        if not plays:
            return "pass"
        # Play whenever possible; a numbered opossum before the trickster, which fits anywhere.
        numbered = [action for action in plays if action.startswith("play:")]
        return numbered[0] if numbered else plays[0]

    def _choose(self, view, legal: list[str]) -> str:
        scores = self._scores(view)
        chosen = set(view.get("chosen") or ())
        best, best_score = legal[0], None
        for action in legal:
            name = action.partition(":")[2]
            card = TRICKSTER if name == "trickster" else int(name)
            score = scores.get(card, 0.0)
            # Cards next to ones already chosen let this seat follow itself later in the Hunt.
            if card and (card - 1 in chosen or follow(card) in chosen):
                score += 0.3
            score += self.rng.random() * 0.01  # break ties without a fixed preference
            if best_score is None or score > best_score:
                best, best_score = action, score
        return best

    def _scores(self, view) -> dict[int, float]:
        seats, me = view["seats"], view["seat"]
        start = view["iguana"]["top"] or view["starting_number"]
        position = (me - view["leader"]) % seats
        scores: dict[int, float] = {TRICKSTER: TRICKSTER_VALUE}

        def add(card: int, value: float) -> None:
            scores[card] = scores.get(card, 0.0) + value

        # Starting number: the first seat plays it itself; later seats expect it to be played
        # before them and want to answer it.
        if start:
            if position == 0:
                add(start, 3.0)
                add(follow(start), 1.5)
            else:
                add(start, 2.0)
                add(follow(start), 2.5)
                add(follow(follow(start)), 1.0)
        for seat, player in enumerate(view["players"]):
            for stack in player["stacks"]:
                if seat == me:
                    add(follow(stack["number"]), 1.0 + stack["flames"])  # guard the stack
                else:
                    add(stack["number"], 1.0 + stack["flames"])  # steal it
            if seat != me:
                for card in player["exhausted"]:
                    if card:
                        add((card - 2) % 9 + 1, 0.5)  # one below: they cannot follow it
        return scores
