"""Heuristic Nine Tails bot: grows one fox at a time, rests when tired, and spoils tricks aimed at it.

It reads only ``turn.legal``, ``turn.view`` and ``turn.seat`` (the card list is public
data, so it uses engines/nine_tails_cards.py to know costs and tail values).

* On its turn: SNEAK when the Village holds a tail it can pay for (or a wild fox), REST
  when its foxes are too exhausted to pay for a tail, otherwise VENTURE.
* Taking a card: the tail that finishes a fox at nine, else the biggest tail it can pay,
  else a wild fox, else a study; tails go to the fox with the most tails that can take them.
* Tricks: plays a trick when it does something useful now (a tail to swipe, a tail in the
  Village, tired foxes to refresh, a leader's study to steal ...); cancels tricks that could
  hurt it, and any trick of a seat that is ahead of it.
"""

from __future__ import annotations

from engines.nine_tails_cards import COST, KIND, NINE, STUDY, TAIL, TAIL_VALUE, TRAITS, WILD_FOX

GAMES = ("nine-tails",)

HARMFUL = {"tail-swipe", "befuddle", "study-heist", "pickpocket", "hex"}
TRICK_ORDER = (
    "tail-swipe", "quick-paws", "lure", "study-heist", "windfall",
    "second-wind", "hex", "befuddle", "foxfire-insight", "pickpocket",
)  # fmt: skip


def _open(fox: dict) -> dict[str, int]:
    counts = dict.fromkeys(TRAITS + "*", 0)
    for trait, spent in zip(fox["slots"], fox["exhausted"], strict=True):
        if not spent:
            counts[trait] += 1
    return counts


def _can_pay(fox: dict, cost: str) -> bool:
    have = _open(fox)
    short = sum(max(0, cost.count(t) - have[t]) for t in TRAITS)
    return short <= have["*"] and len(cost) <= sum(have.values())


def _fits(fox: dict, card: str) -> bool:
    return fox["tail_count"] + TAIL_VALUE[card] <= NINE and _can_pay(fox, COST[card])


def _strength(view: dict, seat: int) -> tuple[int, int]:
    return view["ascended"][seat], max((fox["tail_count"] for fox in view["foxes"][seat]), default=0)


class Bot:
    def __init__(self, game, seat, rng):
        self.seat = seat
        self.rng = rng

    def act(self, turn) -> str:
        view, legal = turn.view, turn.legal
        if len(legal) == 1:
            return legal[0]
        choose = getattr(self, "_" + view["phase"].replace(" ", "_"), None)
        action = choose(view, legal) if choose is not None else None
        return action if action in legal else legal[0]

    # --- the turn -------------------------------------------------------------------------

    def _card_score(self, view: dict, card: str) -> int:
        foxes = view["foxes"][self.seat]
        kind = KIND[card]
        if kind == TAIL:
            fitting = [fox for fox in foxes if _fits(fox, card)]
            if not fitting:
                return -1
            finishes = any(fox["tail_count"] + TAIL_VALUE[card] == NINE for fox in fitting)
            return 100 if finishes else 20 * TAIL_VALUE[card]
        if kind == WILD_FOX:
            return 15 if len(foxes) < 3 else 6
        if kind == STUDY:
            return 5 if foxes else -1
        return -1

    def _best_take(self, view: dict, legal: list[str]) -> tuple[int, str | None]:
        best, pick = -1, None
        for action in legal:
            if action.startswith("take:"):
                score = self._card_score(view, action[5:])
                if score > best:
                    best, pick = score, action
        return best, pick

    def _tired(self, view: dict) -> bool:
        foxes = view["foxes"][self.seat]
        return bool(foxes) and all(sum(_open(fox).values()) < 3 for fox in foxes)

    def _action(self, view: dict, legal: list[str]) -> str:
        if "sneak" in legal:
            best = max((self._card_score(view, card) for card in view["village"]), default=-1)
            if best >= 20:
                return "sneak"
        if self._tired(view) and "rest" in legal:
            return "rest"
        if view["decks"]["wilds"] == 0:
            return "sneak" if "sneak" in legal else "rest"
        return "venture"

    def _choose(self, view: dict, legal: list[str]) -> str:
        score, pick = self._best_take(view, legal)
        if pick is not None and (score >= 5 or "none" not in legal):
            return pick
        return "none"

    def _place(self, view: dict, legal: list[str]) -> str:
        card = view["held"]
        foxes = {fox["card"]: fox for fox in view["foxes"][self.seat]}

        def score(action: str) -> tuple:
            fox = foxes[action[4:]]
            if KIND[card] == TAIL and fox["tail_count"] + TAIL_VALUE[card] == NINE:
                return (1, 0, 0)
            return (0, fox["tail_count"], sum(_open(fox).values()))

        return max(legal, key=score)

    def _discard(self, view: dict, legal: list[str]) -> str:
        return "stop"

    # --- tricks -----------------------------------------------------------------------------

    def _useful(self, view: dict, trick: str) -> bool:
        me = self.seat
        others = [seat for seat in range(view["seats"]) if seat != me]
        mine = view["foxes"][me]
        if trick == "tail-swipe":
            return any(
                fox["tails"] and any(own["tail_count"] + TAIL_VALUE[fox["tails"][-1]] <= NINE for own in mine)
                for seat in others
                for fox in view["foxes"][seat]
            )
        if trick == "quick-paws":
            return any(self._card_score(view, card) >= 20 for card in view["village"])
        if trick == "lure":
            return any(KIND[card] == WILD_FOX for card in view["village"])
        if trick in ("study-heist", "hex"):
            return any(fox["studies"] for seat in others for fox in view["foxes"][seat])
        if trick == "windfall":
            return view["decks"]["wilds"] > 0
        if trick == "second-wind":
            return any(sum(fox["exhausted"]) >= 3 for fox in mine)
        if trick == "befuddle":
            return view["pile"] > 0 and any(fox["tail_count"] >= 6 for seat in others for fox in view["foxes"][seat])
        if trick == "foxfire-insight":
            return len(view["hand"]) <= 2
        return any(view["hand_sizes"][seat] for seat in others)  # pickpocket

    def _trick_window(self, view: dict, legal: list[str]) -> str:
        for trick in TRICK_ORDER:
            if f"trick:{trick}" not in legal:
                continue
            if any(_can_pay(fox, COST[trick]) for fox in view["foxes"][self.seat]) and self._useful(view, trick):
                return f"trick:{trick}"
        return "decline"

    def _perform(self, view: dict, legal: list[str]) -> str:
        foxes = {fox["card"]: fox for fox in view["foxes"][self.seat]}
        options = [action for action in legal if action.startswith("fox:")]
        if not options:
            return "waste"
        trick = view["trick"]["name"]

        def score(action: str) -> tuple:
            fox = foxes[action[4:]]
            if trick == "second-wind":
                return (sum(fox["exhausted"]),)
            if trick in ("tail-swipe", "study-heist"):
                return (fox["tail_count"],)
            return (sum(_open(fox).values()),)

        return max(options, key=score)

    def _cancel_window(self, view: dict, legal: list[str]) -> str:
        trick = view["trick"]
        me = self.seat
        if trick["name"] in HARMFUL or _strength(view, trick["seat"]) > _strength(view, me):
            return "cancel"
        return "decline"

    def _target(self, view: dict, legal: list[str]) -> str:
        owner = {fox["card"]: seat for seat, foxes in enumerate(view["foxes"]) for fox in foxes}
        fox_of = {fox["card"]: fox for foxes in view["foxes"] for fox in foxes}
        study_owner = {study: owner[fox["card"]] for fox in fox_of.values() for study in fox["studies"]}

        def score(action: str) -> tuple:
            kind, _, name = action.partition(":")
            if kind == "seat":
                return (view["hand_sizes"][int(name)],)
            if kind == "study":
                return (_strength(view, study_owner[name]),)
            fox = fox_of[name]
            swipe = TAIL_VALUE[fox["tails"][-1]] if view["trick"]["name"] == "tail-swipe" else 0
            return (swipe, _strength(view, owner[name]), fox["tail_count"])

        return max(legal, key=score)

    def _befuddle(self, view: dict, legal: list[str]) -> str:
        slots = [action for action in legal if action.startswith("slot:")]
        return slots[0] if slots else "stop"

    def _pay(self, view: dict, legal: list[str]) -> str:
        return legal[0]
