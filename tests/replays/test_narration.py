"""Events in the games' own words (replays/narration): every event type of every game has its sentence,
seats are called by colour, and a hidden part is told only when it is given."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from replays.narration import Narrator
from tests.replays.forgery import real_log


def documented_event_types(game: str) -> set[str]:
    """Every event type in the first column of the game doc's "Events" table."""
    text = (Path(__file__).parents[2] / "docs" / "games" / f"{game}.md").read_text()
    section = text.split("## Events", 1)[1].split("\n## ", 1)[0]
    return {name for line in section.splitlines() if line.startswith("| `")
            for name in re.findall(r"`([a-z_]+)`", line.split("|")[1])}


@pytest.mark.parametrize("game", ["tails-on-fire", "nine-tails", "lemur-tails"])
def test_every_documented_event_has_a_sentence(game):
    """Each event type a game documents is told in the game's words, not by the plain fallback."""
    types = documented_event_types(game)
    assert len(types) > 10
    narrator = Narrator(game)
    assert sorted(t for t in types if not narrator.knows(t)) == []


@pytest.mark.parametrize(("game", "seats"), [("tails-on-fire", 2), ("tails-on-fire", 5), ("nine-tails", 4),
                                             ("lemur-tails", 2)])
def test_every_event_of_random_games_is_told(game, seats):
    """Random games' events, public and private parts alike, all make sentences with each seat by its colour."""
    narrator = Narrator(game)
    for seed in ("a", "b", "c"):
        for event in real_log(game, seed, seats)["events"]:
            assert narrator.knows(event["type"]), event["type"]
            for private in (None, event.get("private")):
                told = narrator.sentence(event["type"], event["data"], private)
                assert told and not re.search(r"\bseat \d", told), told


def test_sentences_read_like_the_table_talks():
    """Tails on Fire: "Green plays 4"; a win that steals names the fire cards and whom they came from."""
    narrator = Narrator("tails-on-fire")
    assert narrator.sentence("opossum_played", {"seat": 1, "card": 4, "number": 4}) == "Green plays 4"
    won = {"seat": 0, "card": 5, "number": 5, "fire": 6, "stolen": [{"seat": 3, "card": 5, "fire": [2, 8]}]}
    assert narrator.sentence("fire_won", won) == ("Red wins the round with 5 and takes fire card 6, "
                                                  "stealing 2 fire cards from Yellow")
    assert narrator.sentence("opossum_chosen", {"seat": 2}) == "Blue chooses an opossum"
    assert narrator.sentence("opossum_chosen", {"seat": 2}, {"card": 0}) == "Blue chooses the trickster"
