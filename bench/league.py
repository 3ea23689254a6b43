"""A league that grows tenfold: do its pages and commands slow down? (issue 39, "Size-free pages").

Builds one SQLite ledger with the project's own play path (the runner plays each game with
tourney's builtin random bot, in worker processes; each ladder game is stored and rated as a
ladder match stores it, each tournament game as the tournament writer stores it, checkpoints
every 100 games), of SIZES[0] games, measures, extends the same ledger to SIZES[1] games, and
measures again. Half the games are a ladder's ("league", Elo, Lemur Tails), half a tournament's
("cup"), among BOTS bots drawn two to a table.

Each page and API list is asked SAMPLES times (--samples) in a fresh server process: cold (every cache of
the server emptied before each request, as after a game is stored; only the last Elo fit of a
tournament, which a running server keeps to start the next fit from, stays) and warm (asked
again).
Printed per size, page by page, with the cold p95 the goal is about:

    league: games=N page=P p95_ms=X warm_p95_ms=Y

(and the p95 of the CPU time each cold request took, less disturbed by other work on the machine, and the
SQLite virtual-machine steps one more cold request took, `sqlite_steps=N`, to ten: the same on any machine,
loaded or not, so their growth says what the reads grow with, where time's drifts with the machine),
then the commands (each run as its own process: wall time, CPU time, peak RSS; `replay verify --db
--ladder`, which refolds every game of the ladder, for its memory: its time grows with the games)

    league: games=N command=C ms=X cpu_ms=Y peak_rss_mb=Z

and last, each page's cold p95 (and each command's CPU) at the larger size over the smaller, and
the worst of all:

    growth: X (worst: P; by CPU time: Y)

Goal (issue 39): growth <= 1.5 for every page and command, cold p95 <= 100 ms at 20,000 games.

    python bench/league.py                      # 2,000 then 20,000 games (about 10 minutes here)
    python bench/league.py --sizes 200 2000     # quicker
    python bench/league.py --keep /tmp/league   # keep the ledgers there (league-2000.db, league-20000.db);
                                                # run again, it measures them without building
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SIZES = (2_000, 20_000)
BOTS = 120
GAME = "lemur-tails"
LADDER = "league"
TOURNAMENT = "cup"
SAMPLES = 20
WORKERS = 2
BATCH = 200
"""Games played between two stores (each ladder match and each tournament group stored as they would be)."""


def bot_names() -> list[str]:
    return [f"bot{i:03d}" for i in range(BOTS)]


def build(path: Path, games: int, seed: str = "bench-league") -> None:
    """Extend (or make) the ledger at ``path`` to ``games`` finished games: half the ladder's, half the cup's."""
    from ledger import checkpoints
    from ledger.canonical import canonical
    from ledger.rows import ladder_rows, tournament_rows
    from ledger.store import Ledger
    from replays.archive import finished_game
    from tournaments.bots.spec import BUILTIN, BotSpec
    from tournaments.ladder import league, sessions
    from tournaments.play import runner, standings
    from tournaments.play.schedule import Scheduled, deal_seed
    from tournaments.play.writer import GroupCommit

    ledger = Ledger(str(path))
    names = bot_names()
    bots = tuple(BotSpec(name, BUILTIN, "", hashlib.sha256(name.encode()).hexdigest()) for name in names)
    spec = runner.Spec(GAME, 2, 1, seed, 1.0, 5.0, bots)
    if not ladder_rows.all_ladders(ledger):
        ladder_id = ladder_rows.create(ledger, LADDER, GAME, 2, league.ELO)
        for bot in bots:
            ladder_rows.submit(ledger, ladder_id, bot.name, bot.content_hash, BUILTIN, "builtin", b"",
                               ladder_rows.elo_start)
        with ledger.write() as connection:
            ids = [ledger.ensure_bot(b.name, b.content_hash, BUILTIN, connection) for b in bots]
        tournament_rows.create(ledger, TOURNAMENT, GAME, canonical(spec.to_json()).decode(), seed, ids)
    ladder = ladder_rows.get(ledger, LADDER)
    cup = tournament_rows.get(ledger, TOURNAMENT)
    entries = {e["name"]: e for e in ladder_rows.entries(ledger, ladder["id"])}
    with ledger.read() as connection:
        bot_ids = dict(connection.exec_driver_sql("SELECT name, id FROM bots").fetchall())
    update = league.MODELS[league.ELO].update
    done = _count(ledger)
    if done > games:
        raise SystemExit(f"{path} holds {done} games, more than the {games} asked for: give another --keep folder")
    rng = random.Random(f"{seed}/{done}")
    stored_since = 0
    while done < games:
        size = min(BATCH, games - done)
        jobs = []
        for number in range(done, done + size, 2):  # a deal from both seats, as a ladder match and a cup table play
            pair = rng.sample(names, 2)
            dealt = deal_seed(seed, number, 0)
            for rotation in range(2):
                seated = tuple(pair[rotation:] + pair[:rotation])
                jobs.append(runner.Job(spec, Scheduled(f"g{number}-r{rotation}", number, 0, rotation, seated, dealt)))
        on_ladder = [job for index, job in enumerate(jobs) if (index // 2) % 2 == 0]
        played = {result.key: result for result in runner.results(jobs, WORKERS)}
        writer = GroupCommit(ledger, lambda connection, group: ledger.store_games(
            [finished_game(r.recorded, [bot_ids[s.name] for s in r.recorded.seats], r.scores, cup["id"], r.key)
             for r in group], connection), lambda _result: False, lambda _result, _new: None)
        for job in jobs:
            result = played[job.scheduled.key]
            if job in on_ladder:
                seated = [entries[seat.name] for seat in result.recorded.seats]
                ladder_rows.store_games(ledger, ladder["id"], [sessions.rated_game(ledger, result, seated)], update)
            else:
                writer.add(result)
        writer.flush()
        done += len(jobs)
        stored_since += len(jobs)
        if stored_since >= checkpoints.EVERY:
            checkpoints.write(ledger, ladder_rows.scope(ladder))
            checkpoints.write(ledger, tournament_rows.scope(cup))
            standings.refresh_fit(ledger, cup["id"])  # as `tourney run` keeps it at each checkpoint
            stored_since = 0
    checkpoints.write(ledger, ladder_rows.scope(ladder))
    checkpoints.write(ledger, tournament_rows.scope(cup))
    standings.refresh_fit(ledger, cup["id"])
    ledger.close()


def settle(path: Path) -> None:
    """A kept ledger as this tourney leaves it: upgraded to its schema (a read-only server refuses an older one),
    the cup's fit kept as `tourney run` keeps it (a ledger built by a tourney before revision 0018 has none)."""
    from ledger.rows import tournament_rows
    from ledger.store import Ledger
    from tournaments.play import standings

    ledger = Ledger(str(path))
    if standings.refresh_fit(ledger, tournament_rows.get(ledger, TOURNAMENT)["id"]):
        print(f"fitted: {path.name} (its cup's fit kept, as tourney run keeps it)", flush=True)
    ledger.close()


def _count(ledger) -> int:
    with ledger.read() as connection:
        return connection.exec_driver_sql("SELECT COUNT(*) FROM games WHERE store_seq IS NOT NULL").scalar()


def pages(path: Path) -> list[str]:
    """The league's pages and API lists, as a visitor finds them."""
    from ledger import read_pages
    from ledger.rows import ladder_rows, tournament_rows
    from ledger.store import Ledger

    ledger = Ledger(str(path), read_only=True)
    cup = tournament_rows.get(ledger, TOURNAMENT)["id"]
    with ledger.read() as connection:  # the ladder as of its middle game: a page paged while games land
        half = read_pages.ladder_count(connection, ladder_rows.get(ledger, LADDER)["id"]) // 2
    ledger.close()
    bot = bot_names()[0]
    return [
        "/", f"/ladders/{LADDER}", f"/ladders/{LADDER}?at={half}", f"/ladders/{LADDER}/leaderboard",
        f"/ladders/{LADDER}/games",
        f"/ladders/{LADDER}/games?offset=500", f"/ladders/{LADDER}/games?bot={bot}&result=win",
        # The same list a page of 10 rows: the bot's ladder wins fill it at both sizes (11 at 2,000 games), where the
        # page of 50 above lists 11 of them at 2,000 and 50 at 20,000 (its answer grows, not its reads).
        f"/ladders/{LADDER}/games?bot={bot}&result=win&limit=10",
        f"/tournaments/{cup}", f"/tournaments/{cup}/games", f"/bots/{bot}",
        "/api/ladders", f"/api/ladders/{LADDER}", f"/api/ladders/{LADDER}?at={half}&limit=20",
        f"/api/ladders/{LADDER}/games",
        f"/api/ladders/{LADDER}/games?forfeited=false", f"/api/ladders/{LADDER}/head-to-head",
        f"/api/ladders/{LADDER}/head-to-head?offset=0&limit=20",
        "/api/tournaments", f"/api/tournaments/{cup}", f"/api/tournaments/{cup}?offset=100&limit=20",
        f"/api/tournaments/{cup}/games",
        f"/api/bots/{bot}", f"/api/bots/{bot}/games", f"/api/bots/{bot}/results",
    ]


APP = """
from fastapi.testclient import TestClient
from web.app import create_app
from web.settings import Settings

app = create_app(Settings(db={db!r}))
client = TestClient(app)
out = {{}}


def cold():  # every cache of the server emptied, as after a game is stored
    for name, cache in app.state.site.caches.items():
        if name != "fits":  # a running server keeps its last fits (warm starts), whatever changed since
            cache.clear()
"""

SERVE = """
import json, resource, sys, time
sys.path.insert(0, {root!r})
""" + APP + """
for page in {pages!r}:
    cold_, warm, cpu = [], [], []
    for _ in range({samples}):
        cold()
        began, used = time.perf_counter(), time.process_time()
        answer = client.get(page, headers={{"Accept-Encoding": "gzip"}})
        cold_.append(time.perf_counter() - began)
        cpu.append(time.process_time() - used)
        assert answer.status_code == 200, (page, answer.status_code, answer.text[:200])
    for _ in range({samples}):
        began = time.perf_counter()
        client.get(page, headers={{"Accept-Encoding": "gzip"}})
        warm.append(time.perf_counter() - began)
    out[page] = (cold_, warm, cpu)
print(json.dumps({{"pages": out, "peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}}))
"""

STEPS = """
import json, sqlite3, sys
sys.path.insert(0, {root!r})
steps, connect = [0], sqlite3.connect


def counted(*args, **kwargs):  # SQLite's virtual-machine steps, to ten: what the reads cost, the same on any machine
    connection = connect(*args, **kwargs)
    connection.set_progress_handler(lambda: steps.__setitem__(0, steps[0] + 10), 10)
    return connection


sqlite3.connect = counted
""" + APP + """
for page in {pages!r}:
    cold()
    client.get(page)  # the connections opened first
    cold()
    steps[0] = 0
    client.get(page)  # cold, as the timed requests, apart from them (the count's calls would slow them)
    out[page] = steps[0]
print(json.dumps(out))
"""

MEASURED = """
import resource, subprocess, sys, time
began = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
wall = time.perf_counter() - began
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
if done.returncode:
    sys.exit(done.stderr.decode())
print(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)
"""


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]


def measure(path: Path, games: int, samples: int = SAMPLES) -> dict[str, float]:
    """Every page and command at this size: prints its line, returns cold p95 (ms) or command CPU (ms) by name."""
    found: dict[str, float] = {}
    listed = pages(path)
    with closing(sqlite3.connect(path)) as connection:
        met = [connection.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] // 2
               for table in ("ladder_pairs", "tournament_pairs")]
    # What pair-bound answers (head-to-head, the Elo fit, the ladder's margins) grow with: pairs that have met,
    # up to every pair of the league's bots, whatever the number of games after that.
    print(f"league: games={games} pairs_met=ladder:{met[0]},cup:{met[1]} of {BOTS * (BOTS - 1) // 2}", flush=True)
    script = SERVE.format(root=str(ROOT), db=str(path), pages=listed, samples=samples)
    served = json.loads(subprocess.run([sys.executable, "-c", script], check=True, capture_output=True,
                                       text=True).stdout)
    stepped = STEPS.format(root=str(ROOT), db=str(path), pages=listed)
    counted = json.loads(subprocess.run([sys.executable, "-c", stepped], check=True, capture_output=True,
                                        text=True).stdout)
    for page in listed:
        (cold, warm, cpu), steps = served["pages"][page], counted[page]
        name = re.sub(r"at=\d+", "at=half", page)  # the same page at both sizes, whatever the middle game's number
        found[name] = 1000 * p95(cold)
        found[f"{name} (CPU)"] = 1000 * p95(cpu)
        found[f"{name} (steps)"] = max(1, steps)
        print(f"league: games={games} page={page} p95_ms={found[name]:.1f} warm_p95_ms={1000 * p95(warm):.1f} "
              f"cpu_p95_ms={1000 * p95(cpu):.1f} sqlite_steps={steps}", flush=True)
    print(f"league: games={games} command=serve-pages peak_rss_mb={served['peak_rss_kb'] / 1024:.0f}", flush=True)
    commands = {
        "tourney standings": [sys.executable, "-m", "tournaments", "standings", TOURNAMENT, "--db", str(path)],
        "tourney ladder standings": [sys.executable, "-m", "tournaments", "ladder", "standings", LADDER, "--db",
                                     str(path)],
    }
    commands["tourney replay verify"] = [sys.executable, "-m", "tournaments", "replay", "verify", "--db", str(path),
                                         "--ladder", LADDER, "--quiet", "--jobs", str(WORKERS)]
    for name, command in commands.items():
        runs = [subprocess.run([sys.executable, "-c", MEASURED, *command], check=True, capture_output=True,
                               text=True).stdout.split() for _ in range(1 if "verify" in name else min(3, samples))]
        wall, cpu, rss = min(runs, key=lambda run: float(run[1]))
        found[name] = 1000 * float(cpu)
        print(f"league: games={games} command={name.replace(' ', '-')} ms={1000 * float(wall):.0f} "
              f"cpu_ms={found[name]:.0f} peak_rss_mb={int(rss) / 1024:.0f}", flush=True)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs=2, default=SIZES, metavar=("SMALL", "LARGE"))
    parser.add_argument("--keep", type=Path, help="folder to build the ledger in and keep (default: a temporary one)")
    parser.add_argument("--samples", type=int, default=SAMPLES, help="requests of each page, cold and warm; each "
                        "command's runs are the fewer of this and 3 (default: %(default)s; a test's short run: 2)")
    args = parser.parse_args()
    with workspace(args.keep, "tourney-league-") as folder:
        measure_sizes(args, folder)


@contextmanager
def workspace(keep: Path | None, prefix: str) -> Iterator[Path]:
    """The folder a bench builds its ledgers in: ``keep`` (made if missing, and kept for a later run to measure
    again), or a temporary one removed when the bench ends."""
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        yield keep
        return
    with tempfile.TemporaryDirectory(prefix=prefix) as folder:
        yield Path(folder)


def measure_sizes(args: argparse.Namespace, folder: Path) -> None:
    """Both sizes' ledgers built (or kept ones reused) in ``folder``, measured, and their growth printed."""
    growing = folder / "league.db"
    os.environ.setdefault("TOURNEY_LEDGER_KEY", str(folder / "league.key"))
    print(f"load: {os.getloadavg()[0]:.2f} (1-minute average), {os.cpu_count()} cores", flush=True)
    measured = {}
    for size in sorted(args.sizes):
        # Each size is measured on a copy of its own, kept with --keep: a later run measures it again unbuilt.
        path = folder / f"league-{size}.db"
        if not path.exists():
            began = time.perf_counter()
            build(growing, size)
            shutil.copyfile(growing, path)
            print(f"built: games={size} in {time.perf_counter() - began:.0f} s, {path.stat().st_size / 2**20:.0f} "
                  "MiB", flush=True)
        settle(path)
        measured[size] = measure(path, size, args.samples)
    small, large = (measured[size] for size in sorted(args.sizes))
    growth = {name: large[name] / small[name] for name in small if "verify" not in name}
    for name, ratio in growth.items():
        print(f"grew: {name} {ratio:.2f}")
    wall = {name: ratio for name, ratio in growth.items() if not name.endswith(("(CPU)", "(steps)"))}
    worst = max(wall, key=wall.get)
    stepped = {name: ratio for name, ratio in growth.items() if name.endswith("(steps)")}
    most = max(stepped, key=stepped.get)
    print(f"growth: {wall[worst]:.2f} (worst: {worst}; by CPU time: "
          f"{max(ratio for name, ratio in growth.items() if '(CPU)' in name or 'tourney' in name):.2f}; by SQLite "
          f"steps: {stepped[most]:.2f}, {most.removesuffix(' (steps)')})")
    print(f"load: {os.getloadavg()[0]:.2f} (1-minute average)")


if __name__ == "__main__":
    main()
