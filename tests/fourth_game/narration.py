"""Tiny Tails in words (replays.narration reads it once registered): a sentence per event type, an
action, a score and the table in a few lines, read from views alone."""

from __future__ import annotations

from typing import Any

from engines.words import SEP, count, listing, seat_name


def _dealt(d: dict[str, Any], p: Any) -> str:
    text = f"{seat_name(d['seat'])} is dealt {count(d['count'], 'card')}"
    return text + (": " + listing(str(card) for card in p["cards"]) if p is not None else "")


SENTENCES = {
    "table_laid": lambda d, p: f"The table is laid for {count(d['seats'], 'seat')}",
    "hand_dealt": _dealt,
    "card_played": lambda d, p: f"{seat_name(d['seat'])} plays {d['card']}",
    "round_won": lambda d, p: f"{seat_name(d['seat'])} wins the round with {d['card']} and scores {d['points']}",
}


def action(text: str, view: Any = None) -> str:
    """"play:7" -> "play 7"."""
    return text.replace(":", " ")


def score(view: dict[str, Any], seat: int) -> str:
    return count(view["points"][seat], "point")


def summary(view: dict[str, Any], names: list[str], own: dict[int, dict[str, Any]]) -> list[str]:
    lines = [f"Round {view['round'] + 1} of 100{SEP}played: "
             + (listing(f"{seat_name(p['seat'])} {p['card']}" for p in view["played"]) or "none")]
    for seat, name in enumerate(names):
        hand = own[seat]["hand"] if seat in own and "hand" in own[seat] else None
        cards = listing(str(card) for card in hand) if hand is not None else f"{view['hand_sizes'][seat]} hidden"
        lines.append(f"{name}: {score(view, seat)}{SEP}hand {cards or 'empty'}")
    return lines
