"""`replay show`: every step in words, the table as the viewer saw it, hidden cards hidden."""

from __future__ import annotations

import orjson
import pytest
from typer.testing import CliRunner

from replays import log as logfmt
from replays import render
from tests.replays.forgery import real_log
from tournaments.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def log():
    return real_log("lemur-tails", "show")




def test_full_view_shows_every_step_and_every_hand(log):
    """The full view has a frame per step and shows each seat's hidden hand beside the table."""
    frames = render.frames(log, "full")
    assert len(frames) == len({e["step"] for e in log["events"]}) - 1
    assert any("hand" in hidden for frame in frames for hidden in frame.seats.values())


@pytest.mark.parametrize("view", ["spectator", "seat:0", "seat:1"])
def test_non_full_views_never_show_another_seats_hidden_cards(log, view):
    """A spectator or a seat sees '(hidden)' for others' private parts, and no hand but its own."""
    seat = logfmt.parse_view(view, 2)
    frames = render.frames(logfmt.redact(log, view), view)
    for frame in frames:
        assert frame.seats == {}
        if seat is None:
            assert "hand" not in frame.table
    text = "\n".join(line for frame in frames for line in frame.lines)
    assert "(hidden)" in text
    for event in log["events"]:
        if "private" in event and (seat is None or seat not in event["audience"]):
            assert render.words(event, seat).endswith("(hidden)")


def test_cli_show_prints_turns_and_the_result(log, tmp_path):
    """`tourney replay show FILE --view seat:1` prints the steps and ends with each bot's rank, hiding seat 0's
    cards."""
    path = tmp_path / "game.json"
    path.write_bytes(logfmt.dumps(log))
    result = runner.invoke(app, ["replay", "show", str(path), "--view", "seat:1"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "step 1: setup" in result.output
    ranking = log["result"]["ranking"]
    ending = [f"result: {log['result']['reason']}"] + [
        f"  rank {ranking[seat['seat']]}: seat {seat['seat']} {seat['bot']}"
        for seat in sorted(log["seats"], key=lambda s: ranking[s["seat"]])]
    assert result.output.splitlines()[-len(ending):] == ending
    dealt = next(e for e in log["events"] if e["type"] == "hand_dealt" and e["audience"] == [0])
    cards = " ".join(str(c) for c in dealt["private"]["cards"])
    assert f"cards [{cards}]" not in result.output
    full = runner.invoke(app, ["replay", "show", str(path)], terminal_width=200)
    assert f"cards [{cards}]" in full.output


def test_show_refuses_a_log_that_does_not_verify(log, tmp_path):
    """A tampered log is not shown: one error line, exit 1."""
    broken = orjson.loads(logfmt.dumps(log))
    broken["events"][5]["data"]["seat"] = 9
    path = tmp_path / "bad.json"
    path.write_bytes(logfmt.dumps(broken))
    result = runner.invoke(app, ["replay", "show", str(path)])
    assert result.exit_code == 1 and "error: game" in result.output and "seq 5" in result.output
