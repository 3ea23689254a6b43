"""The card data's old address, engines.lemur_tails_cards, kept for bots written against it.

Card data is in engines/lemur_tails/cards.py since the engines became one package per game;
bots may import it from either address.
"""

from engines.lemur_tails.cards import *  # noqa: F403 -- every public name of the card data, unchanged
