"""Lemur Tails: what a seat (or a spectator) may see of the table; nothing hidden leaks."""

from __future__ import annotations

from typing import Any

from engines.lemur_tails.cards import NAMES, TAILS
from engines.lemur_tails.state import END_DRAWN, State


def view(state: State, seat: int | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "seat": seat,
        "turn": state.turn,
        "phase": "over" if state.over else ("chance" if state.pending else state.phase),
        "hand_sizes": [len(state.hands[0]), len(state.hands[1])],
        "tails": {name: [NAMES[c] for c in tail] for name, tail in zip(TAILS, state.tails, strict=True)},
        "market": [NAMES[c] for c in state.market],
        "sun_lemurs": [{"present": state.present[s], "empty": state.empty[s]} for s in (0, 1)],
        "sun_lemurs_aside": state.aside,
        "deck_size": len(state.deck),
        "discard_pile": [NAMES[c] for c in state.discard],
        "end_card_drawn": state.end_card == END_DRAWN,
        "game_ending": state.ending,
        "turns_played": list(state.turns),
        "added_this_turn": state.added,
        "series": {
            "tail": TAILS[state.series_tail] if state.series_tail >= 0 else None,
            "length": state.series_len,
        },
        "discards_made": state.discards,
        "taken": None,
        "over": state.over or None,
    }
    if seat is not None:
        out["hand"] = [NAMES[c] for c in state.hands[seat]]
    # A blind-drawn card is known to both seats (it left one hand for the other), not to spectators.
    if state.held >= 0 and (state.held_public or seat is not None):
        out["taken"] = NAMES[state.held]
    return out
