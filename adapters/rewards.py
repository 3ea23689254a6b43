"""What a learning agent is paid: one reward per seat at the end of a game, from the ranking (ALL-6)."""

from __future__ import annotations

from collections.abc import Sequence


def rewards(ranking: Sequence[int]) -> list[float]:
    """Each seat's reward: (seats ranked below it - seats ranked above it) / (n - 1).

    In [-1, 1]; +1 for a lone winner, -1 for a lone last, 0 for a tie of all; the rewards of a
    table sum to zero (each pairwise win is another seat's loss), so the game is zero-sum.
    """
    n = len(ranking)
    return [sum((mine < theirs) - (mine > theirs) for theirs in ranking) / (n - 1) for mine in ranking]
