"""Lemur Tails in words: one sentence per event type (docs/games/lemur-tails.md, "Events"), and the table
in a few lines (``summary``, docs/replays.md "Show").

Rules version 2 names a card by its kind ("W5", "BJ", "END"; LT-21); version 1 named the
physical copy by id ("Card identity" in the game's doc): 0-79 numbered (colour id // 40,
number id % 40 // 4), 80-83 white jokers, 84-87 black jokers, 88 the End card. Both read.
"""

from __future__ import annotations

from typing import Any

from engines.words import SEP, count, seat_name

COLOURS = ("white", "black")


def card(card_id: int | str) -> str:
    """"black 5", "white joker", "the End card", from a kind name (version 2) or an id (version 1)."""
    if isinstance(card_id, str):
        if card_id == "END":
            return "the End card"
        colour = COLOURS["WB".index(card_id[0])]
        return f"{colour} joker" if card_id[1:] == "J" else f"{colour} {card_id[1:]}"
    if card_id < 80:
        return f"{COLOURS[card_id // 40]} {card_id % 40 // 4}"
    if card_id < 88:
        return f"{COLOURS[(card_id - 80) // 4]} joker"
    return "the End card"


def cards(ids: list[int] | list[str]) -> str:
    return ", ".join(card(i) for i in ids)


def tail(name: str) -> str:
    """"0w" -> "Red's white-ring tail"."""
    return f"{seat_name(int(name[:-1]))}'s {'white' if name[-1] == 'w' else 'black'}-ring tail"


def _dealt(d: dict[str, Any], p: Any, verb: str) -> str:
    text = f"{seat_name(d['seat'])} {verb} {count(d['count'], 'card')}"
    return text + (f": {cards(p['cards'])}" if p is not None else "")


def _used(d: dict[str, Any], p: Any) -> str:
    who = seat_name(d["seat"])
    action = d["action"]
    if action == "market":
        return f"{who} turns a Sun lemur to take {card(d['card'])} from the market"
    if action == "tail":
        return f"{who} turns a Sun lemur to take {card(d['card'])} from {tail(d['tail'])}"
    if action == "blind":
        return f"{who} turns a Sun lemur to draw blind from the opponent's hand"
    return f"{who} turns a Sun lemur to swap cards"


def _played(d: dict[str, Any], p: Any) -> str:
    taken = " (the card the Sun lemur brought)" if d["taken"] else ""
    return f"{seat_name(d['seat'])} adds {card(d['card'])}{taken} to {tail(d['tail'])}"


def _blind(d: dict[str, Any], p: Any) -> str:
    text = f"{seat_name(d['seat'])} draws a card blind from {seat_name(d['from'])}'s hand"
    return text + (f": {card(p['card'])}" if p is not None else "")


def _counted(d: dict[str, Any], p: Any) -> str:
    scores = ", ".join(f"{seat_name(s)} {shortest}" for s, (shortest, _, _) in enumerate(d["scores"]))
    return f"The game ends ({d['reason']}): shortest tails {scores}"


SENTENCES = {
    "table_laid": lambda d, p: (f"The table is laid: {d['sun_lemurs']} Sun lemurs each, "
                                f"{d['sun_lemurs_aside']} set aside"),
    "deck_shuffled": lambda d, p: f"The {d['cards']} tail cards are shuffled"
    + (f" (top first: {cards(p['order'])})" if p is not None else ""),
    "hand_dealt": lambda d, p: _dealt(d, p, "is dealt"),
    "market_laid": lambda d, p: f"The market opens: {cards(d['cards'])}",
    "end_card_shuffled_in": lambda d, p: f"The End card is shuffled among the bottom {d['among_bottom']} cards"
    + (f" ({count(p['cards_below'], 'card')} below it)" if p is not None else ""),
    "tail_card_played": _played,
    "sun_lemur_reactivated": lambda d, p: f"{seat_name(d['seat'])} turns a Sun lemur back to present "
                                          f"(a series of {d['series']})",
    "sun_lemur_gained": lambda d, p: f"{seat_name(d['seat'])} gains a new Sun lemur (a series of {d['series']})",
    "joker_exchanged": lambda d, p: (f"{seat_name(d['seat'])} exchanges the {card(d['joker'])} in {tail(d['tail'])} "
                                     f"for {card(d['card'])}"),
    "sun_lemur_used": _used,
    "card_drawn_blind": _blind,
    "taken_card_kept": lambda d, p: f"{seat_name(d['seat'])} keeps the card in hand",
    "card_discarded": lambda d, p: f"{seat_name(d['seat'])} discards {card(d['card'])}"
    + (" to swap" if d["for"] == "swap" else " (passing)"),
    "swap_finished": lambda d, p: f"{seat_name(d['seat'])} draws {count(d['count'], 'card')} for the swap",
    "turn_ended": lambda d, p: f"{seat_name(d['seat'])} ends turn {d['turn']}" + (" (a pass)" if d["passed"] else ""),
    "end_card_revealed": lambda d, p: f"{seat_name(d['seat'])} draws the End card: this is the last round",
    "cards_drawn": lambda d, p: _dealt(d, p, "draws"),
    "market_refilled": lambda d, p: f"The market is refilled: {cards(d['cards'])}",
    "deck_emptied": lambda d, p: "The deck is empty",
    "lemurs_counted": _counted,
    "move_cap_reached": _counted,
}



WORDS = {"lemur:blind": "turn a Sun lemur to draw blind from the opponent's hand",
         "lemur:swap": "turn a Sun lemur to swap cards", "keep": "keep the card in hand",
         "draw": "draw as many cards as were discarded", "end": "end the turn"}


def action(text: str, view: Any = None) -> str:
    """An action in words (docs/games/lemur-tails.md, "Action grammar"): "add black 5 to Red's white-ring
    tail", "turn a Sun lemur to take white 2 from the market", "end the turn"."""
    parts = text.split(":")
    try:
        if parts[0] == "play" and len(parts) == 3:
            return f"add {card(parts[1])} to {tail(parts[2])}"
        if parts[0] == "exchange" and len(parts) == 4:
            return f"swap {card(parts[3])} for the joker at place {parts[2]} of {tail(parts[1])}"
        if parts[:2] == ["lemur", "market"] and len(parts) == 3:
            return f"turn a Sun lemur to take {card(parts[2])} from the market"
        if parts[:2] == ["lemur", "tail"] and len(parts) == 3:
            return f"turn a Sun lemur to take the newest card of {tail(parts[2])}"
        if parts[0] == "place" and len(parts) == 2:
            return f"add the card to {tail(parts[1])}"
        if parts[0] == "discard" and len(parts) == 2:
            return f"discard {card(parts[1])}"
    except (ValueError, IndexError):  # not this game's grammar: said as it is
        return text
    return WORDS.get(text, text)


def score(view: dict[str, Any], seat: int) -> str:
    lengths = sorted(len(view["tails"][f"{seat}{ring}"]) for ring in "wb")
    return f"shortest tail {lengths[0]}, longest {lengths[1]}"


# -- the table in a few lines (docs/replays.md, "Show") ------------------------------------------

RINGS = {"w": "white-ring tail", "b": "black-ring tail"}
PHASES = {"play": "playing", "taken": "a taken card to place or keep", "swap": "swapping", "pass": "discarding to pass",
          "chance": "cards to draw"}
# Cards are told by kind as the view names them ("W5", "BJ": white 5, black joker), as the page labels them.


def _seat(view: dict[str, Any], seat: int, name: str, mine: Any) -> list[str]:
    lemurs = view["sun_lemurs"][seat]
    hand = (f"hand {' '.join(mine['hand']) or 'empty'}" if mine is not None
            else f"{count(view['hand_sizes'][seat], 'card')} in hand")
    lines = [f"{name}: " + SEP.join([hand, f"Sun lemurs {lemurs['present']} present, {lemurs['empty']} empty",
                                      score(view, seat)])]
    for ring, ring_name in RINGS.items():
        cards = view["tails"][f"{seat}{ring}"]
        lines.append(f"  {ring_name}: " + (f"{' '.join(cards)} ({count(len(cards), 'card')})" if cards else "empty"))
    if mine is not None and mine.get("taken") and not view.get("taken"):
        lines.append(f"  taken blind: {mine['taken']}")
    return lines


def _turn(view: dict[str, Any]) -> str:
    if view["over"]:
        return f"The game is over: {view['over']}"
    series = view["series"]
    parts = [f"{seat_name(view['turn'])}'s turn, {PHASES.get(view['phase'], view['phase'])}",
             f"turns played {' / '.join(str(t) for t in view['turns_played'])}",
             f"{view['added_this_turn']} added this turn",
             f"a series of {series['length']} on {tail(series['tail'])}" if series["tail"] else "no series"]
    if view["game_ending"]:
        parts.append("the last round")
    parts.append(f"{view['sun_lemurs_aside']} Sun lemurs set aside")
    return "Turn: " + SEP.join(parts)


def summary(view: dict[str, Any], names: list[str], own: dict[int, dict[str, Any]]) -> list[str]:
    """Per seat its hand (cards only where the reader may see them), Sun lemurs and shortest
    tail, then both its tails; then the market, the deck, the discard pile, a card a Sun lemur
    brought, and the turn."""
    lines = [line for seat in range(len(view["hand_sizes"])) for line in _seat(view, seat, names[seat], own.get(seat))]
    pile = view["discard_pile"]
    end = "the End card drawn: last round" if view["end_card_drawn"] else "the End card in it"
    lines += [
        "Market: " + (" ".join(view["market"]) or "empty"),
        f"Deck: {count(view['deck_size'], 'card')}, {end}",
        f"Discard pile: {pile[-1]} on top ({count(len(pile), 'card')})" if pile else "Discard pile: empty",
    ]
    if view["taken"]:
        lines.append(f"Taken by a Sun lemur: {view['taken']}")
    lines.append(_turn(view))
    return lines
