"""What `tourney run` and `tourney match` print while they play (issue 31): fastchess's and cutechess-cli's lines.

Off a terminal (a test's pipe) each finished game is a line, `Finished game N (A vs B): 1-0 {reason}`, and
the standings (a match: its statistics) come every --report-every games; on a terminal a bar with the
report above it; --progress chooses. A match's statistics read like fastchess's, with finite one-sided
bounds where every pair was won, and a last line saying why it stopped.
"""

from __future__ import annotations

import io
import json
import math
import re
import shlex
import shutil
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text

from tests.cli import invoke as tourney
from tournaments.cli import report
from tournaments.ratings import sprt

ROOT = Path(__file__).resolve().parents[3]
BOTS = ROOT / "bots"
FINISHED = re.compile(r"Finished game (\d+) \((.+)\): (1-0|0-1|1/2-1/2|places [\d-]+) \{(.+)\}")



@pytest.fixture
def pair(tmp_path):
    """A folder of two random bots and one that raises at its second turn."""
    folder = tmp_path / "bots"
    folder.mkdir()
    shutil.copy(BOTS / "random_bot.py", folder / "alpha.py")
    shutil.copy(BOTS / "random_bot.py", folder / "beta.py")
    shutil.copy(ROOT / "tests" / "tournaments" / "bots" / "raises.py", folder / "raises.py")
    return folder


def play(folder, db, *extra):
    return tourney("run", folder, "--game", "lemur-tails", "--games", "2", "--seed", "5", "--sandbox", "off",
                   "--jobs", "0", "--db", db, *extra)


def test_a_line_per_game_and_the_standings_every_n_games(pair, tmp_path):
    """Off a terminal: 12 numbered game lines, each with its bots, result and reason (a forfeit names the bot and
    why); the standings after games 5 and 10 (not after 12: the final table follows), with no wait between
    reports (--report-seconds 0)."""
    result = play(pair, tmp_path / "t.db", "--report-every", "5", "--report-seconds", "0")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    games = [FINISHED.fullmatch(line) for line in lines if line.startswith("Finished game")]
    assert all(games) and [int(m.group(1)) for m in games] == list(range(1, 13))
    # Played here (--jobs 0), the games are stored in the schedule's order, which is `tourney games`'s.
    data = json.loads(tourney("games", "--json", "--db", tmp_path / "t.db").stdout)
    assert [m.group(2) for m in games] == [" vs ".join(s["bot"] for s in g["seats"]) for g in data]
    assert [m.group(3) for m in games] == [report.outcome([s["rank"] for s in g["seats"]]) for g in data]
    forfeits = [m for m in games if m.group(4) != "finished"]
    reason = "raises forfeited: bot failure: crashed: RuntimeError: the bot tripped over its tail"
    assert forfeits and all(m.group(4) == reason for m in forfeits)
    titles = [line.strip() for line in lines if line.strip().startswith("standings after")]
    assert titles == ["standings after 5 games of 12", "standings after 10 games of 12"]
    reports = [i for i, line in enumerate(lines) if line.strip().startswith("standings after")]
    assert lines[reports[0] - 1].startswith("Finished game 5 ") and lines[reports[0] + 1].split() == [
        "#", "bot", "Elo", "+/-", "games", "score", "draws", "LOS"]


@pytest.mark.slow
def test_the_output_ends_with_the_legend_and_how_to_look_at_a_game(pair, tmp_path):
    """After the table and who vouches for it: four lines saying what orders the table (Elo, not score) and what
    Elo, the interval and score mean, the `replay html` command of the tournament's first game and, as a bot
    forfeited, the `games --forfeits` command that says why: both work as printed."""
    db = tmp_path / "t.db"
    result = play(pair, db, "--progress", "none", "--name", "cup 7")
    assert result.exit_code == 0 and "Finished game" not in result.stdout
    tail = result.stdout.splitlines()[-6:]
    assert tail[:4] == list(report_legend())
    command = re.fullmatch(r"Look at a game: tourney replay html ([0-9a-f]{12}) --db (\S+) -o game\.html", tail[4])
    assert command and command.group(2) == str(db)
    page = tourney("replay", "html", command.group(1), "--db", db, "-o", tmp_path / "game.html")
    assert page.exit_code == 0 and (tmp_path / "game.html").stat().st_size > 1000
    assert tail[5] == f"Why a bot forfeited: tourney games 'cup 7' --forfeits --db {db}"
    why = tourney(*shlex.split(tail[5].split(": ", 1)[1])[1:])
    assert why.exit_code == 0 and "In the bots' own words" in why.stdout and "raises" in why.stdout, why.output


@pytest.mark.slow
def test_a_run_with_no_forfeit_ends_with_how_to_look_at_a_game(tmp_path):
    """No bot forfeited: no line pointing to `games --forfeits`."""
    folder = tmp_path / "bots"
    folder.mkdir()
    for name in ("alpha.py", "beta.py"):
        shutil.copy(BOTS / "random_bot.py", folder / name)
    result = play(folder, tmp_path / "t.db", "--progress", "none")
    assert result.exit_code == 0 and result.stdout.splitlines()[-1].startswith("Look at a game: ")
    assert "--forfeits" not in result.stdout


def report_legend():
    from tournaments.cli.run import LEGEND

    assert len(LEGEND) == 4 and all(len(line) <= 80 for line in LEGEND)
    assert LEGEND[0].startswith("Ranked by Elo, not by score")
    return LEGEND


@pytest.mark.slow
def test_report_every_0_and_json_print_no_report(pair, tmp_path):
    """--report-every 0: game lines, no standings before the end; --json: JSON only, whatever the pipe."""
    quiet = play(pair, tmp_path / "a.db", "--report-every", "0")
    assert "standings after" not in quiet.stdout and quiet.stdout.count("Finished game") == 12
    as_json = play(pair, tmp_path / "b.db", "--json")
    assert as_json.exit_code == 0 and json.loads(as_json.stdout)["games"] == 12


def test_places_for_more_seats(tmp_path, pair):
    """Three seats: the result is each seat's place, `places 1-3-2`."""
    result = tourney("run", pair, "--game", "nine-tails", "--games", "1", "--seed", "2", "--sandbox", "off",
                     "--jobs", "0", "--db", tmp_path / "n.db")
    assert result.exit_code == 0, result.output
    found = [FINISHED.fullmatch(line) for line in result.stdout.splitlines() if line.startswith("Finished game")]
    assert len(found) == 3 and all(m and re.fullmatch(r"places [123]-[123]-[123]", m.group(3)) for m in found)


class Stored:
    """A stand-in for a stored game's result: the seats and ranks a line is made from."""

    def __init__(self, names, ranking):
        from replays.record import SeatInfo

        class Recorded:
            seats = tuple(SeatInfo(name, "0" * 64) for name in names)
            records = ()
            reason = "finished"

        Recorded.ranking = tuple(ranking)
        self.recorded = Recorded()


def test_a_report_waits_for_its_seconds(pair, tmp_path):
    """A report falls due every --report-every games but waits --report-seconds after the last one: with a report
    due after every game and an hour between reports, only the first is shown."""
    result = play(pair, tmp_path / "t.db", "--report-every", "1", "--report-seconds", "3600")
    titles = [line.strip() for line in result.stdout.splitlines() if line.strip().startswith("standings after")]
    assert result.exit_code == 0 and titles == ["standings after 1 game of 12"]


def test_a_report_waits_ten_times_what_the_last_one_cost(monkeypatch):
    """However short --report-seconds is (but 0), the next report waits ten times the CPU time the last one took,
    so reports cost the organiser a bounded share of its time: a report that takes 1 s of CPU, due after every game,
    is made once while games come faster than 10 s apart."""
    clock = {"cpu": 0.0, "wall": 100.0}
    monkeypatch.setattr(report.time, "process_time", lambda: clock["cpu"])
    monkeypatch.setattr(report.time, "monotonic", lambda: clock["wall"])
    made = []

    def costly():
        clock["cpu"] += 1.0
        made.append(clock["wall"])
        return Text("REPORT")

    display = report.Display(Console(file=io.StringIO()), report.LINES, 1, 100, 0, costly, seconds=0.001)
    for _ in range(20):
        display.game(Stored(["a", "b"], [1, 2]))
        clock["wall"] += 1.0
    assert made == [100.0, 110.0]


def test_report_seconds_zero_reports_every_n_games_whatever_they_cost(monkeypatch):
    """--report-seconds 0 asks for every report (docs/tournaments.md): a report of 1 s of CPU due after every
    other game is made after each of them, however fast the games come, on a fast machine as on a slow one."""
    clock = {"cpu": 0.0}
    monkeypatch.setattr(report.time, "process_time", lambda: clock["cpu"])
    monkeypatch.setattr(report.time, "monotonic", lambda: 100.0)  # no time passes between games
    made = []

    def costly():
        clock["cpu"] += 1.0
        made.append(len(made) + 1)
        return Text("REPORT")

    display = report.Display(Console(file=io.StringIO()), report.LINES, 2, 12, 0, costly, seconds=0.0)
    for _ in range(12):
        display.game(Stored(["a", "b"], [1, 2]))
    assert made == [1, 2, 3, 4, 5]  # after games 2, 4, 6, 8 and 10; game 12's is the final table


def test_on_a_terminal_the_bar_carries_the_latest_report():
    """--progress bar: no game lines; after every N games the report is drawn above the bar."""
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=80)
    made = []

    def the_report():
        made.append(len(made) + 1)
        return Text(f"REPORT {len(made)}")

    display = report.Display(console, report.BAR, 2, 6, 0, the_report)
    with display:
        for _ in range(5):
            display.game(Stored(["a", "b"], [1, 2]))
    shown = screen.getvalue()
    assert "Finished game" not in shown and made == [1, 2] and "REPORT 2" in shown


def test_lines_mode_prints_results_as_chess_testers_write_them():
    """1-0, 0-1, 1/2-1/2, and the report every N games but not at the last one."""
    screen = io.StringIO()
    console = Console(file=screen, width=200)
    display = report.Display(console, report.LINES, 2, 4, 0, lambda: Text("REPORT"))
    for ranking in ([1, 2], [2, 1], [1, 1], [2, 1]):
        display.game(Stored(["a", "b"], ranking))
    assert screen.getvalue().splitlines() == [
        "Finished game 1 (a vs b): 1-0 {finished}", "Finished game 2 (a vs b): 0-1 {finished}", "REPORT",
        "Finished game 3 (a vs b): 1/2-1/2 {finished}", "Finished game 4 (a vs b): 0-1 {finished}"]


def test_every_pair_won_gives_finite_one_sided_bounds():
    """150 pairs all won: Elo >= the logistic Elo of 0.025^(1/150), nElo >= that of a sample scoring 1 with that
    chance (never +inf); all lost: the same bounds, negated."""
    won = sprt.estimate(sprt.pentanomial([0, 0, 0, 0, 150]), 2)
    p = 0.025 ** (1 / 150)
    assert won.bound == pytest.approx((400 * math.log10(p / (1 - p)),
                                       (p - 0.5) / math.sqrt(2 * p * (1 - p)) * 800 / math.log(10)))
    assert won.bound == pytest.approx((641.54, 759.11), abs=0.01)
    lost = sprt.estimate(sprt.trinomial(0, 0, 30), 1)
    assert lost.bound == pytest.approx(tuple(-x for x in sprt.one_sided(30, 1, True)))
    assert sprt.estimate(sprt.pentanomial([0, 1, 0, 0, 149]), 2).bound is None


def test_expected_samples_follow_the_llr_slope():
    """Wald's approximation: at an LLR of 1.0 after 20 samples, the upper bound 2.94 is about 59 samples away."""
    assert sprt.expected_samples(1.0, 20, (-2.94, 2.94)) == pytest.approx(58.8)
    assert sprt.expected_samples(-0.5, 10, (-2.94, 2.94)) == pytest.approx(58.8)
    assert sprt.expected_samples(0.0, 10, (-2.94, 2.94)) is None


def test_a_match_prints_fastchess_lines_and_why_it_stopped(tmp_path):
    """An SPRT match cut short by --games: per-game lines, then Score/Elo/LOS/Ptnml/LLR and "no decision", naming
    --games and the LLR's place between the bounds."""
    result = tourney("match", "random_bot", "random_bot", "--bots", BOTS, "--game", "lemur-tails", "--sprt",
                     "default", "--games", "2", "--seed", "1", "--jobs", "0", "--sandbox", "off", "--db",
                     tmp_path / "m.db")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert sum(line.startswith("Finished game ") for line in lines) == 4
    at = next(i for i, line in enumerate(lines) if line.startswith("Score of random_bot vs random_bot#2: "))
    assert lines[at + 1].startswith("Elo: ")
    assert lines[at + 2].startswith("LOS: ") and lines[at + 2].endswith("2 pairs")
    assert lines[at + 3].startswith("Ptnml(0-2): [")
    assert re.fullmatch(r"LLR: -?\d+\.\d\d \(-2\.94, 2\.94\) \[0\.00, 5\.00\]", lines[at + 4])
    assert re.fullmatch(r"Stopped: no decision after 2 pairs \(4 games\): --games 2 deals were played and the LLR "
                        r"-?\d+\.\d\d is still between -2\.94 and 2\.94", lines[at + 5])
    assert lines[at + 6:] == []
