"""Nine Tails: the card list as data (rulings NT-1..NT-4 and NT-6), and tables derived from it.

Traits: A Allure, C Cunning, G Glamour, S Stealth, Q Quickness; ``*`` is Any. A card's id
names its kind and its symbols, so a log reads without a lookup table:

* ``F-AACS``  a starting fox and its four trait slots (NT-1);
* ``W-AGS``   a wild fox and its three trait slots (NT-2);
* ``S-A*``    a study card and its two extra trait slots (NT-3);
* ``T-CCS*``  a tail card and its exhaustion cost; the tails it is worth follow from the
  cost's length: 2 symbols = 1 tail, 3 = 2 tails, 4 = 3 tails (NT-4).

Trickery cards are ten tricks, three identical copies each (NT-6); a copy is named by its
trick ("quick-paws"), since copies of one trick can never be told apart.
"""

from __future__ import annotations

TRAITS = "ACGSQ"
ANY = "*"
TRAIT_NAMES = {"A": "Allure", "C": "Cunning", "G": "Glamour", "S": "Stealth", "Q": "Quickness", "*": "Any"}

STARTING_FOXES = ("AACS", "CCGQ", "GGSA", "SSQC", "QQAG", "ACG*", "CGS*", "GSQ*", "SQA*", "QAC*")  # NT-1
WILD_FOXES = ("AA*", "CC*", "GG*", "SS*", "QQ*", "AGS", "CSQ", "GQA", "SAC", "QCG")  # NT-2
STUDIES = ("A*", "C*", "G*", "S*", "Q*", "AC", "CG", "GS", "SQ", "QA")  # NT-3
TAILS = (  # NT-4: ten worth 1 tail, ten worth 2, five worth 3
    "AC", "CG", "GS", "SQ", "QA", "AG", "CS", "GQ", "SA", "QC",
    "ACG", "CGS", "GSQ", "SQA", "QAC", "AA*", "CC*", "GG*", "SS*", "QQ*",
    "AAG*", "CCS*", "GGQ*", "SSA*", "QQC*",
)  # fmt: skip

# NT-6: trick name -> (exhaustion cost, effect). "this fox" is the fox performing the trick.
TRICKS = {
    "quick-paws": ("Q", "take one card from the Village and resolve it as in SNEAK"),
    "tail-swipe": ("SSC", "move the most recently tucked Tail card of another seat's fox to this fox"),
    "befuddle": ("AG", "put up to two counters from the pile on open slots of one fox of another seat"),
    "second-wind": ("*", "return all counters on this fox to the pile"),
    "foxfire-insight": ("C", "draw two trickery cards"),
    "study-heist": ("CG", "move a Study card from another seat's fox to this fox"),
    "pickpocket": ("A", "take a random trickery card from another seat's hand"),
    "lure": ("AA", "claim a Wild Fox card from the Village"),
    "hex": ("GS", "put the most recently tucked Study card of another seat's fox into the Village"),
    "windfall": ("QA", "reveal the top Wilds card; resolve it as if venturing with it alone, or village it"),
}
COPIES = 3

COUNTERS = 40
ASCENDED_FOX_CARDS = 10
HAND_AT_START = 3
NINE = 9  # tails at which a fox ascends, and the most it may ever have
GOAL = 3  # ascended foxes that win (NT-9)
FAST_GOAL = 2  # the optional fast game (NT-9)
REVEAL = 3  # Wilds cards a VENTURE reveals (NT-8: fewer when fewer are left)
MOVE_CAP = 3000  # turns (NT-9)

# --- card ids and derived tables ---------------------------------------------------------

STARTING_FOX_IDS = tuple(f"F-{slots}" for slots in STARTING_FOXES)
WILD_FOX_IDS = tuple(f"W-{slots}" for slots in WILD_FOXES)
STUDY_IDS = tuple(f"S-{slots}" for slots in STUDIES)
TAIL_IDS = tuple(f"T-{cost}" for cost in TAILS)
WILDS_IDS = WILD_FOX_IDS + STUDY_IDS + TAIL_IDS  # the 45 Wilds cards
TRICK_NAMES = tuple(TRICKS)
TRICKERY_CARDS = tuple(name for name in TRICK_NAMES for _ in range(COPIES))  # the 30 trickery cards

STARTING_FOX, WILD_FOX, STUDY, TAIL = "starting fox", "wild fox", "study", "tail"
KIND = {
    **dict.fromkeys(STARTING_FOX_IDS, STARTING_FOX),
    **dict.fromkeys(WILD_FOX_IDS, WILD_FOX),
    **dict.fromkeys(STUDY_IDS, STUDY),
    **dict.fromkeys(TAIL_IDS, TAIL),
}
SLOTS = {card: card[2:] for card in STARTING_FOX_IDS + WILD_FOX_IDS + STUDY_IDS}  # trait slots per card
COST = {**{card: card[2:] for card in TAIL_IDS}, **{name: cost for name, (cost, _) in TRICKS.items()}}
TAIL_VALUE = {card: len(card) - 3 for card in TAIL_IDS}  # "T-AC" -> 1, "T-ACG" -> 2, "T-AAG*" -> 3
SYMBOL_INDEX = {symbol: index for index, symbol in enumerate(TRAITS + ANY)}


def _need(cost: str) -> tuple[int, ...]:
    """How many of each symbol (A, C, G, S, Q, Any) a cost shows."""
    return tuple(cost.count(symbol) for symbol in TRAITS + ANY)


NEED = {key: _need(cost) for key, cost in COST.items()}  # per tail card id and per trick name
ORDERED_COST = {key: "".join(sorted(cost, key=lambda s: s == ANY)) for key, cost in COST.items()}
