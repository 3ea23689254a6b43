"""`replay show`: every step in the game's words, the table as the viewer saw it, hidden cards hidden
(the golden replays' exact output is checked in test_show.py)."""

from __future__ import annotations

import re

import orjson
import pytest

from replays import log as logfmt
from replays import render
from replays.narration import Narrator
from tests import cli
from tests.replays.forgery import real_log


@pytest.fixture(scope="module")
def log():
    return real_log("lemur-tails", "show")


def test_full_view_shows_every_step_and_every_hand(log):
    """The full view has a frame per step, every seat's own view beside the table, and each seat's hand in its
    summary line."""
    frames = render.frames(log, "full")
    assert len(frames) == len({e["step"] for e in log["events"]}) - 1
    assert all(sorted(frame.own) == [0, 1] for frame in frames)
    assert any("hand" in hidden for frame in frames for hidden in frame.hidden.values())
    last = frames[-1]
    for seat, label in enumerate(render.seat_labels(log)):
        line = next(line for line in last.summary if line.startswith(label))
        assert line.startswith(f"{label}: hand {' '.join(last.own[seat]['hand']) or 'empty'} · ")


@pytest.mark.parametrize("view", ["spectator", "seat:0", "seat:1"])
def test_non_full_views_never_show_another_seats_hidden_cards(log, view):
    """A spectator or a seat is told only the public sentence of others' hidden parts, and no hand but its own."""
    seat = logfmt.parse_view(view, 2)
    frames = render.frames(logfmt.redact(log, view), view)
    narrator = Narrator(log["game"])
    for frame in frames:
        assert frame.own == ({} if seat is None else {seat: frame.table})
        if seat is None:
            assert "hand" not in frame.table
    hidden = [e for e in log["events"] if "private" in e and (seat is None or seat not in e["audience"])]
    assert hidden
    for event in hidden:
        public = narrator.sentence(event["type"], event["data"])
        assert render.words(event, seat, narrator) == public
        assert public != narrator.sentence(event["type"], event["data"], event["private"])


def test_cli_show_prints_turns_and_the_result(log, tmp_path):
    """`tourney replay show FILE --view seat:1` prints the steps and ends with each bot's rank, hiding seat 0's
    cards."""
    path = tmp_path / "game.json"
    path.write_bytes(logfmt.dumps(log))
    result = cli.invoke("replay", "show", str(path), "--view", "seat:1", width=200)
    assert result.exit_code == 0, result.output
    assert "step 1: setup" in result.output
    ranking = log["result"]["ranking"]
    ending = [f"result: {log['result']['reason']}"] + [
        f"  rank {ranking[seat['seat']]}: seat {seat['seat']} {seat['bot']}"
        for seat in sorted(log["seats"], key=lambda s: ranking[s["seat"]])]
    assert result.output.splitlines()[-len(ending):] == ending
    dealt = next(e for e in log["events"] if e["type"] == "hand_dealt" and e["audience"] == [0])
    told = Narrator(log["game"]).sentence("hand_dealt", dealt["data"], dealt["private"])
    assert told not in result.output and "Red is dealt 8 cards\n" in result.output
    full = cli.invoke("replay", "show", str(path), width=200)
    assert told in full.output


def test_show_refuses_a_log_that_does_not_verify(log, tmp_path):
    """A tampered log is not shown: one error line, exit 1."""
    broken = orjson.loads(logfmt.dumps(log))
    broken["events"][5]["data"]["seat"] = 9
    path = tmp_path / "bad.json"
    path.write_bytes(logfmt.dumps(broken))
    result = cli.invoke("replay", "show", str(path))
    assert result.exit_code == 1 and "error: game" in result.output and "seq 5" in result.output


def test_step_waits_after_each_turn_and_q_quits(log, tmp_path, monkeypatch):
    """In a terminal, --step asks for a key after each seat's turn (its summary printed first) and q stops the show
    before the result."""
    path = tmp_path / "game.json"
    path.write_bytes(logfmt.dumps(log))
    keys = iter([" ", "x", "q"])
    monkeypatch.setattr("rich.console.Console.is_terminal", property(lambda self: True))
    monkeypatch.setattr("typer.getchar", lambda: next(keys))
    result = cli.invoke("replay", "show", str(path), "--step", width=200)
    assert result.exit_code == 0, result.output
    output = re.sub(r"\x1b\[[0-9;]*m", "", result.output)
    assert output.count("(any key: next turn, q: quit)") == 3
    assert "result:" not in output
    turns = [frame for frame in render.frames(log, "full") if frame.turn_over and frame.actor != "end"]
    assert turns[2].summary[0] in output
    assert f"step {turns[2].step}:" in output and f"step {turns[3].step}:" not in output
