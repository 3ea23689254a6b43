"""Nine Tails as a bare loop for bench/engine.py: the same rules, plain mutable lists, no events.

Random choices are made among the same legal actions the engine lists (engines/nine_tails/rules.py),
one small decision at a time, so the two loops play games of the same shape. Nothing here is
checked against the engine beyond that; it exists only to measure what the event machinery costs.
"""

from __future__ import annotations

import random

from engines.nine_tails.cards import (
    ANY,
    COST,
    FAST_GOAL,
    KIND,
    MOVE_CAP,
    ORDERED_COST,
    SLOTS,
    STARTING_FOX,
    STARTING_FOX_IDS,
    STUDY,
    TAIL_VALUE,
    TRICKERY_CARDS,
    WILD_FOX,
    WILDS_IDS,
)

CARD, SLOT, SPENT, STUDIES, TAILS, COUNT = range(6)  # a fox is a list of these


def play(seats: int, rng: random.Random, fast: bool = False) -> None:
    Bare(seats, rng, fast).run()


def _fox(card):
    return [card, SLOTS[card], 0, [], [], 1]


def _can_pay(fox, cost) -> bool:
    have = dict.fromkeys("ACGSQ*", 0)
    for index, trait in enumerate(fox[SLOT]):
        if not fox[SPENT] >> index & 1:
            have[trait] += 1
    short = sum(max(0, cost.count(trait) - have[trait]) for trait in "ACGSQ")
    return short <= have[ANY] and len(cost) <= sum(have.values())


def _fits(fox, card) -> bool:
    return fox[COUNT] + TAIL_VALUE[card] <= 9 and _can_pay(fox, COST[card])


def _assign(fox, symbols) -> int:
    taken, slots = fox[SPENT], fox[SLOT]
    for symbol in symbols:  # NT-5: trait symbols on their own trait, else Any; Any symbols Any-last
        pick = -1
        for index, trait in enumerate(slots):
            if not taken >> index & 1 and (trait == symbol if symbol != ANY else trait != ANY):
                pick = index
                break
        if pick < 0:
            pick = next(i for i, trait in enumerate(slots) if trait == ANY and not taken >> i & 1)
        taken |= 1 << pick
    return taken


class Bare:
    def __init__(self, seats: int, rng: random.Random, fast: bool) -> None:
        self.n, self.rng, self.goal = seats, rng, FAST_GOAL if fast else 3
        self.starting = rng.sample(STARTING_FOX_IDS, len(STARTING_FOX_IDS))
        self.foxes = [[_fox(self.starting.pop(0))] for _ in range(seats)]
        self.wilds = rng.sample(WILDS_IDS, len(WILDS_IDS))
        self.trickery = rng.sample(TRICKERY_CARDS, len(TRICKERY_CARDS))
        self.hands = [[self.trickery.pop(0) for _ in range(3)] for _ in range(seats)]
        self.discard: list[str] = []
        self.village: list[str] = []
        self.pile, self.stack = 40, 10
        self.ascended = [0] * seats
        self.won = False

    def pick(self, options):
        return options[self.rng.randrange(len(options))]

    def usable(self, seat, card) -> bool:
        kind = KIND[card]
        if kind == WILD_FOX:
            return True
        if kind == STUDY:
            return bool(self.foxes[seat])
        return any(_fits(fox, card) for fox in self.foxes[seat])

    def run(self) -> None:
        active = 0
        for _turn in range(MOVE_CAP):
            self.turn(active)
            if self.won:
                return
            self.window(active)
            if self.won:
                return
            active = (active + 1) % self.n

    def turn(self, seat) -> None:
        actions = ["venture", "rest"]
        if any(self.usable(seat, card) for card in self.village):
            actions.append("sneak")
        action = self.pick(actions)
        if action == "rest":
            for fox in self.foxes[seat]:
                self.pile += fox[SPENT].bit_count()
                fox[SPENT] = 0
            self.draw(seat, len(self.foxes[seat]))
        elif action == "sneak":
            self.take_from_village(seat, lambda card: True, may_pass=False)
        else:
            revealed, self.wilds = self.wilds[:3], self.wilds[3:]
            taken = bool(revealed) and self.choose(seat, revealed, may_pass=True)
            self.village += revealed
            if taken:
                return
            discarded = 0
            while True:
                option = self.pick([*sorted(set(self.hands[seat])), "stop"])
                if option == "stop":
                    break
                self.hands[seat].remove(option)
                self.discard.append(option)
                discarded += 1
            self.draw(seat, discarded + 1)

    def choose(self, seat, cards, may_pass) -> bool:
        """Take one of ``cards`` (removed from the list) or pass; True if one was taken."""
        options = [card for card in cards if self.usable(seat, card)]
        if may_pass or not options:
            options.append(None)
        card = self.pick(options)
        if card is None:
            return False
        cards.remove(card)
        self.resolve(seat, card)
        return True

    def take_from_village(self, seat, allowed, may_pass) -> None:
        cards = [card for card in self.village if allowed(card)]
        options = [card for card in cards if self.usable(seat, card)]
        if may_pass or not options:
            options.append(None)
        card = self.pick(options)
        if card is not None:
            self.village.remove(card)
            self.resolve(seat, card)

    def resolve(self, seat, card) -> None:
        kind = KIND[card]
        if kind == WILD_FOX:
            self.foxes[seat].append(_fox(card))
            return
        if kind == STUDY:
            fox = self.pick(self.foxes[seat])
            fox[SLOT] += SLOTS[card]
            fox[STUDIES].append(card)
            return
        fox = self.pick([fox for fox in self.foxes[seat] if _fits(fox, card)])
        self.pay(fox, ORDERED_COST[card])
        fox[TAILS].append(card)
        fox[COUNT] += TAIL_VALUE[card]
        if fox[COUNT] == 9:
            self.ascend(seat, fox)

    def pay(self, fox, cost) -> None:
        if self.pile < len(cost) and len(set(cost)) > 1 and self.pile:
            chosen, rest = "", cost
            while len(chosen) < self.pile and len(set(rest)) > 1:
                symbol = self.pick(list(dict.fromkeys(rest)))
                chosen += symbol
                rest = rest.replace(symbol, "", 1)
            cost = (chosen + rest)[: self.pile]
            cost = "".join(sorted(cost, key=lambda s: s == ANY))
        cost = cost[: self.pile]
        fox[SPENT] = _assign(fox, cost)
        self.pile -= len(cost)

    def ascend(self, seat, fox) -> None:
        self.foxes[seat].remove(fox)
        self.pile += fox[SPENT].bit_count()
        cards = fox[STUDIES] + fox[TAILS]
        if KIND[fox[CARD]] == STARTING_FOX:
            self.starting.append(fox[CARD])
        else:
            cards.append(fox[CARD])
        self.rng.shuffle(cards)
        self.wilds += cards
        if self.starting:
            self.foxes[seat].append(_fox(self.starting.pop(0)))
        self.ascended[seat] += 1
        self.stack = max(0, self.stack - 1)
        self.won = self.ascended[seat] >= self.goal

    def draw(self, seat, count) -> None:
        for _ in range(count):
            if not self.trickery:
                if not self.discard:
                    return
                self.trickery, self.discard = self.discard, []
                self.rng.shuffle(self.trickery)
            self.hands[seat].append(self.trickery.pop(0))

    def window(self, active) -> None:
        n = self.n
        for step in range(1, n):
            seat = (active + step) % n
            if not self.hands[seat]:
                continue
            option = self.pick(["decline", *sorted(set(self.hands[seat]))])
            if option != "decline":
                self.hands[seat].remove(option)
                self.trick(seat, option)
                return

    def trick(self, seat, trick) -> None:
        cost = ORDERED_COST[trick]
        fox = self.pick([*(fox for fox in self.foxes[seat] if _can_pay(fox, cost)), None])
        if fox is None:
            self.discard.append(trick)
            return
        self.pay(fox, cost)
        for step in range(1, self.n):
            other = (seat + step) % self.n
            if not self.hands[other]:
                continue
            if self.pick(["decline", "cancel"] if trick in self.hands[other] else ["decline"]) == "cancel":
                self.hands[other].remove(trick)
                self.discard += [trick, trick]
                return
        self.effect(seat, trick, fox)
        self.discard.append(trick)

    def effect(self, seat, trick, this) -> None:
        others = [(s, fox) for s in range(self.n) if s != seat for fox in self.foxes[s]]
        if trick == "quick-paws":
            self.take_from_village(seat, lambda card: True, may_pass=True)
        elif trick == "lure":
            self.take_from_village(seat, lambda card: KIND[card] == WILD_FOX, may_pass=False)
        elif trick == "windfall":
            if self.wilds:
                revealed = [self.wilds.pop(0)]
                if not self.choose(seat, revealed, may_pass=True):
                    self.village += revealed
        elif trick == "second-wind":
            self.pile += this[SPENT].bit_count()
            this[SPENT] = 0
        elif trick == "foxfire-insight":
            self.draw(seat, 2)
        elif trick == "pickpocket":
            victims = [s for s in range(self.n) if s != seat and self.hands[s]]
            if victims:
                hand = self.hands[self.pick(victims)]
                self.hands[seat].append(hand.pop(self.rng.randrange(len(hand))))
        elif trick == "tail-swipe":
            options = [fox for _, fox in others if fox[TAILS] and this[COUNT] + TAIL_VALUE[fox[TAILS][-1]] <= 9]
            if options:
                victim = self.pick(options)
                card = victim[TAILS].pop()
                victim[COUNT] -= TAIL_VALUE[card]
                this[TAILS].append(card)
                this[COUNT] += TAIL_VALUE[card]
                if this[COUNT] == 9:
                    self.ascend(seat, this)
        elif trick == "befuddle":
            options = [fox for _, fox in others if self.pile and fox[SPENT] != (1 << len(fox[SLOT])) - 1]
            if options:
                fox = self.pick(options)
                for _ in range(min(2, self.pile)):
                    open_slots = [i for i in range(len(fox[SLOT])) if not fox[SPENT] >> i & 1]
                    slot = self.pick([*open_slots, None]) if open_slots else None
                    if slot is None:
                        break
                    fox[SPENT] |= 1 << slot
                    self.pile -= 1
        elif trick in ("hex", "study-heist"):
            studies = [(fox, study) for _, fox in others for study in fox[STUDIES]]
            if trick == "hex":
                studies = [(fox, fox[STUDIES][-1]) for _, fox in others if fox[STUDIES]]
            if studies:
                fox, study = self.pick(studies)
                start = len(SLOTS[fox[CARD]]) + 2 * fox[STUDIES].index(study)
                self.pile += (fox[SPENT] >> start & 3).bit_count()
                fox[SPENT] = fox[SPENT] & ((1 << start) - 1) | (fox[SPENT] >> (start + 2)) << start
                fox[SLOT] = fox[SLOT][:start] + fox[SLOT][start + 2 :]
                fox[STUDIES].remove(study)
                if trick == "hex":
                    self.village.append(study)
                else:
                    this[SLOT] += SLOTS[study]
                    this[STUDIES].append(study)
