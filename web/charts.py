"""Rating charts drawn by the server as inline SVG: no script, no library, nothing fetched.

Colours come from the site's style sheet (classes ``series-0`` ... ``series-7``), never from
style attributes, which the Content-Security-Policy forbids. Every text is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from markupsafe import Markup

SERIES = 8


def sparkline(values: Sequence[float], width: int = 120, height: int = 28, label: str = "") -> Markup:
    """A small line of ``values`` (a bot's rating, game after game), for a leaderboard row."""
    title = f"<title>{escape(label)}</title>" if label else ""
    if len(values) < 2:
        return Markup(f'<svg class="spark" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
                      f'role="img" aria-label="{escape(label or "no games yet")}">{title}</svg>')
    points = _points(values, 0, len(values) - 1, min(values), max(values), 2, 2, width - 4, height - 4)
    return Markup(f'<svg class="spark" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
                  f'aria-label="{escape(label)}">{title}<polyline class="series-0" points="{points}"/></svg>')


def chart(series: Sequence[tuple[str, Sequence[tuple[float, float]]]], width: int = 640, height: int = 260,
          label: str = "rating history", x_label: str = "game", what: str = "bots", of: int | None = None) -> Markup:
    """Ratings as lines of (x, rating) points, one line per series (a bot, or a version), on a shared x axis
    (a ladder's game number), with its axes and a legend. At most ``SERIES`` lines, the first ones given
    (a leaderboard gives them best first); a chart that leaves some out says how many ("the 8 best-ranked
    of 14 bots with rated games"; ``of``: how many have rated games, when only the first ones' points are given)."""
    rated = [(name, list(points)) for name, points in series if points]
    drawn = rated[:SERIES]
    left, top, right, bottom = 48, 10, width - 10, height - 28
    parts = [f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="{escape(label)}">'
             f"<title>{escape(label)}</title>"]
    if not drawn:
        parts.append(f'<text x="{width / 2:.0f}" y="{height / 2:.0f}" class="axis" text-anchor="middle">'
                     "no rated games yet</text></svg>")
        return Markup("".join(parts))
    low = min(y for _, points in drawn for _, y in points)
    high = max(y for _, points in drawn for _, y in points)
    if high - low < 20:
        low, high = low - 10, high + 10
    first = min(x for _, points in drawn for x, _ in points)
    last = max(x for _, points in drawn for x, _ in points)
    for fraction in (0.0, 0.5, 1.0):
        y = bottom - fraction * (bottom - top)
        value = low + fraction * (high - low)
        parts.append(f'<line class="grid" x1="{left}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}"/>'
                     f'<text class="axis" x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{value:.0f}</text>')
    parts.append(f'<text class="axis" x="{left}" y="{height - 10}">{escape(x_label)} {first:.0f}</text>'
                 f'<text class="axis" x="{right}" y="{height - 10}" text-anchor="end">{escape(x_label)} {last:.0f}'
                 "</text>")
    span_x = (last - first) or 1.0
    span_y = high - low
    for index, (name, points) in enumerate(drawn):
        coordinates = " ".join(f"{left + (right - left) * (x - first) / span_x:.1f},"
                               f"{top + (bottom - top) * (1 - (y - low) / span_y):.1f}" for x, y in points)
        parts.append(f'<polyline class="series-{index}" points="{coordinates}"><title>{escape(name)}</title>'
                     "</polyline>")
    parts.append("</svg>")
    legend = "".join(f'<li><span class="swatch series-{index}"></span>{escape(name)}</li>'
                     for index, (name, _) in enumerate(drawn))
    counted = max(len(rated), of or 0)
    left_out = (f'<p class="note chart-note">Drawn: the {len(drawn)} best-ranked of the {counted} {escape(what)} '
                "with rated games (each bot's page draws its own).</p>" if counted > len(drawn) else "")
    return Markup("".join(parts) + f'<ul class="legend">{legend}</ul>' + left_out)


def _points(values: Sequence[float], first: int, last: int, low: float, high: float, x: float, y: float,
            width: float, height: float) -> str:
    span = (high - low) or 1.0
    steps = (last - first) or 1
    return " ".join(f"{x + width * i / steps:.1f},{y + height * (1 - (v - low) / span):.1f}"
                    for i, v in enumerate(values))
