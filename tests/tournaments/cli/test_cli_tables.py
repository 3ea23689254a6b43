"""Every table fits 80 columns (issue 31): numbers and headers whole, names cut with an ellipsis, short ids shown.

Each table is rendered at COLUMNS=80 from a league made once with the commands themselves (the
web tests' league, plus long names): no line is wider than 80; the header row is there whole, one
line; every number is the one `--json` gives, in full; a name is whole or a prefix of the real one
ending with an ellipsis; and the short id a table shows names the same thing as the name.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest

from tests.cli import invoke
from tests.web.league import LADDER, ROOT, seed
from tournaments.ratings.ranks import rank_ranges

LONG_BOT = "a_remarkably_long_bot_name_for_a_narrow_terminal"
LONG_TOURNAMENT = "an-uncommonly-long-tournament-name-for-an-eighty-column-terminal"


def tourney(*args, columns: int = 80) -> str:
    result = invoke(*args, width=columns, env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    """The web tests' league, a tournament of long-named bots under a long name, and a match."""
    folder = tmp_path_factory.mktemp("tables")
    path = folder / "league.db"
    seed(path, folder)
    bots = folder / "long"
    bots.mkdir()
    for name in (LONG_BOT, "heuristic_tails_on_fire", "random_bot"):
        shutil.copy(ROOT / "bots" / ("random_bot.py" if name == LONG_BOT else f"{name}.py"), bots / f"{name}.py")
    tourney("run", bots, "--game", "tails-on-fire", "--players", "3", "--games", "1", "--seed", "1", "--jobs", "0",
            "--sandbox", "off", "--name", LONG_TOURNAMENT, "--db", path)
    tourney("match", bots / f"{LONG_BOT}.py", "random_bot", "--bots", bots, "--game", "lemur-tails", "--games", "2",
            "--seed", "1", "--jobs", "0", "--sandbox", "off", "--name", "long-match", "--db", path)
    tourney("ladder", "submit", LADDER, ROOT / "bots" / "random_bot.py", "--as", LONG_BOT, "--db", path)
    tourney("ladder", "create", "autumn", "--game", "tails-on-fire", "--db", path)  # OpenSkill: other columns
    tourney("ladder", "submit", "autumn", ROOT / "bots" / "random_bot.py", "--as", LONG_BOT, "--db", path)
    return path


def rows_of(output: str, headers: list[str], count: int | None = None) -> list[list[str]]:
    """The table's body lines (``count`` of them, else all to the end), split at spaces, after checking its
    shape at 80 columns: no line wider, and the header row there once, whole, on one line."""
    lines = output.splitlines()
    assert max(len(line) for line in lines) <= 80, output
    heading = [i for i, line in enumerate(lines) if line.split() == headers]
    assert len(heading) == 1, f"no single whole header row {headers} in:\n{output}"
    body = lines[heading[0] + 2:]  # the header row, then its rule
    return [line.split() for line in (body if count is None else body[:count])]


def named(shown: str, real: str) -> bool:
    """A cell shows a name whole, or cut: a prefix of it ending with an ellipsis."""
    return shown == real or (shown.endswith("…") and real.startswith(shown[:-1]) and len(shown) >= 8)


@pytest.mark.slow
def test_standings_fit_and_their_numbers_and_short_ids_are_whole(db):
    """`tourney standings` at 80: every cell equals the JSON's, the long name cut, its id taken by `games --bot`."""
    data = json.loads(tourney("standings", LONG_TOURNAMENT, "--json", "--db", db))["standings"]
    rows = rows_of(tourney("standings", LONG_TOURNAMENT, "--db", db),
                   ["#", "id", "bot", "games", "first", "place", "score", "Elo", "95%", "CI", "forfeits"], len(data))
    assert len(rows) == len(data) == 3
    for cells, row in zip(rows, data, strict=True):
        assert cells[:2] == [str(row["rank"]), str(row["bot_id"])] and named(cells[2], row["bot"])
        assert cells[3:] == [str(row["games"]), str(row["first"]), f"{row['mean_place']:.2f}", f"{row['score']:.1f}%",
                             f"{row['elo']:.0f}", f"{row['ci_low']:.0f}-{row['ci_high']:.0f}", str(row["forfeits"])]
    long_id = next(cells[1] for cells in rows if cells[2].startswith("a_remarkably"))
    assert any(cells[2].endswith("…") for cells in rows)
    by_id = tourney("games", LONG_TOURNAMENT, "--bot", long_id, "--json", "--db", db)
    assert by_id == tourney("games", LONG_TOURNAMENT, "--bot", LONG_BOT, "--json", "--db", db)


@pytest.mark.slow
def test_the_matrices_fit_with_short_ids_for_columns(db):
    """--los and --head-to-head at 80: columns headed by the bots' short ids, rows by id and (cut) name."""
    output = tourney("standings", LONG_TOURNAMENT, "--los", "--head-to-head", "--db", db)
    assert max(len(line) for line in output.splitlines()) <= 80
    data = json.loads(tourney("standings", LONG_TOURNAMENT, "--json", "--db", db))
    ids = [str(row["bot_id"]) for row in data["standings"]]
    assert sum(line.split() == ["id", "bot", *ids] for line in output.splitlines()) == 2
    first, second = data["standings"][0]["bot"], data["standings"][1]["bot"]
    wins, draws, losses = data["head_to_head"][first][second]["wins"], data["head_to_head"][first][second]["draws"], \
        data["head_to_head"][first][second]["losses"]
    assert any(line.split()[:4] == [ids[0], line.split()[1], "-", f"{wins}-{draws}-{losses}"]
               for line in output.splitlines() if line.split() and line.split()[0] == ids[0])


def test_list_fits_and_its_ids_name_the_tournament_and_the_ladder(db):
    """`tourney list` at 80: the long tournament name cut; its id works for `standings`, the ladder's for ladders."""
    data = json.loads(tourney("list", "--json", "--db", db))
    expected = [*data["tournaments"], *data["ladders"]]
    rows = rows_of(tourney("list", "--db", db), ["id", "name", "kind", "game", "bots", "games", "created", "(UTC)"],
                   len(expected))
    assert len(rows) == len(expected)
    for cells, row in zip(rows, expected, strict=True):
        assert cells[0] == row["ref"] == (f"L{row['id']}" if row["kind"] == "ladder" else str(row["id"]))
        assert named(cells[1], row["name"])
        assert cells[2:6] == [row["kind"], row["game"], str(row["bots"]), str(row["games"])]
    long_row = next(cells for cells in rows if cells[1].startswith("an-uncommonly"))
    assert long_row[1].endswith("…")
    assert tourney("standings", long_row[0], "--json", "--db", db) == tourney("standings", LONG_TOURNAMENT, "--json",
                                                                              "--db", db)
    ladder_id = next(cells[0] for cells in rows if cells[2] == "ladder" and cells[1] == LADDER)
    assert tourney("ladder", "standings", ladder_id, "--json", "--db", db) == tourney(
        "ladder", "standings", LADDER, "--json", "--db", db)


def test_games_fit_with_a_row_per_seat_and_short_game_ids(db):
    """`tourney games` at 80: a row per seat (rank whole; no score column, as no game of these keeps one), the game's
    short id, which `replay show` takes."""
    rows = rows_of(tourney("games", "cup", "--db", db), ["key", "game", "id", "seat", "bot", "rank", "forfeit"])
    data = json.loads(tourney("games", "cup", "--json", "--db", db))
    seats = [seat for game in data for seat in game["seats"]]
    starts = [cells for cells in rows if cells and re.fullmatch(r"t\d+-d\d+-r\d+", cells[0])]
    assert len(starts) == len(data)
    for cells, game in zip(starts, data, strict=True):
        assert cells[0] == game["key"] and game["game_id"].startswith(cells[1]) and len(cells[1]) == 12
    seat_rows = [cells[2:] if cells in starts else cells for cells in rows
                 if cells in starts or (cells and cells[0].isdigit() and len(cells) >= 3)]
    assert [(cells[0], cells[2]) for cells in seat_rows] == [(str(s["seat"]), str(s["rank"])) for s in seats]
    assert all(named(cells[1], s["bot"]) for cells, s in zip(seat_rows, seats, strict=True))
    shown = invoke("replay", "show", starts[0][1], "--db", db)
    assert shown.exit_code == 0 and data[0]["game_id"] in shown.stdout


def test_ladder_tables_fit_and_a_bots_short_id_names_it(db):
    """`ladder standings`, `ladder list`, `ladder history`, `ladder queue` and `users list` at 80 columns."""
    data = json.loads(tourney("ladder", "standings", LADDER, "--json", "--db", db))
    rows = rows_of(tourney("ladder", "standings", LADDER, "--db", db),
                   ["#", "id", "bot", "version", "rating", "±", "95%", "games", "forfeits"], len(data))
    for cells, row in zip(rows, data, strict=True):  # a name may hold spaces: the cells around it are checked
        at = cells.index(f"v{row['version']}")
        assert cells[0] == str(row["rank"]) and named(" ".join(cells[2:at]), row["bot"])
        assert cells[at + 1:at + 5] == [f"{row['rating']:.0f}", f"{row['margin']:.0f}", str(row["games"]),
                                        str(row["forfeits"])]
    # The ranks each holds at 95% (tournaments/ratings/ranks.py), and the line naming the runs of tied ranks.
    estimates = [(row["rating"], row["margin"] / 1.96) for row in data]
    ranged = rank_ranges(estimates)
    assert [row["rank_range"] for row in data] == [[r.low, r.high] for r in ranged]
    assert [row["tied"] for row in data] == [r.tied_above for r in ranged]
    assert all(low <= row["rank"] <= high for row in data for low, high in [row["rank_range"]])
    standings_out = tourney("ladder", "standings", LADDER, "--db", db)
    assert ("tied at 95%: #1-#3 (--json" in standings_out) is all(row["tied"] for row in data[1:])
    long_row = next(cells for cells in rows if cells[2].startswith("a_remarkably"))
    assert long_row[2].endswith("…")
    assert tourney("ladder", "history", LADDER, long_row[1], "--json", "--db", db) == tourney(
        "ladder", "history", LADDER, LONG_BOT, "--json", "--db", db)
    skill = json.loads(tourney("ladder", "standings", "autumn", "--json", "--db", db))
    (row,) = rows_of(tourney("ladder", "standings", "autumn", "--db", db),
                     ["#", "id", "bot", "version", "mu", "-", "3σ", "mu", "σ", "games", "forfeits"], 1)
    assert named(row[2], LONG_BOT) and row[3:8] == ["v1", f"{skill[0]['rating']:.2f}", f"{skill[0]['mu']:.2f}",
                                                    f"{skill[0]['sigma']:.2f}", "0"]
    rows_of(tourney("ladder", "list", "--db", db), ["id", "ladder", "game", "players", "active", "bots", "games"])
    rows_of(tourney("ladder", "queue", LADDER, "--all", "--db", db),
            ["match", "session", "deal", "table", "status", "worker", "attempts"])
    rows_of(tourney("users", "list", "--db", db), ["owner", "bots", "added", "(UTC)"])
    heuristic = json.loads(tourney("ladder", "history", LADDER, data[0]["bot"], "--json", "--db", db))
    if heuristic:
        rows_of(tourney("ladder", "history", LADDER, data[0]["bot"], "--db", db),
                ["ladder", "game", "version", "rank", "rating", "game", "id"])


def test_a_match_fits_as_its_standings_and_its_report_lines(db):
    """A match's `standings` fit 80 columns like a tournament's; its report's lines fit too (short names)."""
    rows_of(tourney("standings", "long-match", "--db", db),
            ["#", "id", "bot", "games", "first", "place", "score", "Elo", "95%", "CI", "forfeits"])
    again = tourney("match", "random_bot", "random_bot", "--bots", ROOT / "bots", "--game", "lemur-tails",
                    "--games", "2", "--seed", "1", "--jobs", "0", "--sandbox", "off", "--db", db)
    report = [line for line in again.splitlines() if line.startswith(("Score of", "Elo:", "LOS:", "Ptnml"))]
    assert len(report) == 4 and max(len(line) for line in report) <= 80
