"""Tails on Fire in words: one sentence per event type (docs/games/tails-on-fire.md, "Events")."""

from __future__ import annotations

from typing import Any

from replays.narration.words import count, listing, per_seat, seat_name

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


def score(view: dict[str, Any], seat: int) -> str:
    return count(view["players"][seat]["flames"], "flame")
