"""What a reader holds: the results of games (replays.facts.Fact) alive at a moment, counted by tests that a check
reads a page at a time and keeps no game (a page of one game, the count taken once every game is read)."""

from __future__ import annotations

import gc

from replays import facts


class AliveFacts:
    """Counts the Facts alive at each ``count()``, leaving out those alive when it was made (other tests' results,
    held here so that no new one takes the address of one)."""

    def __init__(self) -> None:
        self.before = [thing for thing in gc.get_objects() if isinstance(thing, facts.Fact)]
        self.known = {id(thing) for thing in self.before}
        self.counts: list[int] = []

    def count(self) -> int:
        gc.collect()
        found = sum(isinstance(thing, facts.Fact) and id(thing) not in self.known for thing in gc.get_objects())
        self.counts.append(found)
        return found

    def before_each_call(self, monkeypatch, owner: object, name: str) -> None:
        """Count at each call of ``owner.name`` (a module's function or a class's method), before it runs."""
        original = getattr(owner, name)

        def counted(*args, **kwargs):
            self.count()
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, counted)
