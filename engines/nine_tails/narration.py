"""Nine Tails in words: one sentence per event type (docs/games/nine-tails.md, "Events"), and the table
in a few lines (``summary``, docs/replays.md "Show").
"""

from __future__ import annotations

from typing import Any

from engines.words import SEP, count, seat_name

KINDS = {"F": "starting fox", "W": "wild fox", "S": "study", "T": "tail card"}


def card(name: str) -> str:
    """"T-AC" -> "tail card T-AC"."""
    return f"{KINDS.get(name[:1], 'card')} {name}"


def trick(name: str) -> str:
    """"quick-paws" -> "Quick Paws"."""
    return " ".join(word.capitalize() for word in name.split("-"))


def _who(d: dict[str, Any]) -> str:
    return seat_name(d["seat"])


def _drawn(d: dict[str, Any], p: Any, verb: str) -> str:
    text = f"{_who(d)} {verb} {count(d['count'], 'trickery card')}"
    if p is not None:
        text += ": " + ", ".join(trick(t) for t in p["cards"])
    return text + (f" ({d['owed']} still owed after a reshuffle)" if d.get("owed") else "")


def _shuffled(what: str):
    def sentence(d: dict[str, Any], p: Any) -> str:
        text = f"The {what} is shuffled ({count(d['size'], 'card')})"
        return text + (f", top first: {' '.join(p['order'])}" if p is not None else "")
    return sentence


def _ascended(d: dict[str, Any], p: Any) -> str:
    text = f"{_who(d)}'s {d['fox']} ascends ({d['ascended']} ascended)"
    return text + (f"; a new fox comes: {d['new_fox']}" if d["new_fox"] else "; no new fox is left")


def _pickpocketed(d: dict[str, Any], p: Any) -> str:
    text = f"{_who(d)} picks a card from {seat_name(d['target'])}'s hand"
    return text + (f": {trick(p['trick'])}" if p is not None else "")


def _paid(d: dict[str, Any]) -> str:
    slots = d.get("slots")
    return f" (counters on slots {', '.join(str(s) for s in slots)})" if slots else ""


SENTENCES = {
    "table_laid": lambda d, p: f"The table is laid for {d['seats']} seats; {d['goal']} ascended foxes win",
    "starting_foxes_shuffled": _shuffled("Starting Fox Deck"),
    "wilds_shuffled": _shuffled("Wilds Deck"),
    "trickery_shuffled": _shuffled("Trickery Deck"),
    "trickery_reshuffled": _shuffled("trickery discard pile, as the new Trickery Deck,"),
    "starting_fox_dealt": lambda d, p: f"{_who(d)} is dealt the starting fox {d['fox']}",
    "trickery_dealt": lambda d, p: _drawn(d, p, "is dealt"),
    "trickery_drawn": lambda d, p: _drawn(d, p, "draws"),
    "wilds_revealed": lambda d, p: f"{_who(d)} ventures and reveals " + (", ".join(d["cards"]) or "nothing"),
    "sneaked": lambda d, p: f"{_who(d)} sneaks into the Village",
    "rested": lambda d, p: f"{_who(d)} rests: {count(d['counters'], 'counter')} back to the pile",
    "card_taken": lambda d, p: f"{_who(d)} takes the {card(d['card'])}",
    "nothing_taken": lambda d, p: f"{_who(d)} takes nothing",
    "study_tucked": lambda d, p: f"{_who(d)} tucks the study {d['card']} under {d['fox']}",
    "tail_gained": lambda d, p: f"{_who(d)}'s {d['fox']} gains the tail card {d['card']}" + _paid(d),
    "fox_chosen": lambda d, p: f"{_who(d)} names {d['fox']} to pay",
    "cost_part_chosen": lambda d, p: f"{_who(d)} pays the symbol {d['symbol']}" + _paid(d),
    "trickery_discarded": lambda d, p: f"{_who(d)} discards {trick(d['trick'])}",
    "discards_done": lambda d, p: f"{_who(d)} stops discarding after {count(d['count'], 'card')}",
    "trick_declined": lambda d, p: f"{_who(d)} plays no trick",
    "trick_revealed": lambda d, p: f"{_who(d)} reveals {trick(d['trick'])}",
    "trick_wasted": lambda d, p: f"{_who(d)} wastes {trick(d['trick'])}",
    "trick_performed": lambda d, p: f"{_who(d)}'s {d['fox']} performs {trick(d['trick'])}" + _paid(d),
    "cancel_declined": lambda d, p: f"{_who(d)} does not cancel",
    "trick_cancelled": lambda d, p: f"{_who(d)} cancels {trick(d['trick'])}",
    "counters_returned": lambda d, p: f"{_who(d)}'s {d['fox']} gets its second wind: "
                                      f"{count(d['counters'], 'counter')} back to the pile",
    "insight_gained": lambda d, p: f"{_who(d)} gains Foxfire Insight",
    "windfall_revealed": lambda d, p: f"{_who(d)}'s Windfall reveals the {card(d['card'])}",
    "windfall_missed": lambda d, p: f"{_who(d)}'s Windfall finds the Wilds Deck empty",
    "trick_fizzled": lambda d, p: f"{_who(d)}'s {trick(d['trick'])} has no target and does nothing",
    "tail_swiped": lambda d, p: f"{_who(d)}'s {d['fox']} swipes the tail card {d['card']} from {d['victim']}",
    "befuddle_aimed": lambda d, p: f"{_who(d)} befuddles {d['fox']}",
    "counter_befuddled": lambda d, p: f"{_who(d)} puts a counter on slot {d['slot']} of {d['fox']}",
    "befuddle_done": lambda d, p: f"{_who(d)} stops befuddling",
    "study_heisted": lambda d, p: f"{_who(d)}'s {d['fox']} heists the study {d['card']} from {d['victim']}",
    "study_hexed": lambda d, p: f"{_who(d)} hexes the study {d['card']} of {d['fox']} into the Village",
    "pickpocket_aimed": lambda d, p: f"{_who(d)} aims Pickpocket at {seat_name(d['target'])}",
    "card_pickpocketed": _pickpocketed,
    "fox_ascended": _ascended,
    "game_won": lambda d, p: f"{_who(d)} wins with {count(d['ascended'], 'ascended fox', 'ascended foxes')}",
    "move_cap_reached": lambda d, p: f"The move cap is reached after {d['turns']} turns",
}



PLAIN = {"venture": "venture", "sneak": "sneak into the Village", "rest": "rest", "waste": "waste the trick",
         "cancel": "cancel the trick", "none": "none", "stop": "stop", "decline": "decline"}
BY_PHASE = {  # what "none", "stop", "decline" and "fox:X" mean in each kind of decision (view["phase"])
    "choose": {"none": "take nothing"},
    "place": {"fox": "give it to {}"},
    "discard": {"stop": "stop discarding, then draw"},
    "trick window": {"decline": "play no trick"},
    "perform": {"fox": "perform it with {}"},
    "cancel window": {"decline": "do not cancel"},
    "target": {"fox": "aim it at {}", "none": "no target"},
    "befuddle": {"stop": "stop befuddling"},
}
VERBS = {  # verb:what, whatever the phase
    "take": lambda what: f"take the {card(what)}",
    "fox": lambda what: f"with {what}",
    "pay": lambda what: "pay a wild symbol" if what == "*" else f"pay the symbol {what}",
    "discard": lambda what: f"discard {trick(what)}",
    "trick": lambda what: f"play {trick(what)}",
    "study": lambda what: f"heist the study {what}",
    "seat": lambda what: f"aim it at {seat_name(int(what))}",
    "slot": lambda what: f"a counter on slot {what}",
}


def action(text: str, view: Any = None) -> str:
    """An action in words (docs/games/nine-tails.md, "Action grammar"), read with the phase of the
    decision (``view["phase"]``, public) where the same action means different things: "take the tail
    card T-AC", "play Quick Paws", "aim it at F-ACG*"."""
    phase = view.get("phase") if isinstance(view, dict) else None
    verb, _, what = text.partition(":")
    said = BY_PHASE.get(phase, {}).get(verb)
    if said is not None:
        return said.format(what)
    if what and verb in VERBS:
        try:
            return VERBS[verb](what)
        except ValueError:  # seat:x with no number: not this game's grammar
            return text
    return PLAIN.get(text, text)

def score(view: dict[str, Any], seat: int) -> str:
    foxes = view["foxes"][seat]
    most = max((fox["tail_count"] for fox in foxes), default=0)
    ascended = view["ascended"][seat]
    return f"{count(ascended, 'ascended fox', 'ascended foxes')}, most tails {most}"


# -- the table in a few lines (docs/replays.md, "Show") ------------------------------------------



def _fox(fox: dict[str, Any]) -> str:
    """"F-ACG*: 4 tails · slots ACG*C* (counters on 0, 1) · studies S-C* · tail cards T-GSQ T-AC"."""
    slots = f"slots {fox['slots']}"
    covered = [str(slot) for slot, spent in enumerate(fox["exhausted"]) if spent]
    if covered:
        slots += f" (counters on {', '.join(covered)})"
    parts = [count(fox["tail_count"], "tail"), slots]
    if fox["studies"]:
        parts.append("studies " + " ".join(fox["studies"]))
    if fox["tails"]:
        parts.append("tail cards " + " ".join(fox["tails"]))
    return f"{fox['card']}: " + SEP.join(parts)


def _seat(view: dict[str, Any], seat: int, name: str, mine: Any) -> list[str]:
    ascended, cards = view["ascended"][seat], view["ascended_cards"][seat]
    parts = [count(ascended, "ascended fox", "ascended foxes")
             + (f" ({count(cards, 'Ascended Fox card')})" if cards != ascended else "")]
    if mine is None:
        parts.append(f"{count(view['hand_sizes'][seat], 'trickery card')} in hand")
    else:
        parts.append("trickery hand " + (", ".join(trick(t) for t in mine["hand"]) or "empty"))
    return [f"{name}: " + SEP.join(parts), *(f"  {_fox(fox)}" for fox in view["foxes"][seat])]


def _turn(view: dict[str, Any]) -> str:
    parts = [view["phase"]]
    if view["winner"] is not None:
        parts.append(f"{seat_name(view['winner'])} has won")
    elif view["capped"]:
        parts.append("the move cap is reached")
    else:
        parts.append(f"{seat_name(view['active'])} active")
        if view["decider"] is not None and view["decider"] != view["active"]:
            parts.append(f"{seat_name(view['decider'])} to decide")
    parts += [f"{view['turns']} of {view['move_cap']} turns played", f"{view['goal']} ascended foxes win"]
    return "Turn: " + SEP.join(parts)


def _in_play(view: dict[str, Any]) -> list[str]:
    lines = []
    if view["revealed"]:
        lines.append("Revealed: " + " ".join(view["revealed"]))
    if view["held"]:
        lines.append(f"Being placed: {card(view['held'])}")
    if view["trick"]:
        played = view["trick"]
        lines.append(f"In play: {seat_name(played['seat'])}'s {trick(played['name'])}"
                     + (f" with {played['fox']}" if played["fox"] else ""))
    if view["paying"]:
        lines.append(f"Paying: {view['paying']['fox']} pays {view['paying']['cost']}")
    if view["befuddle"]:
        lines.append(f"Befuddling {view['befuddle']['fox']}: {view['befuddle']['left']} left")
    return lines


def summary(view: dict[str, Any], names: list[str], own: dict[int, dict[str, Any]]) -> list[str]:
    """Per seat its ascended foxes, trickery hand (cards only where the reader may see them) and,
    a line each, its foxes with their tails, counters, studies and tail cards; then the Village,
    the supply (counters and decks), the trickery discards, what is in play and the turn."""
    lines = [line for seat in range(view["seats"]) for line in _seat(view, seat, names[seat], own.get(seat))]
    decks = view["decks"]
    discard = view["discard"]
    lines += [
        "Village: " + (" ".join(view["village"]) or "empty"),
        "Supply: " + SEP.join([count(view["pile"], "counter"),
                               count(decks["starting"], "starting fox", "starting foxes"),
                               count(decks["wilds"], "Wilds card"), count(decks["trickery"], "trickery card"),
                               count(view["ascended_stack"], "Ascended Fox card")]),
        f"Trickery discards: {len(discard)}, {trick(discard[-1])} on top" if discard else "Trickery discards: none",
        *_in_play(view),
        _turn(view),
    ]
    return lines
