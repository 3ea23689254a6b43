"""Lemur Tails turn rules: what the deciding seat may do, and the events each action causes.

The fold (engines/lemur_tails/fold.py) folds events into a ``State`` (state.py); this module answers
"which actions are legal" and "which events does this action cause", raising IllegalAction with the
reason when an action breaks a rule. ``decide`` takes the rules version's ``label``, which names a card
in the events: cards.IDS (version 1: its id) or cards.NAMES (version 2: its kind, LT-21).
Action grammar (ALL-3, LT-5, LT-7):

    play:<card>:<tail>              add a hand card ("W5", "BJ") to a tail ("0w", "0b", "1w", "1b")
    exchange:<tail>:<pos>:<card>    swap the joker at position <pos> (0 = first card after the start card)
    lemur:market:<card> | lemur:tail:<tail> | lemur:blind | lemur:swap    use a present Sun lemur
    place:<tail> | keep             play the card a Sun lemur just brought, or keep it
    discard:<card>                  discard for a swap (1-3) or, if no tail card was added, for a pass (0-3)
    draw                            finish a swap's discards and draw as many
    end                             end the turn
"""

from __future__ import annotations

from functools import partial

from engines.base import PUBLIC, Event, IllegalAction, competition_ranks
from engines.lemur_tails.cards import (
    AFTER_CARD,
    ANY_CARD,
    BLACK_KINDS,
    CARD_BIT,
    DISCARD_ACTIONS,
    DISCARDS,
    KIND_BIT,
    KIND_NAMES,
    KIND_OF_NAME,
    MARKETS,
    NAMES,
    NUMBERED,
    PLACE_ACTIONS,
    PLAY_ACTIONS,
    PLAYS,
    STEAL_ACTIONS,
    TAIL_INDEX,
    TAILS,
    WHITE_KINDS,
    accepts,
    accepts_words,
    card_words,
    exchange_kinds,
    kind_words,
    kinds_of,
    lowest,
)
from engines.lemur_tails.state import END_DRAWN, END_IN_DECK, PASS, PLAY, SWAP, TAKEN, State

MOVE_CAP = 400
"""LT-9: at most 400 turns (both seats' turns together); then the game is scored as it stands."""
SWAP_MOST = 3
PASS_MOST = 3

_event = partial(tuple.__new__, Event)
"""``_event((type, data, private, audience))``: the Event, made without the NamedTuple's ``__new__`` (a Python
call fewer per event; all four fields given). For the events of the commonest decisions and draws."""

GRAMMAR = (
    "actions are play:<card>:<tail>, exchange:<tail>:<pos>:<card>, lemur:market:<card>, lemur:tail:<tail>, "
    "lemur:blind, lemur:swap, place:<tail>, keep, discard:<card>, draw and end (cards W0-W9, WJ, B0-B9, BJ; "
    "tails 0w, 0b, 1w, 1b)"
)


# ---------------------------------------------------------------------- legal actions


def legal_actions(state: State) -> list[str]:
    """The deciding seat's actions in a small, stable order (ALL-3); none when the game is over or a chance step
    is due (engine.legal_actions is this very function).

    Kinds are masks here (cards.KIND_BIT): the hand's kinds, a tail's fit and the market's kinds, so each
    list of actions is one lookup in a table of tuples (cards.ActionsOf).
    """
    if state.over or state.pending:
        return []
    seat = state.turn
    phase = state.phase
    tails = state.tails
    if phase == TAKEN:
        bit = CARD_BIT[state.held]
        out = [PLACE_ACTIONS[t] for t in range(4) if accepts(t, tails[t]) & bit]
        out.append("keep")
        return out
    hand = state.hands[seat]
    mask = 0
    for card in hand:
        mask |= CARD_BIT[card]
    if phase == SWAP:
        out = [*DISCARDS[mask & WHITE_KINDS], *DISCARDS[mask & BLACK_KINDS]] if state.discards < SWAP_MOST else []
        if state.discards:
            out.append("draw")
        return out
    if phase == PASS:
        out = [*DISCARDS[mask & WHITE_KINDS], *DISCARDS[mask & BLACK_KINDS]] if state.discards < PASS_MOST else []
        out.append("end")
        return out
    out = []
    swaps = []
    for t, tail in enumerate(tails):
        if not tail:
            out += PLAYS[t][ANY_CARD[1 - (t & 1)] & mask]
            continue
        last = tail[-1]
        out += PLAYS[t][(AFTER_CARD[last] if last < NUMBERED else accepts(t, tail)) & mask]
        exchanges = _EXCHANGES[t].get(tail)
        if exchanges is None:
            exchanges = _exchanges(t, tail)
        for bit, action in exchanges:
            if bit & mask:
                swaps.append(action)
    out += swaps
    if state.present[seat]:
        market = 0
        for card in state.market:
            market |= CARD_BIT[card]
        out += MARKETS[market & WHITE_KINDS]
        out += MARKETS[market & BLACK_KINDS]
        other = 1 - seat
        if tails[2 * other]:
            out.append(STEAL_ACTIONS[2 * other])
        if tails[2 * other + 1]:
            out.append(STEAL_ACTIONS[2 * other + 1])
        if state.hands[other]:
            out.append("lemur:blind")
        if hand and drawable(state):
            out.append("lemur:swap")
    if not state.added:
        out += DISCARDS[mask & WHITE_KINDS]
        out += DISCARDS[mask & BLACK_KINDS]
    out.append("end")
    return out


_EXCHANGES: tuple[dict[tuple[int, ...], tuple[tuple[int, str], ...]], ...] = ({}, {}, {}, {})
"""Per tail index, tail -> ``_exchanges(t, tail)``: a tail changes one card at a time, so the same tail is asked
about for many decisions. Cleared when it holds _EXCHANGES_KEPT tails (it only saves work)."""
_EXCHANGES_KEPT = 1 << 12
_PARTS: dict[tuple[int, int, int], tuple[tuple[int, str], ...]] = {}
"""(tail index, position, mask of the kinds that may replace the joker there) -> its exchanges (``_part``)."""


def _exchanges(t: int, tail: tuple[int, ...]) -> tuple[tuple[int, str], ...]:
    """Every exchange of a joker on the non-empty ``tail`` (tail index ``t``) that some hand could make: (kind bit,
    action), by position then kind; kept in _EXCHANGES, and then the very same strings.

    A joker's exchanges depend on its neighbours only (LT-4), so when the tail without its last card is kept
    (the card was just added), only the jokers at the last two positions are looked at.
    """
    kept = _EXCHANGES[t]
    last = len(tail) - 1
    made = kept.get(tail[:-1]) if last else ()
    if made is None:
        made = () if max(tail) < NUMBERED else tuple(  # jokers have the highest ids
            exchange for position, card in enumerate(tail) if card >= NUMBERED for exchange in _part(t, tail, position)
        )  # fmt: skip
    else:
        if last and tail[last - 1] >= NUMBERED:  # it had no numbered card after it
            made = made[: len(made) - len(_part(t, tail[:-1], last - 1))] + _part(t, tail, last - 1)
        if tail[last] >= NUMBERED:
            made += _part(t, tail, last)
    if len(kept) >= _EXCHANGES_KEPT:
        kept.clear()
    kept[tail] = made
    return made


def _part(t: int, tail: tuple[int, ...], position: int) -> tuple[tuple[int, str], ...]:
    """The exchanges of the joker at ``position`` of ``tail`` (tail index ``t``), by kind; kept in _PARTS."""
    kinds = exchange_kinds(tail, position)
    key = (t, position, kinds)
    part = _PARTS.get(key)
    if part is None:
        part = _PARTS[key] = tuple(
            (KIND_BIT[kind], f"exchange:{TAILS[t]}:{position}:{KIND_NAMES[kind]}") for kind in kinds_of(kinds)
        )
    return part


# ---------------------------------------------------------------------- decide


def decide(state: State, action: str, label: tuple) -> list[Event]:
    """The events ``action`` causes, cards named by ``label``, or IllegalAction saying why it is not allowed."""
    if state.over:
        raise IllegalAction(f"the game is over ({state.over}); no seat may act")
    if state.pending:
        raise IllegalAction("a chance step is due (cards are being drawn); no seat may act now")
    seat = state.turn
    quick = _QUICK.get(action) if type(action) is str else None
    if quick is not None:
        events = quick[0](state, seat, quick[1], label)
        if events is not None:
            return events
    if not isinstance(action, str):
        raise IllegalAction(f"seat {seat} must answer an action string, not {type(action).__name__}")
    parts = action.split(":")
    handler = _HANDLERS.get(parts[0])
    if handler is None:
        raise IllegalAction(f"seat {seat} cannot {action!r}: {GRAMMAR}")
    return handler(state, seat, action, parts, label)


def _play(state: State, seat: int, action: str, parts: list[str], label: tuple) -> list[Event]:
    _need_phase(state, seat, action, PLAY)
    if len(parts) != 3:
        raise IllegalAction(f"seat {seat} cannot {action!r}: write play:<card>:<tail>, e.g. 'play:W5:0b'")
    kind = _kind(seat, action, parts[1])
    tail = _tail(seat, action, parts[2])
    card = _holding(state, seat, kind, f"play {parts[1]}")
    return _add(state, seat, card, tail, False, label)


def _place(state: State, seat: int, action: str, parts: list[str], label: tuple) -> list[Event]:
    if state.phase != TAKEN:
        raise IllegalAction(
            f"seat {seat} cannot {action!r}: no Sun lemur has just brought it a card; hand cards are played "
            "with 'play:<card>:<tail>'"
        )
    if len(parts) != 2:
        raise IllegalAction(f"seat {seat} cannot {action!r}: write place:<tail>, e.g. 'place:0w'")
    return _add(state, seat, state.held, _tail(seat, action, parts[1]), True, label)


def _add(state: State, seat: int, card: int, tail: int, taken: bool, label: tuple) -> list[Event]:
    """Add ``card`` to ``tail``; a third card of a series earns a Sun lemur (LT-6, LT-10, LT-18)."""
    cards = state.tails[tail]
    if not CARD_BIT[card] & (AFTER_CARD[cards[-1]] if cards and cards[-1] < NUMBERED else accepts(tail, cards)):
        raise IllegalAction(f"seat {seat} cannot add {card_words(card)} to {TAILS[tail]}: {accepts_words(tail, cards)}")
    data = {"seat": seat, "card": label[card], "tail": TAILS[tail], "taken": taken}
    events = [_event(("tail_card_played", data, None, PUBLIC))]
    if tail >> 1 == seat:
        length = state.series_len + 1 if state.series_tail == tail else 1
        if length % 3 == 0:
            if state.empty[seat]:
                events.append(Event("sun_lemur_reactivated", {"seat": seat, "series": length}))
            elif state.aside:
                events.append(Event("sun_lemur_gained", {"seat": seat, "series": length}))
    return events


def _keep(state: State, seat: int, action: str, parts: list[str], label: tuple) -> list[Event]:
    if state.phase != TAKEN or len(parts) != 1:
        raise IllegalAction(f"seat {seat} cannot {action!r}: 'keep' answers only a card a Sun lemur just brought")
    return [Event("taken_card_kept", {"seat": seat})]


def _exchange(state: State, seat: int, action: str, parts: list[str], label: tuple) -> list[Event]:
    _need_phase(state, seat, action, PLAY)
    if len(parts) != 4 or not parts[2].isdigit():
        raise IllegalAction(
            f"seat {seat} cannot {action!r}: write exchange:<tail>:<position>:<card>, e.g. 'exchange:1w:3:W5'"
        )
    tail = _tail(seat, action, parts[1])
    position = int(parts[2])
    kind = _kind(seat, action, parts[3])
    cards = state.tails[tail]
    if position >= len(cards):
        raise IllegalAction(
            f"seat {seat} cannot {action!r}: {TAILS[tail]} has {len(cards)} tail cards (positions from 0)"
        )
    joker = cards[position]
    if joker < NUMBERED:
        raise IllegalAction(
            f"seat {seat} cannot {action!r}: position {position} of {TAILS[tail]} holds {card_words(joker)}, "
            "not a joker"
        )
    allowed = exchange_kinds(cards, position)
    if not KIND_BIT[kind] & allowed:
        fits = " or ".join(KIND_NAMES[k] for k in kinds_of(allowed))
        raise IllegalAction(
            f"seat {seat} cannot exchange {card_words(joker)} at {TAILS[tail]}:{position} for {kind_words(kind)}: "
            f"only a card of the joker's colour fitting its numbered neighbours may replace it ({fits}; LT-4)"
        )
    card = _holding(state, seat, kind, f"exchange {parts[3]}")
    return [
        Event(
            "joker_exchanged",
            {"seat": seat, "tail": TAILS[tail], "position": position, "card": label[card], "joker": label[joker]},
        )
    ]


def _lemur(state: State, seat: int, action: str, parts: list[str], label: tuple) -> list[Event]:
    _need_phase(state, seat, action, PLAY)
    if not state.present[seat]:
        raise IllegalAction(
            f"seat {seat} cannot {action!r}: it has no present Sun lemur ({state.empty[seat]} empty); a series "
            "of three cards on one own tail turns one back (LT-6)"
        )
    what = parts[1] if len(parts) > 1 else ""
    other = 1 - seat
    if what == "market" and len(parts) == 3:
        kind = _kind(seat, action, parts[2])
        card = lowest(state.market, kind)
        if card < 0:
            raise IllegalAction(f"seat {seat} cannot {action!r}: the market does not hold {kind_words(kind)}")
        return [Event("sun_lemur_used", {"seat": seat, "action": "market", "card": label[card]})]
    if what == "tail" and len(parts) == 3:
        tail = _tail(seat, action, parts[2])
        if tail >> 1 != other:
            raise IllegalAction(f"seat {seat} cannot {action!r}: a Sun lemur takes only from the opponent's tails")
        if not state.tails[tail]:
            raise IllegalAction(
                f"seat {seat} cannot {action!r}: {TAILS[tail]} holds only its start card, which is never taken (LT-7)"
            )
        card = state.tails[tail][-1]
        return [Event("sun_lemur_used", {"seat": seat, "action": "tail", "tail": TAILS[tail], "card": label[card]})]
    if what == "blind" and len(parts) == 2:
        if not state.hands[other]:
            raise IllegalAction(f"seat {seat} cannot {action!r}: seat {other} holds no cards")
        return [Event("sun_lemur_used", {"seat": seat, "action": "blind"})]
    if what == "swap" and len(parts) == 2:
        if not state.hands[seat]:
            raise IllegalAction(f"seat {seat} cannot {action!r}: it holds no cards to discard")
        if not drawable(state):
            raise IllegalAction(f"seat {seat} cannot {action!r}: the deck has no tail card left to draw (LT-15)")
        return [Event("sun_lemur_used", {"seat": seat, "action": "swap"})]
    raise IllegalAction(
        f"seat {seat} cannot {action!r}: a Sun lemur does lemur:market:<card>, lemur:tail:<tail>, lemur:blind "
        "or lemur:swap"
    )


def _discard(state: State, seat: int, action: str, parts: list[str], label: tuple) -> list[Event]:
    phase = state.phase
    if phase == TAKEN:
        _need_phase(state, seat, action, PLAY)
    if phase == PLAY and state.added:
        raise IllegalAction(
            f"seat {seat} cannot {action!r}: it added {state.added} tail card(s) this turn, so it is not passing "
            "and may not discard (LT-5); 'lemur:swap' discards and draws"
        )
    most = SWAP_MOST if phase == SWAP else PASS_MOST
    if phase in (SWAP, PASS) and state.discards >= most:
        raise IllegalAction(
            f"seat {seat} cannot {action!r}: it has discarded {most} cards already, the most a "
            f"{'swap' if phase == SWAP else 'pass'} allows"
        )
    if len(parts) != 2:
        raise IllegalAction(f"seat {seat} cannot {action!r}: write discard:<card>, e.g. 'discard:B7'")
    card = _holding(state, seat, _kind(seat, action, parts[1]), f"discard {parts[1]}")
    return [Event("card_discarded", {"seat": seat, "card": label[card], "for": "swap" if phase == SWAP else "pass"})]


def _draw(state: State, seat: int, action: str, parts: list[str], label: tuple) -> list[Event]:
    if state.phase != SWAP or len(parts) != 1:
        raise IllegalAction(f"seat {seat} cannot {action!r}: 'draw' only finishes a Sun lemur swap's discards")
    if not state.discards:
        raise IllegalAction(f"seat {seat} cannot draw yet: a Sun lemur swap discards at least one card first")
    return [Event("swap_finished", {"seat": seat, "count": state.discards})]


def _end(state: State, seat: int, action: str, parts: list[str], label: tuple) -> list[Event]:
    if len(parts) != 1:
        raise IllegalAction(f"seat {seat} cannot {action!r}: write 'end'")
    if state.phase not in (PLAY, PASS):
        _need_phase(state, seat, action, PLAY)
    data = {"seat": seat, "turn": state.turns[seat] + 1, "passed": not state.added}
    events = [_event(("turn_ended", data, None, PUBLIC))]
    if state.ending and seat == 1:
        # LT-8: the End card (or an empty deck) came up earlier; seat 1 closes the round.
        events.append(game_over(state, "end card" if state.end_card == END_DRAWN else "deck empty"))
    elif sum(state.turns) + 1 >= MOVE_CAP:
        events.append(game_over(state, "move cap", "move_cap_reached"))
    return events


# The two commonest decisions, parsed in advance: each gives its events when the action is legal as it
# stands, and None otherwise, for the handler above to say why (_play, _discard: the same checks).


def _quick_play(state: State, seat: int, kind_tail: tuple[int, int], label: tuple) -> list[Event] | None:
    if state.phase != PLAY:
        return None
    card = lowest(state.hands[seat], kind_tail[0])
    return None if card < 0 else _add(state, seat, card, kind_tail[1], False, label)


def _quick_discard(state: State, seat: int, kind: int, label: tuple) -> list[Event] | None:
    phase = state.phase
    if phase == PLAY:
        if state.added:
            return None
    elif phase == TAKEN or state.discards >= (SWAP_MOST if phase == SWAP else PASS_MOST):
        return None
    card = lowest(state.hands[seat], kind)
    if card < 0:
        return None
    data = {"seat": seat, "card": label[card], "for": "swap" if phase == SWAP else "pass"}
    return [_event(("card_discarded", data, None, PUBLIC))]


_QUICK: dict[str, tuple] = {
    **{PLAY_ACTIONS[k][t]: (_quick_play, (k, t)) for k in range(22) for t in range(4)},
    **{DISCARD_ACTIONS[k]: (_quick_discard, k) for k in range(22)},
}

_HANDLERS = {
    "play": _play,
    "place": _place,
    "keep": _keep,
    "exchange": _exchange,
    "lemur": _lemur,
    "discard": _discard,
    "draw": _draw,
    "end": _end,
}


# ---------------------------------------------------------------------- scoring and helpers


def score(state: State, seat: int) -> tuple[int, int, int]:
    """LT-9 scoring key (bigger is better): shortest tail, longest tail, minus jokers in the shortest.

    LT-14: when both tails are equally long, the one with fewer jokers counts as the shortest.
    """
    first, second = state.tails[2 * seat], state.tails[2 * seat + 1]
    if len(first) > len(second) or (len(first) == len(second) and jokers(first) > jokers(second)):
        first, second = second, first
    return (len(first), len(second), -jokers(first))


def ranking(state: State) -> list[int]:
    return competition_ranks([score(state, 0), score(state, 1)])


def game_over(state: State, reason: str, kind: str = "lemurs_counted") -> Event:
    """The event that ends the game, with the ranking the tails give (LT-9)."""
    data = {"reason": reason, "ranking": ranking(state), "scores": [list(score(state, s)) for s in (0, 1)]}
    if kind == "move_cap_reached":
        data["turns"] = sum(state.turns) + 1
    return Event(kind, data)


def jokers(tail: tuple[int, ...]) -> int:
    return sum(1 for card in tail if card >= NUMBERED)


def drawable(state: State) -> int:
    """Tail cards left to draw; the End card is not one (LT-15)."""
    return len(state.deck) - (state.end_card == END_IN_DECK)


def _need_phase(state: State, seat: int, action: str, phase: str) -> None:
    if state.phase == phase:
        return
    if state.phase == TAKEN:
        raise IllegalAction(
            f"seat {seat} cannot {action!r} now: it must first place the {NAMES[state.held]} its Sun lemur brought "
            "('place:<tail>') or keep it ('keep') (LT-7)"
        )
    if state.phase == SWAP:
        raise IllegalAction(
            f"seat {seat} cannot {action!r} now: it is discarding for a Sun lemur swap; only 'discard:<card>' "
            "(up to 3) or 'draw' (after at least one)"
        )
    raise IllegalAction(
        f"seat {seat} cannot {action!r} now: it has passed and may only 'discard:<card>' (up to 3 in all) or 'end' "
        "(LT-5)"
    )


def _kind(seat: int, action: str, name: str) -> int:
    kind = KIND_OF_NAME.get(name)
    if kind is None:
        raise IllegalAction(f"seat {seat} cannot {action!r}: {name!r} is not a card (W0-W9, WJ, B0-B9, BJ)")
    return kind


def _tail(seat: int, action: str, name: str) -> int:
    tail = TAIL_INDEX.get(name)
    if tail is None:
        raise IllegalAction(f"seat {seat} cannot {action!r}: {name!r} is not a tail (0w, 0b, 1w, 1b)")
    return tail


def _holding(state: State, seat: int, kind: int, what: str) -> int:
    card = lowest(state.hands[seat], kind)
    if card < 0:
        raise IllegalAction(f"seat {seat} cannot {what}: it does not hold {kind_words(kind)}")
    return card

