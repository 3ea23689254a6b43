"""The card data's old address, engines.nine_tails_cards, kept for bots written against it.

Card data is in engines/nine_tails/cards.py since the engines became one package per game;
bots may import it from either address (bots/heuristic_nine_tails.py uses this one, and
its content hash, which the golden replays record, must not change).
"""

from engines.nine_tails.cards import *  # noqa: F403 -- every public name of the card data, unchanged
