"""Screenshots of the served league for docs/web.md, each at a desktop's width (1280 px) and a phone's
(390 px): a ladder's leaderboard, a game page with its replay, a bot's page, an owner's account page.

The browser tests write some to a temporary folder as they go; to refresh the ones docs/web.md shows
(a fresh seeded league, an owner's bot submitted and listed by the worker, `tourney serve
--submissions` on a free port, Debian's Chromium):

    python -m tests.web.screenshots docs/img
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

WIDTHS = (1280, 390)
HEIGHTS = {1280: 900, 390: 844}
LADDER_SHOT = "web-leaderboard-1280.png"
GAME_SHOT = "web-game-1280.png"
PAGES = ("leaderboard", "game", "bot", "account")
"""Each is shot at every width: web-PAGE-WIDTH.png."""


def name(page: str, width: int) -> str:
    return f"web-{page}-{width}.png"


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
                                      + b"\nimport sys\nprint('ember: thinking', file=sys.stderr)\n")},
                      data={"bot": "ember"})
        app.state.site.ledger.close()
        tourney("ladder", "work", LADDER, "--rounds", "1", "--games", "40", "--jobs", "2", "--seed", "5", "--db",
                league.path)
        shots(league, out)


def shots(league: Any, out: Path) -> None:
    from playwright.sync_api import sync_playwright

    from tests.browser import CHROMIUM, CHROMIUM_ARGS
    from tests.web.league import LADDER
    from tests.web.live import start, stop

    with sync_playwright() as driver:
        process, base = start(league, "--submissions")
        try:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            for width in WIDTHS:
                page = browser.new_page(viewport={"width": width, "height": HEIGHTS[width]})
                page.goto(f"{base}ladders/{LADDER}")
                shoot(page, out / name("leaderboard", width))
                page.locator("table.games a.game").first.click()
                page.get_by_role("link", name="full view", exact=True).click()
                frame = page.frame_locator("iframe.replay")
                frame.locator("#verify[data-verdict=verified]").wait_for()
                for _ in range(12):
                    frame.locator("#next").click()
                page.evaluate("window.scrollTo(0, 0)")
                shoot(page, out / name("game", width), full_page=True)
                page.goto(f"{base}sign-in")
                page.fill("input[name=token]", league.tokens["alice"])
                page.get_by_role("button", name="sign in").click()
                page.wait_for_url(f"{base}account")
                shoot(page, out / name("account", width), full_page=True)
                page.goto(f"{base}bots/ember")
                shoot(page, out / name("bot", width), full_page=True)
                page.context.close()
            browser.close()
        finally:
            stop(process)
    print(f"wrote {', '.join(name(page, width) for page in PAGES for width in WIDTHS)} to {out}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/img")
