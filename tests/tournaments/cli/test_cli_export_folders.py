"""`replay export` into a folder that already holds an export: another tournament's or ladder's manifest there is
refused before anything is written (it wrote the other tournament's logs first, and a ladder's beside a tournament's
manifest was not refused at all: the folder then failed verification)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli import invoke as tourney
from tests.runs import random_pair


@pytest.fixture(scope="module")
def league(tmp_path_factory) -> Path:
    """A database holding two tournaments (cup, duo-7) and an empty ladder (spring), built once."""
    folder = tmp_path_factory.mktemp("league")
    bots = random_pair(folder / "bots")
    db = folder / "t.db"
    for name, seed in (("cup", "1"), ("duo-7", "2")):
        ran = tourney("run", bots, "--game", "lemur-tails", "--games", "1", "--seed", seed, "--sandbox", "off",
                      "--jobs", "0", "--name", name, "--db", db)
        assert ran.exit_code == 0, ran.output
    assert tourney("ladder", "create", "spring", "--game", "lemur-tails", "--db", db).exit_code == 0
    return db


def snapshot(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in folder.iterdir()}


@pytest.fixture
def cup_folder(league, tmp_path) -> Path:
    out = tmp_path / "full"
    exported = tourney("replay", "export", "--tournament", "cup", "--out", out, "--db", league)
    assert exported.exit_code == 0, exported.output
    return out


@pytest.mark.parametrize(("args", "what"), [
    (["--tournament", "duo-7"], "tournament 'duo-7'"),
    (["--ladder", "spring"], "ladder 'spring'"),
])
def test_another_scopes_export_into_a_manifests_folder_writes_nothing(league, cup_folder, args, what):
    """The refusal is one line, exit 1, and the folder is byte for byte as it was; it still verifies."""
    before = snapshot(cup_folder)
    refused = tourney("replay", "export", *args, "--out", cup_folder, "--db", league)
    assert refused.exit_code == 1
    assert refused.output == (f"error: {cup_folder / 'tournament.manifest'} is the manifest of tournament 'cup': "
                              f"export {what} to another folder\n")
    assert snapshot(cup_folder) == before
    assert tourney("replay", "verify", cup_folder, "--jobs", "0", "--quiet").exit_code == 0


def test_a_game_the_manifest_does_not_list_is_refused_and_one_it_lists_is_written(league, cup_folder):
    """A single game of another tournament would be a log the manifest does not list: refused, nothing written; a
    game of the folder's own tournament is exported again over its log, as before."""
    other = json.loads(tourney("games", "duo-7", "--json", "--db", league).stdout)[0]["game_id"]
    before = snapshot(cup_folder)
    refused = tourney("replay", "export", other, "--out", cup_folder, "--db", league)
    assert refused.exit_code == 1 and f"which does not list game {other}: export it to another folder" in \
        refused.output
    assert snapshot(cup_folder) == before
    own = sorted(name for name in before if name.endswith(".json"))[0]
    again = tourney("replay", "export", own.removesuffix(".json"), "--out", cup_folder, "--db", league)
    assert again.exit_code == 0 and snapshot(cup_folder) == before, again.output


def test_the_same_tournament_again_and_an_unreadable_manifest(league, cup_folder):
    """Exporting cup again into its own folder is allowed; a manifest that cannot be read is refused, unwritten."""
    assert tourney("replay", "export", "--tournament", "cup", "--out", cup_folder, "--db", league).exit_code == 0
    (cup_folder / "tournament.manifest").write_text("{", encoding="utf-8")
    before = snapshot(cup_folder)
    refused = tourney("replay", "export", "--tournament", "cup", "--out", cup_folder, "--db", league)
    assert refused.exit_code == 1 and "a manifest this tourney cannot read is there" in refused.output
    assert snapshot(cup_folder) == before
