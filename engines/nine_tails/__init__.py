"""Nine Tails: the engine (``ENGINE``) and every rules version a log may name (``VERSIONS``).

docs/games/ has the rules as built and the modules' roles; engines.registry finds this
package by the game's name.
"""

from engines.nine_tails.engine import ENGINE

VERSIONS = {ENGINE.version: ENGINE}

__all__ = ["ENGINE", "VERSIONS"]
