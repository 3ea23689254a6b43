"""Tails on Fire in words: one sentence per event type (docs/games/tails-on-fire.md, "Events"), and the table
in a few lines (``summary``, docs/replays.md "Show").
"""

from __future__ import annotations

from typing import Any

from engines.words import SEP, count, listing, per_seat, seat_name

TRICKSTER = 0


def opossum(card: int) -> str:
    return "the trickster" if card == TRICKSTER else str(card)


def played(card: int, number: int) -> str:
    return f"the trickster as {number}" if card == TRICKSTER else str(card)


def _stolen(stolen: list[dict[str, Any]]) -> str:
    """"2 fire cards from Yellow and 1 from Blue", counted per victim in seat order."""
    taken: dict[int, int] = {}
    for stack in stolen:
        taken[stack["seat"]] = taken.get(stack["seat"], 0) + len(stack["fire"])
    parts = [f"{n if i else count(n, 'fire card')} from {seat_name(seat)}" for i, (seat, n) in
             enumerate(sorted(taken.items()))]
    return listing(parts)


def _fire_won(d: dict[str, Any], p: Any) -> str:
    winner = seat_name(d["seat"])
    text = f"{winner} wins the round with {played(d['card'], d['number'])} and takes fire card {d['fire']}"
    return text + (f", stealing {_stolen(d['stolen'])}" if d["stolen"] else "")


def _rogue_won(d: dict[str, Any], p: Any) -> str:
    text = f"The Rogue wins the round with {d['card']}: fire card {d['fire']} leaves the game"
    return text + (f", and so do {_stolen(d['stolen'])}" if d["stolen"] else "")


def _chosen(d: dict[str, Any], p: Any) -> str:
    if p is None:
        return f"{seat_name(d['seat'])} chooses an opossum"
    return f"{seat_name(d['seat'])} chooses {opossum(p['card'])}"


def _order(p: Any) -> str:
    return f" (top first: {' '.join(str(card) for card in p['order'])})" if p is not None else ""


SENTENCES = {
    "table_laid": lambda d, p: f"The table is laid for {d['seats']} seats" + (" and the Rogue" if d["rogue"] else ""),
    "bonfires_lit": lambda d, p: "Bonfires are lit: " + per_seat(d["opossums"]),
    "iguana_shuffled": lambda d, p: f"The Iguana pile is shuffled: {d['top']} on top of {d['size']}" + _order(p),
    "rogue_shuffled": lambda d, p: f"The Rogue's {d['size']} opossums are shuffled" + _order(p),
    "opossum_chosen": _chosen,
    "hunt_started": lambda d, p: (f"The Hunt begins: {seat_name(d['leader'])} leads, "
                                  f"the starting number is {d['number']}"),
    "starting_number_raised": lambda d, p: f"The starting number rises to {d['number']}",
    "opossum_played": lambda d, p: f"{seat_name(d['seat'])} plays {played(d['card'], d['number'])}",
    "passed": lambda d, p: f"{seat_name(d['seat'])} passes",
    "turn_skipped": lambda d, p: f"{seat_name(d['seat'])} has no chosen opossum left: skipped",
    "rogue_played": lambda d, p: f"The Rogue plays {d['card']} from its {d['from']}",
    "rogue_reserved": lambda d, p: f"The Rogue draws {d['card']}, cannot play it, and puts it on its reserve",
    "rogue_passed": lambda d, p: "The Rogue passes: its deck is empty",
    "fire_won": _fire_won,
    "rogue_won": _rogue_won,
    "stalemate": lambda d, p: f"Stalemate: no starting number was played; fire card {d['fire']} leaves the game",
    "round_prepared": lambda d, p: (f"Round {d['round']}: {seat_name(d['leader'])} leads; the Iguana pile shows "
                                    f"{d['iguana']['top']} ({count(d['iguana']['size'], 'card')} left)"),
    "iguana_depleted": lambda d, p: "The Iguana pile is empty: flames " + per_seat(d["flames"]),
    "move_cap_reached": lambda d, p: f"The move cap of {d['turns']} turns is reached: flames " + per_seat(d["flames"]),
}



def action(text: str, view: Any = None) -> str:
    """An action in words, as a seat would say it (docs/games/tails-on-fire.md, "Action grammar"):
    "choose the trickster", "play 5", "pass"."""
    verb, _, what = text.partition(":")
    if verb == "choose" and what:
        return "choose the trickster" if what == "trickster" else f"choose {what}"
    if verb == "play" and what:
        return f"play {what}"
    return {"pass": "pass", "trickster": "play the trickster"}.get(text, text)


def score(view: dict[str, Any], seat: int) -> str:
    return count(view["players"][seat]["flames"], "flame")


# -- the table in a few lines (docs/replays.md, "Show") ------------------------------------------

PHASES = {"shuffle": "shuffling", "choose": "choosing opossums", "hunt": "the Hunt"}


def face(card: int) -> str:
    """An opossum as printed: 1-9, or "+1" for the trickster."""
    return "+1" if card == TRICKSTER else str(card)


def faces(cards: list[int]) -> str:
    return " ".join(face(card) for card in cards) or "none"


def shown(card: int, number: int) -> str:
    """A played opossum: "5", or "+1=6" for the trickster played as 6."""
    return f"+1={number}" if card == TRICKSTER else str(card)


def _hand(player: dict[str, Any], mine: Any) -> str:
    if mine is None:
        parts = [f"{player['hand_size']} in hand"]
        parts += [f"{player['chosen_size']} chosen"] if player["chosen_size"] else []
    elif mine["chosen"] is None:  # TOF-18: a pick this log withholds; the hand is known as a whole
        parts = [f"hand {faces(mine['hand'])} ({player['chosen_size']} of them chosen)"]
    else:
        parts = [f"hand {faces(mine['hand'])}"] + ([f"chosen {faces(mine['chosen'])}"] if mine["chosen"] else [])
    if player["to_choose"]:
        parts.append(f"{player['to_choose']} to choose")
    return ", ".join(parts)


def _seat(player: dict[str, Any], name: str, mine: Any) -> str:
    stacks = " ".join(f"{shown(s['card'], s['number'])}[{','.join(str(f) for f in s['fire'])}]"
                      for s in player["stacks"]) or "none"
    return name + ": " + SEP.join([f"bonfire {player['bonfire']}", f"stacks {stacks}",
                                   f"exhausted {faces(player['exhausted'])}", _hand(player, mine),
                                   count(player["flames"], "flame")])


def _discard(view: dict[str, Any]) -> str:
    pile = view["discard"]
    if not pile:
        return "Discard pile: empty"
    top = pile[-1]
    owner = "the Rogue's" if top["owner"] == "rogue" else f"{seat_name(top['owner'])}'s"
    return f"Discard pile: {owner} {shown(top['card'], top['number'])} on top ({count(len(pile), 'card')})"


def _hunt(view: dict[str, Any]) -> str:
    if view["phase"] == "over":
        return f"Round {view['round']}: the game is over{SEP}{view['turns']} of {view['move_cap']} turns"
    turn = view["turn"]
    # TOF-6 counts the numbers offered until one is played; the page shows the count only then too.
    offered = f" ({view['numbers_offered']} offered)" if view["phase"] == "hunt" and not view["discard"] else ""
    parts = [f"Round {view['round']}, {PHASES.get(view['phase'], view['phase'])}",
             f"starting number {view['starting_number']}{offered}", f"{seat_name(view['leader'])} leads"]
    if turn is not None:
        parts.append(f"{'the Rogue' if turn == 'rogue' else seat_name(turn)} to act")
    parts.append(f"{view['turns']} of {view['move_cap']} turns")
    return SEP.join(parts)


def summary(view: dict[str, Any], names: list[str], own: dict[int, dict[str, Any]]) -> list[str]:
    """Per seat its bonfire, fire stacks (the top opossum's number, then the fire cards under
    it), exhausted opossums, hand (cards only where the reader may see them) and flames; then
    the Iguana pile, the discard pile's top, the Hunt, the Rogue and the fire cards out of the game."""
    lines = [_seat(player, names[seat], own.get(seat)) for seat, player in enumerate(view["players"])]
    iguana = view["iguana"]
    lines.append(f"Iguana pile: {iguana['top']} on top, {iguana['size']} left" if iguana["size"]
                 else "Iguana pile: empty")
    lines += [_discard(view), _hunt(view)]
    if view["rogue"] is not None:
        rogue = view["rogue"]
        lines.append(f"The Rogue: {count(rogue['deck_size'], 'card')} in its deck{SEP}"
                     f"reserve {' '.join(str(card) for card in rogue['reserve']) or 'empty'}")
    if view["boxed"]:
        lines.append("Out of the game: fire cards " + " ".join(str(card) for card in view["boxed"]))
    return lines
