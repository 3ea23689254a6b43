"""A seeded league for the web tests: a tournament with a forfeit, another whose name holds "/", a
two-seat Elo ladder whose bots include one named like an HTML injection, a three-seat OpenSkill
ladder where three bots come from one file (random_bot, twin-a, twin-b), two owners with tokens.

Made once per session with the `tourney` commands themselves (tests copy the file before
writing to it); ``python -m tests.web.league PATH`` makes one to look at with `tourney serve`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import shutil
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from tests.cli import invoke

ROOT = Path(__file__).resolve().parents[2]
XSS = "<img src=x onerror=alert(1)>"
LADDER = "duel"
TRIO = "trio"
"""The OpenSkill ladder: random_bot (also on duel), twin-a and twin-b: three bots of one file."""
TWINS = ("twin-a", "twin-b")
TOURNAMENT = "cup"
SLASHED = "open/2026"
"""A tournament whose name holds a slash (pages link tournaments by id)."""
GAME = "tails-on-fire"


@dataclass(frozen=True)
class League:
    path: Path
    tokens: dict[str, str]
    """Owner name -> API token."""


def tourney(*args: str) -> str:
    """Run a `tourney` command in this process; its output (fails the caller on a non-zero exit)."""
    result = invoke(*args, catch_exceptions=False)
    assert result.exit_code == 0, f"tourney {' '.join(map(str, args))}: {result.output}"
    return result.output


def token_of(output: str) -> str:
    return output.strip().splitlines()[-1]


def listed_as_before(path: Path, ladder: str, bot: Path, name: str) -> None:
    """List ``bot`` on ``ladder`` as ``name`` as `ladder submit --as NAME` did before bot names were checked
    (docs/ladders.md "Names"): a database an older tourney wrote may hold any name, and the pages escape it."""
    from ledger.rows import ladder_rows
    from ledger.store import Ledger
    from tournaments.bots.discovery import language
    from tournaments.ladder import league

    ledger = Ledger(str(path))
    try:
        row = ladder_rows.get(ledger, ladder)
        spec, entry_point, files = league.package(bot)
        ladder_rows.submit(ledger, row["id"], name, spec.content_hash, spec.kind, entry_point, files,
                           league.model(row).start, language=language(spec))
    finally:
        ledger.close()


def seed(path: Path, work: Path) -> League:
    """Seed a league database at ``path`` (``work``: a folder for the bots)."""
    bots = work / "bots"
    bots.mkdir()
    for source in (ROOT / "bots" / "random_bot.py", ROOT / "bots" / "heuristic_tails_on_fire.py",
                   ROOT / "tests" / "tournaments" / "bots" / "raises.py"):
        shutil.copy(source, bots / source.name)
    db = ["--db", str(path)]
    tourney("run", bots, "--game", GAME, "--players", "2", "--games", "2", "--jobs", "0", "--name", TOURNAMENT, *db)
    tourney("ladder", "create", LADDER, "--game", GAME, "--players", "2", *db)
    listed_as_before(path, LADDER, ROOT / "bots" / "heuristic_tails_on_fire.py", XSS)
    tourney("ladder", "submit", LADDER, ROOT / "bots" / "random_bot.py", *db)
    tourney("ladder", "play", LADDER, "--games", "4", "--jobs", "0", "--seed", "1", *db)
    pair = work / "pair"
    pair.mkdir()
    for source in ("random_bot.py", "heuristic_tails_on_fire.py"):
        shutil.copy(bots / source, pair / source)
    tourney("run", pair, "--game", GAME, "--players", "2", "--games", "1", "--jobs", "0", "--name", SLASHED, *db)
    tourney("ladder", "create", TRIO, "--game", GAME, "--players", "3", "--rating", "openskill", *db)
    for name in ("random_bot", *TWINS):
        tourney("ladder", "submit", TRIO, ROOT / "bots" / "random_bot.py", "--as", name, *db)
    tourney("ladder", "play", TRIO, "--games", "3", "--jobs", "0", "--seed", "2", *db)
    tokens = {name: token_of(tourney("users", "add", name, *db)) for name in ("alice", "bob")}
    # Everything into the main file, so that copying it copies the whole league.
    with contextlib.closing(sqlite3.connect(path)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return League(path, tokens)


class Api:
    """Requests to the application through httpx's ASGI transport (no server, no socket)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def request(self, method: str, url: str, token: str | None = None, **kwargs: Any) -> httpx.Response:
        headers = dict(kwargs.pop("headers", {}) or {})
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"

        async def send() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app)
            async with httpx.AsyncClient(transport=transport, base_url="http://league.test") as client:
                return await client.request(method, url, headers=headers, **kwargs)

        # In a thread of its own: a test session that holds Playwright's sync API has an event loop
        # running in the main thread, where asyncio.run refuses to start another.
        with concurrent.futures.ThreadPoolExecutor(1) as thread:
            return thread.submit(asyncio.run, send()).result()

    def get(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("GET", url, **kwargs)

    def post(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("POST", url, **kwargs)


if __name__ == "__main__":
    import tempfile

    target = Path(sys.argv[1] if len(sys.argv) > 1 else "league.db")
    with tempfile.TemporaryDirectory() as folder:
        made = seed(target, Path(folder))
    for owner, token in made.tokens.items():
        print(f"{owner}: {token}")
