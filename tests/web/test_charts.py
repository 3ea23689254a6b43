"""The server-drawn SVG charts: escaped labels, points placed on the shared axes, no style attributes."""

from __future__ import annotations

import re

from web import charts


def test_a_chart_escapes_its_labels_and_uses_no_style_attribute():
    """Series names and labels are text in the SVG, never markup; colours come from classes (the CSP
    forbids style attributes)."""
    svg = str(charts.chart([("<script>x</script>", [(1, 1500.0), (2, 1516.0)])], label='"><b>'))
    assert "<script>" not in svg and "&lt;script&gt;" in svg and "<b>" not in svg
    assert "style=" not in svg and 'class="series-0"' in svg


def test_points_share_the_x_axis_of_ladder_games():
    """Two bots' lines are placed by ladder game: the one that joined later starts further right."""
    svg = str(charts.chart([("a", [(1, 1500.0), (10, 1600.0)]), ("b", [(5, 1500.0), (10, 1400.0)])],
                           width=640, height=260))
    lines = [re.findall(r"([\d.]+),([\d.]+)", match) for match in re.findall(r'points="([^"]*)"', svg)]
    (a_start, _), (b_start, _) = lines[0][0], lines[1][0]
    assert float(a_start) == 48.0 and float(b_start) > float(a_start)
    assert lines[0][-1][0] == lines[1][-1][0]  # both end on game 10
    highest = min(float(y) for line in lines for _, y in line)
    assert highest == float(lines[0][-1][1])  # 1600 is drawn highest (smallest y)


def test_no_games_draws_a_note_not_an_error():
    """A ladder without rated games gets a chart saying so; a bot with one game gets an empty sparkline."""
    assert "no rated games yet" in str(charts.chart([("a", [])]))
    assert "polyline" not in str(charts.sparkline([1500.0], label="a"))


def test_a_chart_of_more_bots_than_colours_says_which_it_draws():
    """Ten bots with rated games: the first 8 given (a leaderboard's best) are drawn, and a note says so; eight
    or fewer get no note."""
    ten = [(f"bot-{n}", [(1, 1500.0 + n), (2, 1510.0 - n)]) for n in range(10)]
    svg = str(charts.chart(ten))
    assert svg.count("<polyline") == 8 and "bot-7" in svg and "bot-8" not in svg
    assert "the 8 best-ranked of the 10 bots with rated games" in svg
    assert "chart-note" not in str(charts.chart(ten[:8]))
    assert "chart-note" not in str(charts.chart([*ten[:8], ("unrated", [])]))  # a bot with no game is no line
