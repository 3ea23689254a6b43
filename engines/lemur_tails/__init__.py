"""Lemur Tails: the engine (``ENGINE``) and every rules version a log may name (``VERSIONS``).

docs/games/ has the rules as built and the modules' roles; engines.registry finds this
package by the game's name.
"""

from engines.lemur_tails.engine import ENGINE, VERSION_1

VERSIONS = {1: VERSION_1, 2: ENGINE}

__all__ = ["ENGINE", "VERSIONS"]
