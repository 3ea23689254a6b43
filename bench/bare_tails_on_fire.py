"""Tails on Fire as a bare loop: the same rules as engines/tails_on_fire/engine.py with plain
mutable lists, no events, no views and no checks, every choice random among the same
legal moves (bench/engine.py measures the engine against it).

Same rules: picks one at a time (min(3, choosable), TOF-4), the Hunt with the rising
starting number and stalemate (TOF-5, TOF-6), tricksters, wins stealing from every
matching stack (TOF-7), exhaustion, the Rogue at 2-3 seats (TOF-8), seats holding no
chosen opossum skip their turns (TOF-11), and the 2,000-decision cap (TOF-9).
"""

from __future__ import annotations

import random

ROGUE = -1
TRICKSTER = 0
NUMBERS = (1, 2, 3, 4, 5, 6, 7, 8, 9)
FLAMES = (0, 1, 1, 1, 2, 2, 2, 3, 3, 3)
MOVE_CAP = 2000


def play(seats: int, rng: random.Random) -> None:
    """Play one random game of Tails on Fire at ``seats`` seats (the Rogue on at 2-3 seats)."""
    choice = rng.choice
    rogue = seats <= 3
    bonfire = rng.sample(NUMBERS, seats)
    hand = [[card for card in range(10) if card != fire] for fire in bonfire]
    stacks: list[list[list]] = [[] for _ in range(seats)]  # [card, number, fire cards]
    iguana = list(NUMBERS)
    rng.shuffle(iguana)
    leader = 0
    turns = 0
    while iguana:
        deck: list[int] = []
        reserve: list[int] = []
        if rogue:
            deck = list(NUMBERS)
            rng.shuffle(deck)
        # 1. Choose opossums, one pick at a time, in seat order.
        chosen: list[list[int]] = []
        for seat in range(seats):
            pool = list(hand[seat])
            picks = []
            for _ in range(min(3, len(pool))):
                card = choice(pool)
                pool.remove(card)
                picks.append(card)
                turns += 1
                if turns >= MOVE_CAP:
                    return
            chosen.append(picks)
        # 2. The Hunt: the first seat, clockwise, the Rogue last in each circle.
        order = [(leader + i) % seats for i in range(seats)]
        if rogue:
            order.append(ROGUE)
        circle = len(order)
        discard: list[tuple[int, int, int]] = []
        number = iguana[0]
        position = -1
        for _ in range(9):
            for at, actor in enumerate(order):
                if actor == ROGUE:
                    played = _rogue_turn(deck, reserve, number)
                    if played:
                        discard.append((ROGUE, played, played))
                else:
                    picks = chosen[actor]
                    if not picks:
                        continue
                    card = choice((None, number) if number in picks else (None,))
                    turns += 1
                    if card is not None:
                        picks.remove(card)
                        discard.append((actor, card, card))
                    if turns >= MOVE_CAP:
                        return
                if discard:
                    position = at
                    break
            if discard:
                break
            number = number % 9 + 1
        next_leader = leader
        if not discard:
            iguana.pop(0)  # stalemate (TOF-6): the top fire card leaves the game
        else:
            at = position
            while True:
                at = (at + 1) % circle
                actor = order[at]
                owner, top, shown = discard[-1]
                if owner == actor:
                    fire = iguana.pop(0)
                    won = [fire]
                    for seat in range(seats):
                        if seat != actor:
                            keep = []
                            for stack in stacks[seat]:
                                if stack[1] == shown:
                                    won.extend(stack[2])
                                else:
                                    keep.append(stack)
                            stacks[seat] = keep
                    if actor != ROGUE:
                        stacks[actor].append([top, shown, won])
                        discard.pop()
                        next_leader = actor
                    break
                need = shown % 9 + 1
                if actor == ROGUE:
                    played = _rogue_turn(deck, reserve, need)
                    if played:
                        discard.append((ROGUE, played, played))
                    continue
                picks = chosen[actor]
                if not picks:
                    continue
                legal = [None]
                if need in picks:
                    legal.append(need)
                if TRICKSTER in picks and (top != TRICKSTER or owner == ROGUE):
                    legal.append(TRICKSTER)
                card = choice(legal)
                turns += 1
                if card is not None:
                    picks.remove(card)
                    discard.append((actor, card, need))
                if turns >= MOVE_CAP:
                    return
        # 3. Prepare for next round: discards are exhausted, everything else returns to hand.
        leader = next_leader
        spent: list[set[int]] = [set() for _ in range(seats)]
        for owner, card, _ in discard:
            if owner != ROGUE:
                spent[owner].add(card)
        for seat in range(seats):
            out = spent[seat]
            out.add(bonfire[seat])
            for stack in stacks[seat]:
                out.add(stack[0])
            hand[seat] = [card for card in range(10) if card not in out]
    _scores = [1 + sum(FLAMES[fire] for stack in own for fire in stack[2]) for own in stacks]


def _rogue_turn(deck: list[int], reserve: list[int], need: int) -> int:
    """The Rogue's script: the reserve's top card, else one drawn card, else it passes (0)."""
    if reserve and reserve[-1] == need:
        return reserve.pop()
    if not deck:
        return 0
    card = deck.pop()
    if card == need:
        return card
    reserve.append(card)
    return 0
