"""A fourth game, defined only in tests, plays a tournament, verifies, renders a replay page (and, in
tests/adapters, passes the RL suites): the places docs/games/adding-a-game.md lists are all a game needs."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from tests import fourth_game
from tests.tournaments.play.test_protocol import make_folder
from tournaments.cli import app

fourth_game.register()
cli = CliRunner()


def invoke(*args: str):
    return cli.invoke(app, [*args], terminal_width=200)


def test_a_fourth_game_plays_a_tournament_verifies_and_renders_a_page(tmp_path):
    """Registered through the hooks the doc names, Tiny Tails plays a round robin through the CLI, its stored
    games and exported logs verify (its scores recorded and re-derived through the protocol's ``scores``), and
    its replay page tells its events in its own narration's words."""
    folder = make_folder(tmp_path, good=2)
    db = str(tmp_path / "t.db")
    played = invoke("run", str(folder), "--game", fourth_game.NAME, "--games", "2", "--seed", "4", "--jobs", "0",
                    "--sandbox", "off", "--db", db, "--progress", "none")
    assert played.exit_code == 0, played.output
    stored = invoke("replay", "verify", "--db", db)
    assert stored.exit_code == 0, stored.output
    out = tmp_path / "logs"
    exported = invoke("replay", "export", "--tournament", f"bots-{fourth_game.NAME}-seed4", "--out", str(out),
                      "--db", db)
    assert exported.exit_code == 0, exported.output
    logs = sorted(out.glob("*.json"))
    assert len(logs) == 4  # two deals, each from both seat rotations
    for path in logs:
        log = json.loads(path.read_text())
        ended = log["events"][-1]
        assert log["game"] == fourth_game.NAME and ended["type"] == "game_ended"
        assert sum(ended["data"]["scores"]) > 0 and len(ended["data"]["scores"]) == 2
    verified = invoke("replay", "verify", str(out))
    assert verified.exit_code == 0, verified.output
    page = tmp_path / "page.html"
    rendered = invoke("replay", "html", str(logs[0]), "-o", str(page))
    assert rendered.exit_code == 0, rendered.output
    text = page.read_text()
    assert "wins the round with" in text and "Red plays" in text  # tests/fourth_game/narration.py's sentences
    assert "Round played" not in text and "Card played" not in text  # not the plain fallback of an unknown game


def test_a_verifier_that_rederives_other_scores_refuses_the_log(tmp_path, monkeypatch):
    """The recorded scores are checked against the engine's ``scores``: an engine whose scores differ fails."""
    folder = make_folder(tmp_path, good=2)
    db = str(tmp_path / "t.db")
    played = invoke("run", str(folder), "--game", fourth_game.NAME, "--games", "1", "--seed", "5", "--jobs", "0",
                    "--sandbox", "off", "--db", db, "--progress", "none")
    assert played.exit_code == 0, played.output
    monkeypatch.setattr(type(fourth_game.ENGINE), "scores", lambda self, state: [0] * state.seats)
    refused = invoke("replay", "verify", "--db", db)
    assert refused.exit_code != 0 and "scores" in refused.output
