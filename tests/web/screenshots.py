"""Screenshots of the served league for docs/web.md: a leaderboard and a game page.

The browser tests write them to a temporary folder as they go; to refresh the ones docs/web.md
shows (a fresh seeded league, `tourney serve` on a free port, Debian's Chromium):

    python -m tests.web.screenshots docs/img
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

LADDER_SHOT = "web-leaderboard.png"
GAME_SHOT = "web-game.png"
WIDTH, HEIGHT = 1280, 1000


def shoot(page: Any, out: Path, full_page: bool = False) -> None:
    page.screenshot(path=str(out), full_page=full_page)


def main(folder: str) -> None:
    from tests.web.league import LADDER, ROOT, Api, seed, tourney
    from web.app import create_app
    from web.settings import Settings

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        league = seed(Path(work) / "league.db", Path(work))
        tourney("ladder", "publish", LADDER, "full", "--db", league.path)  # the shot shows every hand
        # An owner's bot, submitted through the API and listed by the worker, and a few more games.
        app = create_app(Settings(db=str(league.path), submissions=True))
        Api(app).post(f"/api/ladders/{LADDER}/submissions", token=league.tokens["alice"],
                      files={"file": ("ember.py", (ROOT / "bots" / "heuristic_tails_on_fire.py").read_bytes()
                                      + b"\n# ember\n")}, data={"bot": "ember"})
        app.state.site.ledger.close()
        tourney("ladder", "work", LADDER, "--rounds", "1", "--games", "40", "--jobs", "2", "--seed", "5", "--db",
                league.path)
        shots(league, out)


def shots(league: Any, out: Path) -> None:
    from playwright.sync_api import sync_playwright

    from tests.browser import CHROMIUM, CHROMIUM_ARGS
    from tests.web.league import LADDER
    from tests.web.live import start

    with sync_playwright() as driver:
        process, base = start(league)
        try:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
            page.goto(f"{base}ladders/{LADDER}")
            shoot(page, out / LADDER_SHOT)
            page.locator("table.games a.game").first.click()
            page.get_by_role("link", name="full view", exact=True).click()
            frame = page.frame_locator("iframe.replay")
            frame.locator("#verify[data-verdict=verified]").wait_for()
            for _ in range(12):
                frame.locator("#next").click()
            page.evaluate("window.scrollTo(0, 0)")
            shoot(page, out / GAME_SHOT, full_page=True)
            browser.close()
        finally:
            process.terminate()
            process.wait(timeout=30)
    print(f"wrote {out / LADDER_SHOT} and {out / GAME_SHOT}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/img")
