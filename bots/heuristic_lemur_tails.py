"""Heuristic Lemur Tails bot: keeps both tails growing, the shorter first, and shortens the opponent's.

Reads only ``turn.legal``, ``turn.view`` and ``turn.seat``. In the order it tries them:

1. a card a Sun lemur just brought goes on the own tail it helps most, else it is kept;
2. exchange a joker in any tail for a hand card (the joker comes back, the tail keeps its length);
3. spend a present Sun lemur to take the most recent card of the opponent's shorter tail (their
   score is their shortest tail, so this costs them a point and may give one to us);
4. play the longest chain the hand allows, on the shorter own tail first (long series of three earn
   Sun lemurs back, LT-6); a joker is played only when it lets the chain go on;
5. dump a card that fits neither own tail on the opponent's longer tail when that cannot raise
   their score, to draw two fresh cards while the chain is stuck;
6. take a market card that fits an own tail;
7. otherwise, having added nothing, swap (Sun lemur) or pass away up to three cards that fit no own
   tail and link least with the rest of the hand; then end the turn.
"""

from __future__ import annotations

GAMES = ("lemur-tails",)

_SEARCH_BUDGET = 4000
"""Nodes the chain search may visit per call, so a big hand never stalls a game."""


def _kind(name: str) -> tuple[int, int]:
    """(colour, number) of a card name such as "W5" or "BJ"; number -1 for a joker."""
    return (0 if name[0] == "W" else 1, -1 if name[1] == "J" else int(name[1:]))


def _fits(a: int, b: int) -> bool:
    return (a - b) % 10 in (0, 1, 9)


def _tail_end(tail_name: str, cards: list[str]) -> tuple[int, int, bool]:
    """What a tail accepts next: (colour, anchor number or -1 for any, joker allowed)."""
    if not cards:
        return (1 - (tail_name[1] == "b"), -1, True)
    color, number = _kind(cards[-1])
    if number >= 0:
        return (1 - color, number, True)
    anchor = _kind(cards[-2])[1] if len(cards) > 1 else -1
    return (1 - color, anchor, False)


def _accepts(end: tuple[int, int, bool], card: tuple[int, int]) -> bool:
    color, anchor, joker_ok = end
    if card[0] != color:
        return False
    if card[1] < 0:
        return joker_ok
    return anchor < 0 or _fits(anchor, card[1])


def _after(end: tuple[int, int, bool], card: tuple[int, int]) -> tuple[int, int, bool]:
    if card[1] < 0:
        return (1 - card[0], end[1], False)
    return (1 - card[0], card[1], True)


class _Chain:
    """Longest sequence of hand cards that can follow a tail end, by bounded depth-first search."""

    def __init__(self) -> None:
        self.budget = _SEARCH_BUDGET

    def best(self, end: tuple[int, int, bool], hand: list[tuple[int, int]]) -> list[tuple[int, int]]:
        best: list[tuple[int, int]] = []
        if self.budget <= 0:
            return best
        self.budget -= 1
        tried = set()
        for i, card in enumerate(hand):
            if card in tried or not _accepts(end, card):
                continue
            tried.add(card)
            rest = hand[:i] + hand[i + 1 :]
            line = [card, *self.best(_after(end, card), rest)]
            # Prefer longer lines; among equals, lines that keep jokers in hand (numbers first).
            if len(line) > len(best) or (len(line) == len(best) and best and best[0][1] < 0 <= card[1]):
                best = line
        return best


class Bot:
    def __init__(self, game, seat, rng):
        self.seat = seat
        self.rng = rng

    def act(self, turn) -> str:
        legal = turn.legal
        if len(legal) == 1:
            return legal[0]
        view = turn.view
        seat = turn.seat
        phase = view["phase"]
        tails = view["tails"]
        mine = [f"{seat}w", f"{seat}b"]
        theirs = [f"{1 - seat}w", f"{1 - seat}b"]
        mine.sort(key=lambda t: len(tails[t]))  # shorter own tail first
        theirs.sort(key=lambda t: len(tails[t]))
        hand = [_kind(name) for name in view["hand"]]
        ends = [_tail_end(t, tails[t]) for t in mine]
        useful = self._useful(hand, ends)

        if phase == "taken":
            return self._taken(legal, mine, tails, view["taken"])
        if phase in ("swap", "pass"):
            for name in self._worst(view["hand"], hand, ends):
                if f"discard:{name}" in legal:
                    return f"discard:{name}"
            closing = "draw" if phase == "swap" else "end"
            return closing if closing in legal else legal[0]

        for action in legal:
            if action.startswith("exchange:"):
                return action
        steal = f"lemur:tail:{theirs[0]}"
        if steal in legal:
            return steal
        if len(tails[theirs[0]]) == len(tails[theirs[1]]):
            steal = f"lemur:tail:{theirs[1]}"
            if steal in legal:
                return steal
        play = self._play(legal, mine, tails, hand)
        if play is not None:
            return play
        for name in view["market"]:
            if f"lemur:market:{name}" in legal and any(_accepts(end, _kind(name)) for end in ends):
                return f"lemur:market:{name}"
        dump = self._dump(legal, theirs, tails, view, useful)
        if dump is not None:
            return dump
        if view["added_this_turn"] == 0:
            # Stuck: swap or pass away the cards least likely to join a tail, so fresh ones come in.
            worst = self._worst(view["hand"], hand, ends)
            if worst and "lemur:swap" in legal:
                return "lemur:swap"
            for name in worst:
                return f"discard:{name}"
        return "end"

    def _taken(self, legal, mine, tails, taken) -> str:
        for tail in mine:
            if f"place:{tail}" in legal:
                return f"place:{tail}"
        return "keep"

    def _play(self, legal, mine, tails, hand) -> str | None:
        search = _Chain()
        lines = {tail: search.best(_tail_end(tail, tails[tail]), hand) for tail in mine}
        short, long = mine
        # The shorter tail first; when both are equally long, the one with the longer line.
        order = [short, long]
        if len(tails[short]) == len(tails[long]) and len(lines[long]) > len(lines[short]):
            order = [long, short]
        for tail in order:
            line = lines[tail]
            if not line:
                continue
            color, number = line[0]
            name = f"{'WB'[color]}{'J' if number < 0 else number}"
            action = f"play:{name}:{tail}"
            if action in legal:
                return action
        return None

    def _dump(self, legal, theirs, tails, view, useful) -> str | None:
        short, long = theirs
        if len(tails[long]) - len(tails[short]) < 2 or view["deck_size"] < 6:
            return None
        for name in view["hand"]:
            action = f"play:{name}:{long}"
            if action in legal and _kind(name) not in useful:
                return action
        return None

    @staticmethod
    def _worst(names, hand, ends) -> list[str]:
        """Up to three numbered cards that fit no own tail now, fewest links to other hand cards first."""

        def links(card):
            return sum(1 for other in hand if other[0] != card[0] and (other[1] < 0 or _fits(other[1], card[1])))

        spare = [
            (links(card), name)
            for name, card in zip(names, hand, strict=True)
            if card[1] >= 0 and not any(_accepts(end, card) for end in ends)
        ]
        return [name for _, name in sorted(spare)[:3]]

    @staticmethod
    def _useful(hand, ends) -> set[tuple[int, int]]:
        """Cards worth keeping: jokers, cards that fit an own tail, cards that chain with another hand card."""
        out = set()
        for card in hand:
            if card[1] < 0 or any(_accepts(end, card) for end in ends):
                out.add(card)
                continue
            for other in hand:
                if other[0] != card[0] and other[1] >= 0 and _fits(other[1], card[1]):
                    out.add(card)
                    break
        return out
