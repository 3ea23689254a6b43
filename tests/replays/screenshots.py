"""Screenshots of the replay page, one per game at a mid-game step.

The browser tests write them to a temporary folder; to refresh the ones docs/replays.md shows:

    python -m tests.replays.screenshots docs/img
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from replays import html as page
from replays import log as logfmt
from tests.golden.cases import CASES

SHOTS = {  # golden replay -> the step shown (mid-game, with cards on the table)
    "tails-on-fire-4-seats": 118,
    "nine-tails-3-seats": 160,
    "lemur-tails": 70,
}
WIDTH, HEIGHT = 1400, 900


def write_page(name: str, folder: Path, view: str = "full") -> Path:
    """The page of golden replay ``name``, written to ``folder``."""
    path = folder / f"{name}.html"
    page.write_page(logfmt.read(next(case.path for case in CASES if case.name == name)), path, view)
    return path


def shoot(viewer: Any, out: Path) -> None:
    """A screenshot of an open page once its log has been checked (its verdict is in)."""
    viewer.wait_for_selector("#verify:not([data-verdict=pending])")
    viewer.screenshot(path=str(out))


def main(folder: str) -> None:
    import tempfile

    from playwright.sync_api import sync_playwright

    from tests.browser import CHROMIUM, CHROMIUM_ARGS

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as pages, sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        for name, step in SHOTS.items():
            viewer = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
            viewer.goto(write_page(name, Path(pages)).as_uri() + f"#step={step}")
            shoot(viewer, out / f"replay-{name}.png")
            print(f"wrote {out / f'replay-{name}.png'}")
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/img")
