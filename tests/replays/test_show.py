"""`replay show` of the golden replays: events in the narration's sentences, the table as each game's
own summary, nothing hidden from the chosen view, and never a raw dict dump.

The twin-game idea of test_leaks.py is used for Tails on Fire only: its hidden information is a
decision, so both twins verify; a Lemur Tails twin changes a shuffle, which no longer matches the
seed, and `show` shows only verified logs. Every game's hidden cards are checked against the
golden replays instead (``hidden_lines``)."""

from __future__ import annotations

import os
import pty
import re
import subprocess

import pytest

from engines import registry
from engines.driver import play
from replays import log as logfmt
from replays import render
from replays.narration import Narrator
from replays.record import SeatInfo, record
from tests import cli
from tests.golden.cases import CASES
from tests.replays.forgery import real_log
from tests.replays.test_leaks import Chooser, Filtered

GOLDEN = {case.name: case.path for case in CASES}
RULE = re.compile(r"^─+ step (\d+): (.+?) ─+$")
VIEWS = ("full", "spectator", "seat:0", "seat:1")


def show(log: dict, view: str, tmp_path) -> str:
    """The command's whole output for ``log`` shown as ``view`` (a wide terminal, so rules stay on one line)."""
    path = tmp_path / "game.json"
    path.write_bytes(logfmt.dumps(log))
    result = cli.invoke("replay", "show", str(path), "--view", view, width=160)
    assert result.exit_code == 0, result.output
    return result.output


def steps(output: str) -> dict[int, tuple[str, list[str]]]:
    """Each step's actor and printed lines, the step's two-space indent taken off."""
    out: dict[int, tuple[str, list[str]]] = {}
    current: list[str] | None = None
    for line in output.splitlines():
        rule = RULE.match(line)
        if rule:
            current = []
            out[int(rule.group(1))] = (rule.group(2), current)
        elif current is not None and line.startswith("  "):
            current.append(line[2:])
        else:
            current = None
    return out


class Shown(dict):
    """The output of a golden replay in a view, made on first use and kept for the module."""

    def __init__(self, folder) -> None:
        super().__init__()
        self.folder = folder

    def __missing__(self, key: tuple[str, str]) -> str:
        name, view = key
        self[key] = show(logfmt.read(GOLDEN[name]), view, self.folder)
        return self[key]


@pytest.fixture(scope="module")
def shown(tmp_path_factory):
    return Shown(tmp_path_factory.mktemp("shown"))


# (golden, view, step) -> who acted, and lines that step prints, exactly (checked by hand against the log).
KNOWN = {
    ("tails-on-fire-4-seats", "seat:2", 137): ("Green (random_bot)", [
        "Green passes",
        "Blue wins the round with 3 and takes fire card 1, stealing 1 fire card from Green",
        "Round 7: Blue leads; the Iguana pile shows 4 (3 cards left)",
        "Red (heuristic_tails_on_fire): bonfire 3 · stacks +1=9[7] 5[9,3] · exhausted 2 · 6 in hand, 3 to choose "
        "· 8 flames",
        "Green (random_bot): bonfire 1 · stacks 2[6] · exhausted none · 8 in hand, 3 to choose · 3 flames",
        "Blue (heuristic_tails_on_fire): bonfire 7 · stacks 3[1,2] · exhausted none · hand +1 1 2 4 5 6 8 9, "
        "3 to choose · 3 flames",
        "Iguana pile: 4 on top, 3 left",
        "Discard pile: empty",
        "Round 7, choosing opossums · starting number 4 · Blue leads · Red to act · 134 of 2000 turns",
    ]),
    ("tails-on-fire-4-seats", "spectator", 136): ("Red (heuristic_tails_on_fire)", [
        "Red passes",
        "Red (heuristic_tails_on_fire): bonfire 3 · stacks +1=9[7] 5[9,3] · exhausted 1 6 · 2 in hand, 2 chosen "
        "· 8 flames",
        "Blue (heuristic_tails_on_fire): bonfire 7 · stacks none · exhausted +1 9 · 4 in hand, 2 chosen · 1 flame",
        "Discard pile: Blue's 3 on top (3 cards)",
        "Round 6, the Hunt · starting number 1 · Green leads · Green to act · 133 of 2000 turns",
    ]),
    ("tails-on-fire-4-seats", "spectator", 5): ("Red (heuristic_tails_on_fire)", ["Red chooses an opossum"]),
    ("tails-on-fire-2-seats-rogue", "spectator", 12): ("Green (random_bot)", [
        "Green passes",
        "The Rogue draws 5, cannot play it, and puts it on its reserve",
        "Red wins the round with 7 and takes fire card 7",
        "Red (heuristic_tails_on_fire): bonfire 8 · stacks 7[7] · exhausted none · 8 in hand · 4 flames",
        "Green (random_bot): bonfire 9 · stacks none · exhausted none · 9 in hand · 1 flame",
        "Iguana pile: 2 on top, 8 left",
        "Round 2, shuffling · starting number 2 · Red leads · 8 of 2000 turns",
        "The Rogue: 9 cards in its deck · reserve empty",
    ]),
    ("tails-on-fire-2-seats-rogue", "full", 14): ("Red (heuristic_tails_on_fire)", ["Red chooses 2"]),
    ("nine-tails-3-seats", "seat:1", 7): ("Green (random_bot)", [
        "Green's F-GGSA performs Befuddle (counters on slots 3, 0)",
        "Red (heuristic_nine_tails): 0 ascended foxes · 3 trickery cards in hand",
        "  F-ACG*: 1 tail · slots ACG*C* · studies S-C*",
        "Green (random_bot): 0 ascended foxes · trickery hand Foxfire Insight, Hex",
        "  F-GGSA: 1 tail · slots GGSA (counters on 0, 3)",
        "Blue (random_bot): 0 ascended foxes · 3 trickery cards in hand",
        "  F-SSQC: 1 tail · slots SSQC",
        "Village: S-CG S-A*",
        "Supply: 38 counters · 7 starting foxes · 42 Wilds cards · 21 trickery cards · 10 Ascended Fox cards",
        "Trickery discards: none",
        "In play: Green's Befuddle with F-GGSA",
        "Turn: cancel window · Red active · Blue to decide · 0 of 3000 turns played · 2 ascended foxes win",
    ]),
    ("nine-tails-3-seats", "spectator", 371): ("end", [
        "The game is over (finished): Red 2nd, Green 1st, Blue 3rd",
        "Green (random_bot): 2 ascended foxes · 3 trickery cards in hand",
        "  F-QAC*: 1 tail · slots QAC* (counters on 0, 1)",
        "Turn: over · Green has won · 62 of 3000 turns played · 2 ascended foxes win",
    ]),
    ("lemur-tails", "seat:0", 3): ("chance", [
        "Red is dealt 8 cards: white 1, white 4, white 5, white 5, white 6, black 5, black 5, black 6",
        "Green is dealt 8 cards",
    ]),
    ("lemur-tails", "spectator", 3): ("chance", ["Red is dealt 8 cards", "Green is dealt 8 cards"]),
    ("lemur-tails", "seat:0", 16): ("Red (heuristic_lemur_tails)", [
        "Red ends turn 1",
        "Red (heuristic_lemur_tails): hand W1 · Sun lemurs 0 present, 2 empty · shortest tail 4, longest 5",
        "  white-ring tail: B5 W5 B6 W6 (4 cards)",
        "  black-ring tail: W4 B5 W5 B6 W5 (5 cards)",
        "Green (random_bot): 8 cards in hand · Sun lemurs 2 present, 0 empty · shortest tail 0, longest 0",
        "  white-ring tail: empty",
        "Market: W2 W4 B0 B3 B3 B8",
        "Deck: 65 cards, the End card in it",
        "Discard pile: empty",
        "Turn: Green's turn, cards to draw · turns played 1 / 0 · 0 added this turn · no series "
        "· 8 Sun lemurs set aside",
    ]),
}


@pytest.mark.parametrize(("name", "view", "step"), sorted(KNOWN))
def test_known_sentences_and_summary_lines_at_known_steps(shown, name, view, step):
    """The step's rule names the acting seat by colour and bot, and the step prints these exact lines."""
    actor, lines = KNOWN[name, view, step]
    printed = steps(shown[name, view])[step]
    assert printed[0] == actor
    missing = [line for line in lines if line not in printed[1]]
    assert missing == [], "\n".join(printed[1])


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GOLDEN))
@pytest.mark.parametrize("view", VIEWS)
def test_no_raw_dict_dump_and_the_result_lines_end_the_output(shown, name, view):
    """The three games print their summaries, never a raw ``{...}`` dump or a ``key value`` table row, and the
    output still ends with the result: why, then each seat's bot by rank."""
    output = shown[name, view]
    assert "{" not in output and "}" not in output
    assert not re.search(r"^\s+(phase|players|foxes|tails|hand sizes)\s{2,}", output, re.M)
    log = logfmt.read(GOLDEN[name])
    ranking = log["result"]["ranking"]
    ending = [f"result: {log['result']['reason']}"] + [
        f"  rank {ranking[s['seat']]}: seat {s['seat']} {s['bot']}"
        for s in sorted(log["seats"], key=lambda s: (ranking[s["seat"]], s["seat"]))]
    assert output.splitlines()[-len(ending):] == ending
    turns = [step for step, (actor, lines) in steps(output).items() if actor not in ("setup", "chance")]
    assert turns and all(steps(output)[step][1] for step in turns)


def hidden_lines(log: dict, viewer: int | None) -> set[str]:
    """Every line that would tell another seat's hidden cards: a hidden part's sentence, and each line a summary
    given that seat's own view prints beyond the summary of the table alone."""
    narrator = Narrator(log["game"])
    out = set()
    for event in log["events"]:
        if "private" in event and viewer not in event["audience"]:
            told = narrator.sentence(event["type"], event["data"], event["private"])
            if told != narrator.sentence(event["type"], event["data"]):
                out.add(told)
    names = render.seat_labels(log)
    for frame in render.frames(log, "full"):
        if frame.summary is None:
            continue
        public = set(narrator.summary(frame.table, names, {}))
        for seat, own in frame.own.items():
            if seat != viewer:
                out.update(set(narrator.summary(frame.table, names, {seat: own})) - public)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GOLDEN))
@pytest.mark.parametrize("view", ["spectator", "seat:1"])
def test_nothing_hidden_from_the_view_is_printed(shown, name, view, tmp_path):
    """A spectator or seat:1 sees no other seat's hand or hidden part, whether the log is full or redacted for
    that view (the two outputs are the same, so nothing printed depends on what the view may not see)."""
    log = logfmt.read(GOLDEN[name])
    secret = hidden_lines(log, logfmt.parse_view(view, len(log["seats"])))
    assert secret, "the golden game has hidden cards to keep"
    printed = {line.strip() for line in shown[name, view].splitlines()}
    assert sorted(line for line in secret if line.strip() in printed) == []
    assert show(logfmt.redact(log, view), view, tmp_path) == shown[name, view]
    full = {line.strip() for line in shown[name, "full"].splitlines()}
    assert any(line.strip() in full for line in secret), "the full view shows the hidden lines this test looks for"


@pytest.mark.slow
def test_a_seats_hidden_choice_changes_no_other_view(tmp_path):
    """Tails on Fire: two games in which seat 1 chooses other opossums print the same show for a spectator and
    for seat 0, though the full views differ."""
    engine = registry.get("tails-on-fire")
    seed = "show-twin"
    logs = []
    for last in (False, True):
        config = engine.configure(4)
        played = play(engine, config, seed, [Filtered(f"{seed}/0"), Chooser(last), Filtered(f"{seed}/2"),
                                             Filtered(f"{seed}/3")])
        seats = [SeatInfo(f"b{i}", "0" * 64) for i in range(4)]
        logs.append(logfmt.from_recorded(record(engine, config, seed, played, seats, game_id="twin",
                                                salt_key=b"t" * 32)))
    assert show(logs[0], "full", tmp_path) != show(logs[1], "full", tmp_path)
    for view in ("spectator", "seat:0"):
        assert show(logfmt.redact(logs[0], view), view, tmp_path) == show(logfmt.redact(logs[1], view), view, tmp_path)


def test_a_game_without_a_summary_falls_back_to_its_view_fields(tmp_path):
    """The toy game (no narration module) is told plainly, a hidden part marked, its table as key/value rows."""
    log = real_log("high-cards", "plain")
    output = show(log, "spectator", tmp_path)
    assert "Card committed: Red (hidden)" in output
    assert re.search(r"^\s+tricks\s{2,}\[0 0\]", output, re.M)
    assert "hand" not in output
    assert re.search(r"^\s+seat 1 hand\s{2,}\[\d+ \d+ \d+\]", show(log, "full", tmp_path), re.M)
    assert all(frame.summary is None for frame in render.frames(log, "spectator"))


# -- the log's own view and the terminal (issue 40, item 5) ---------------------------------


def test_a_redacted_log_is_shown_as_its_own_view_and_never_as_another_seats(tmp_path):
    """A seat:1 log: `replay show` without --view shows it as seat:1 (it said "as seen by full"); --view seat:0 and
    --view full are refused in the one line `replay html` gives, exit 1; --view spectator is shown."""
    log = logfmt.redact(logfmt.read(GOLDEN["lemur-tails"]), "seat:1")
    path = tmp_path / "seat1.json"
    path.write_bytes(logfmt.dumps(log))
    own = cli.invoke("replay", "show", str(path), width=160)
    assert own.exit_code == 0 and own.stdout.splitlines()[0].startswith(f"lemur-tails game {log['game_id']} as seen "
                                                                        "by seat:1: "), own.output
    assert own.stdout == cli.invoke("replay", "show", str(path), "--view", "seat:1", width=160).stdout
    for view in ("seat:0", "full"):
        refused = cli.invoke("replay", "show", str(path), "--view", view)
        page = cli.invoke("replay", "html", str(path), "--view", view, "-o", str(tmp_path / "p.html"))
        assert refused.exit_code == page.exit_code == 1
        assert refused.stderr == page.stderr == (
            f"error: {path}: a seat:1 log cannot be shown as {view}: it lacks the hidden cards that view sees (use "
            f"seat:1 or spectator, or export the game again with --view {view})\n")
    spectator = cli.invoke("replay", "show", str(path), "--view", "spectator", width=160)
    assert spectator.exit_code == 0 and " as seen by spectator: " in spectator.stdout.splitlines()[0]


@pytest.mark.slow
def test_colours_reach_a_terminal_as_colours_and_a_pipe_not_at_all(tmp_path):
    """On a terminal (a pseudo-terminal here) `replay show` colours its rules with real escape sequences (it printed
    them escaped, as the literal text `\\u001b[92m`); in a pipe it writes none, escaped or not."""
    path = GOLDEN["lemur-tails"]
    command = [*cli.COMMAND, "replay", "show", str(path)]
    piped = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0 and "\x1b" not in piped.stdout and "\\u001b" not in piped.stdout
    main, other = pty.openpty()
    process = subprocess.Popen(command, stdout=other, stderr=other, stdin=other, close_fds=True,
                               env={**os.environ, "COLUMNS": "160", "TERM": "xterm"})
    os.close(other)
    seen = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the other end closed: the command is done
            break
        if not chunk:
            break
        seen += chunk
    os.close(main)
    assert process.wait(timeout=120) == 0
    text = seen.decode("utf-8", "replace")
    assert "\x1b[" in text and "\\u001b" not in text, text[:300]
