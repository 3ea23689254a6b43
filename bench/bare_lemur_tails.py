"""Lemur Tails as a bare loop: the engine's rules on plain mutable lists, no events, no views.

bench/engine.py times it beside the engine (driver, random agents, every event folded). Moves are
tuples instead of strings, chosen uniformly among the same legal moves the engine lists, so the two
play games of the same shape. Card data and the fit tables come from engines/lemur_tails/cards.py.
"""

from __future__ import annotations

import random

from engines.lemur_tails.cards import (
    END,
    HAND_SIZE,
    KIND,
    KIND_BIT,
    MARKET_SIZE,
    NUMBERED,
    TAIL_CARDS,
    accepts,
    exchange_kinds,
    kinds_of,
)

MOVE_CAP = 400


def play(seats: int, rng: random.Random) -> None:
    deck = list(range(TAIL_CARDS))
    rng.shuffle(deck)  # deck[-1] is the top card
    hands = [[deck.pop() for _ in range(HAND_SIZE)] for _ in range(2)]
    market = [deck.pop() for _ in range(MARKET_SIZE)]
    deck.insert(rng.randrange(11), END)
    tails: list[list[int]] = [[], [], [], []]
    present, empty, aside = [2, 2], [0, 0], 8
    ending = False
    turns = 0
    choice = rng.choice

    def draw(hand: list[int], count: int) -> None:
        nonlocal ending
        while count > 0 and deck:
            card = deck.pop()
            if card == END:
                ending = True
                continue
            hand.append(card)
            count -= 1
        if deck == [END]:  # LT-15
            deck.pop()
            ending = True
        if not deck:
            ending = True

    def best_of(cards: list[int], kind: int) -> int:
        return min(card for card in cards if KIND[card] == kind)

    while True:
        seat = turns % 2
        other = 1 - seat
        hand = hands[seat]
        added = 0
        series_tail, series_len = -1, 0
        phase, held, discards = "play", -1, 0
        while True:
            kinds = sorted({KIND[card] for card in hand})
            if phase == "taken":
                kind = KIND[held]
                moves = [("place", t) for t in range(4) if accepts(t, tails[t]) & KIND_BIT[kind]]
                moves.append(("keep",))
            elif phase == "swap":
                moves = [("discard", k) for k in kinds] if discards < 3 else []
                if discards:
                    moves.append(("draw",))
            elif phase == "pass":
                moves = [("discard", k) for k in kinds] if discards < 3 else []
                moves.append(("end",))
            else:
                hand_kinds = 0  # a mask, as cards.accepts and exchange_kinds give theirs
                for kind in kinds:
                    hand_kinds |= KIND_BIT[kind]
                moves = []
                for t in range(4):
                    moves.extend(("play", k, t) for k in kinds_of(accepts(t, tails[t]) & hand_kinds))
                for t in range(4):
                    tail = tails[t]
                    for position, card in enumerate(tail):
                        if card >= NUMBERED:
                            allowed = kinds_of(exchange_kinds(tail, position) & hand_kinds)
                            moves.extend(("exchange", t, position, k) for k in allowed)
                if present[seat]:
                    moves.extend(("market", k) for k in sorted({KIND[card] for card in market}))
                    moves.extend(("steal", t) for t in (2 * other, 2 * other + 1) if tails[t])
                    if hands[other]:
                        moves.append(("blind",))
                    if hand and any(card != END for card in deck):
                        moves.append(("swap",))
                if not added:
                    moves.extend(("discard", k) for k in kinds)
                moves.append(("end",))
            move = choice(moves)
            what = move[0]
            if what == "end":
                break
            if what in ("play", "place"):
                if what == "play":
                    card, tail = best_of(hand, move[1]), move[2]
                else:
                    card, tail = held, move[1]
                hand.remove(card)
                tails[tail].append(card)
                added += 1
                phase, held = "play", -1
                if tail >> 1 == seat:
                    series_len = series_len + 1 if series_tail == tail else 1
                    series_tail = tail
                    if series_len % 3 == 0:
                        if empty[seat]:
                            empty[seat] -= 1
                            present[seat] += 1
                        elif aside:
                            aside -= 1
                            present[seat] += 1
                else:
                    series_tail, series_len = -1, 0
                    draw(hand, 2)
            elif what == "exchange":
                _, tail, position, kind = move
                card = best_of(hand, kind)
                hand.remove(card)
                hand.append(tails[tail][position])
                tails[tail][position] = card
            elif what == "keep":
                phase, held = "play", -1
            elif what == "discard":
                hand.remove(best_of(hand, move[1]))
                discards += 1
                if phase == "play":
                    phase = "pass"
            elif what == "draw":
                draw(hand, discards)
                phase, discards = "play", 0
            else:
                present[seat] -= 1
                empty[seat] += 1
                if what == "market":
                    held = best_of(market, move[1])
                    market.remove(held)
                elif what == "steal":
                    held = tails[move[1]].pop()
                elif what == "blind":
                    victim = sorted(hands[other])
                    held = victim[rng.randrange(len(victim))]
                    hands[other].remove(held)
                if what == "swap":
                    phase, discards = "swap", 0
                else:
                    hand.append(held)
                    phase = "taken"
        turns += 1
        if (ending and seat == 1) or turns >= MOVE_CAP:
            return
        draw(hand, HAND_SIZE - len(hand))
        draw(market, MARKET_SIZE - len(market))
        if ending and seat == 1:
            return
