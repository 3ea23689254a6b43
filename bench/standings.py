"""Ratings and reports that scale (issue 39, deliverable 4): standings for many bots, the running reports'
cost, and the memory of `run` and `standings` at two sizes.

1. A tournament of BOTS (400) bots and GAMES (10,000) games is built with the project's own play
   path (tourney's builtin random bot, Lemur Tails, two at a table drawn at random, each deal from
   both seats, stored by the tournament writer in groups, a checkpoint every 100 games). Then
   `tourney standings` runs as its own process, with the default interval (from the fit's
   curvature) and with `--interval bootstrap` (the 200 resamples standings used before):

       standings: bots=400 games=10000 cpu_s=X bootstrap_cpu_s=Y

   (goal: cpu_s <= 5; it was 136 s before the read models and the curvature interval).

2. `tourney run` of RUN_BOTS (--run-bots) copies of bots/random_bot.py (the sandbox off, two workers), played
   four times: REPORT_GAMES games with `--progress lines` (a line per game, the standings every
   10 games, no sooner than every second), the same with `--progress none`, a tenth of them and
   twice as many with `--progress none` (19,760 games: 54 s on an idle machine). The organiser's own
   CPU time is measured (the command runs in a process of its own, its workers apart):

       report: games=N cpu_ratio=X          (lines over none; goal <= 1.2)
       memory: command=run games=N peak_rss_mb=X      (at the three sizes: flat, issue 39 item 4)

3. The peak RSS of `tourney standings` on the tournament of part 1 and on one a tenth its size, and of
   `tourney replay verify --db --jobs 0 --quiet` on both (every game refolded in one process, its ids streamed
   from the ledger, then the whole tournament's check, a page at a time: the bench's games sit at random
   tables of the round robin its spec plans, one deal each, so each is held against its place in the plan):

       memory: command=standings games=N peak_rss_mb=X
       memory: command=verify games=N peak_rss_mb=X

   and the whole-tournament check alone (tournaments.play.tournament_audit.tournament, in a process of its own), the
   peak of its Python allocations (tracemalloc), which the interpreter's share of the RSS does not blur:

       memory: command=verify-tournament-check games=N peak_traced_mb=X

   and the same of `tourney standings --check` (every game's result read a page at a time, the sums kept: flat)
   and of `--check --interval bootstrap` (which keeps each game's (bot, rank) per seat: it grows with the games):

       memory: command=standings-check games=N peak_traced_mb=X
       memory: command=standings-bootstrap games=N peak_traced_mb=X

Usage: python bench/standings.py [--keep DIR] [--bots 400] [--games 10000] [--report-games 10000]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import shutil
import subprocess
import sys
import time
from math import comb
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.league import MEASURED, workspace  # noqa: E402 (after the sys.path line)

BOTS = 400
GAMES = 10_000
GAME = "lemur-tails"
GAMES_PLAYED = ("lemur-tails", "tails-on-fire", "nine-tails")
RUN_BOTS = 20
REPORT_GAMES = 10_000

ORGANISER = """
import resource, sys
sys.argv = ["tourney", *sys.argv[1:]]
from tournaments.cli import app
try:
    app()
except SystemExit as stopped:
    if stopped.code:
        raise
usage = resource.getrusage(resource.RUSAGE_SELF)
print(usage.ru_utime + usage.ru_stime, usage.ru_maxrss, file=sys.stderr)
"""
"""`tourney` run in this process, which then tells its own CPU time and peak RSS (its workers are processes of
their own, counted apart)."""


VERIFIER = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
if done.returncode not in (0, 1) or b"verified " not in done.stdout:
    sys.exit(f"error: replay verify failed (exit {done.returncode})")
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""
"""`tourney replay verify` as a child, its peak RSS (KiB) told; exit 1 (a failed check) is a result here."""


CHECKER = """
import sys, tracemalloc
from ledger.rows import tournament_rows
from ledger.store import Ledger
from tournaments.play import standings, tournament_audit
ledger = Ledger(sys.argv[1], read_only=True)
row = tournament_rows.get(ledger, "cup")
tracemalloc.start()
if sys.argv[2] == "verify-tournament-check":
    verdict = tournament_audit.tournament(ledger, row, ledger.public_key())
else:
    interval = standings.BOOTSTRAP if sys.argv[2] == "standings-bootstrap" else standings.CURVATURE
    standings.of_tournament(ledger, "cup", check=True, interval=interval)
print(tracemalloc.get_traced_memory()[1])
"""
"""One command's work alone, its Python allocations' peak told (tracemalloc: what it holds, without the interpreter's
and the imports' share of the RSS): the whole-tournament check of `replay verify --db`
(tournaments.play.tournament_audit), `standings --check` and `standings --check --interval bootstrap`."""

CHECKED = ("verify-tournament-check", "standings-check", "standings-bootstrap")


def check_peak(path: Path, command: str = CHECKED[0]) -> float:
    """Peak MiB of the Python allocations of ``command`` (one of CHECKED) on the ledger at ``path``."""
    out = subprocess.run([sys.executable, "-c", CHECKER, str(path), command], check=True, capture_output=True,
                         text=True, cwd=ROOT)
    return int(out.stdout.split()[0]) / 2**20


def verify_rss(path: Path) -> float:
    """Peak RSS MiB of `tourney replay verify --db PATH --jobs 0 --quiet` (every game verified in that process)."""
    out = subprocess.run([sys.executable, "-c", VERIFIER, sys.executable, "-m", "tournaments", "replay", "verify",
                          "--db", str(path), "--jobs", "0", "--quiet"], check=True, capture_output=True, text=True)
    return int(out.stdout.split()[-1]) / 1024


def build(path: Path, bots: int, games: int, game: str = GAME, seed: str = "bench-standings") -> None:
    """A tournament named cup of ``bots`` builtin random bots and ``games`` games of ``game`` at its usual number
    of seats (each deal from every seat), stored as `tourney run` stores."""
    from engines import registry
    from ledger import checkpoints
    from ledger.canonical import canonical
    from ledger.rows import tournament_rows
    from ledger.store import Ledger
    from replays.archive import finished_game
    from tournaments.bots.spec import BUILTIN, BotSpec
    from tournaments.play import runner
    from tournaments.play.schedule import Scheduled, deal_seed, unrank
    from tournaments.play.writer import GroupCommit

    seats = registry.get(game).default_seats
    if games // seats > comb(bots, seats):
        sys.exit(f"error: {games} games of one deal from each of {seats} seats need {games // seats} tables; "
                 f"{bots} bots make {comb(bots, seats)}: give more --bots or fewer --games")
    ledger = Ledger(str(path))
    names = [f"bot{i:03d}" for i in range(bots)]
    specs = tuple(BotSpec(name, BUILTIN, "", hashlib.sha256(name.encode()).hexdigest()) for name in names)
    spec = runner.Spec(game, seats, 1, seed, 1.0, 5.0, specs)
    with ledger.write() as connection:
        ids = {b.name: ledger.ensure_bot(b.name, b.content_hash, BUILTIN, connection) for b in specs}
    tournament_rows.create(ledger, "cup", game, canonical(spec.to_json()).decode(), seed, list(ids.values()))
    cup = tournament_rows.get(ledger, "cup")
    rng = random.Random(seed)
    writer = GroupCommit(ledger, lambda connection, group: ledger.store_games(
        [finished_game(r.recorded, [ids[s.name] for s in r.recorded.seats], r.scores, cup["id"], r.key)
         for r in group], connection), lambda _result: False, lambda _result, _new: None)
    jobs = []
    # Tables of the round robin the spec plans (one deal each), drawn at random: the games sit where the plan puts
    # them, so `replay verify --db` checks each against its place (the plan is far from over: a note, no failure).
    for table in rng.sample(range(comb(bots, seats)), games // seats):
        members = unrank(sorted(names), seats, table)
        for rotation in range(seats):
            seated = members[rotation:] + members[:rotation]
            jobs.append(runner.Job(spec, Scheduled(f"t{table}-d0-r{rotation}", table, 0, rotation, seated,
                                                   deal_seed(seed, table, 0))))
    for number, result in enumerate(runner.results(jobs, 2), start=1):
        writer.add(result)
        if number % checkpoints.EVERY == 0:
            writer.flush()
            checkpoints.write(ledger, tournament_rows.scope(cup))
    writer.flush()
    checkpoints.write(ledger, tournament_rows.scope(cup), complete=True)
    ledger.close()


def measured(*command: str) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MiB) of a command run as its own process."""
    out = subprocess.run([sys.executable, "-c", MEASURED, *command], check=True, capture_output=True,
                         text=True).stdout.split()
    return float(out[0]), float(out[1]), int(out[2]) / 1024


def organiser(folder: Path, db: Path, games: int, progress: str, env: dict[str, str]) -> tuple[float, float]:
    """(the organiser's own CPU s, its peak RSS MiB) of `tourney run` over ``folder``, ``games`` deals a table."""
    done = subprocess.run([sys.executable, "-c", ORGANISER, "run", str(folder), "--game", GAME, "--games",
                           str(games), "--seed", "1", "--jobs", "2", "--sandbox", "off", "--progress", progress,
                           "--db", str(db)], capture_output=True, text=True, env=env, cwd=ROOT)
    if done.returncode:
        sys.exit(f"error: tourney run failed: {done.stderr.strip()[-500:]}")
    cpu, rss = done.stderr.split()[-2:]
    return float(cpu), int(rss) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="folder for the ledgers (kept; a later run reuses them)")
    parser.add_argument("--bots", type=int, default=BOTS)
    parser.add_argument("--games", type=int, default=GAMES)
    parser.add_argument("--report-games", type=int, default=REPORT_GAMES)
    parser.add_argument("--game", default=GAME, choices=GAMES_PLAYED, help="the standings' tournament's game, at "
                        "its usual seats (tails-on-fire: four, so six pairwise results a game)")
    parser.add_argument("--no-report", action="store_true", help="the standings lines only")
    parser.add_argument("--run-bots", type=int, default=RUN_BOTS, help="copies of bots/random_bot.py the runs of "
                        "part 2 play (default: %(default)s; a test's short run: 4)")
    args = parser.parse_args()
    with workspace(args.keep, "tourney-standings-") as folder:
        measure(args, folder)


def measure(args: argparse.Namespace, folder: Path) -> None:
    """Both parts, their ledgers in ``folder``."""
    env = {**os.environ, "TOURNEY_LEDGER_KEY": str(folder / "ledger.key")}
    os.environ.update(env)
    print(f"load: {os.getloadavg()[0]:.2f} (1-minute average), {os.cpu_count()} cores", flush=True)
    sizes = {args.games: folder / f"cup-{args.game}-{args.bots}-{args.games}.db",
             args.games // 10: folder / f"cup-{args.game}-{args.bots}-{args.games // 10}.db"}
    for games, path in sizes.items():
        if not path.exists():
            began = time.perf_counter()
            build(path, args.bots, games, args.game)
            print(f"built: bots={args.bots} games={games} in {time.perf_counter() - began:.0f} s", flush=True)
    big = sizes[args.games]
    standings = [sys.executable, "-m", "tournaments", "standings", "cup", "--db", str(big)]
    curvature = min(measured(*standings)[1] for _ in range(3))
    bootstrap = measured(*standings, "--interval", "bootstrap")[1]
    print(f"standings: bots={args.bots} games={args.games} cpu_s={curvature:.2f} bootstrap_cpu_s={bootstrap:.1f} "
          f"({args.game})", flush=True)
    for games, path in sorted(sizes.items()):
        _wall, _cpu, rss = measured(sys.executable, "-m", "tournaments", "standings", "cup", "--db", str(path))
        print(f"memory: command=standings games={games} peak_rss_mb={rss:.0f}", flush=True)
    for games, path in sorted(sizes.items()):
        print(f"memory: command=verify games={games} peak_rss_mb={verify_rss(path):.0f}", flush=True)
    for command in CHECKED:
        for games, path in sorted(sizes.items()):
            print(f"memory: command={command} games={games} peak_traced_mb={check_peak(path, command):.1f}",
                  flush=True)
    if args.no_report:
        return

    bots = folder / "run-bots"
    shutil.rmtree(bots, ignore_errors=True)
    bots.mkdir()
    for i in range(args.run_bots):
        (bots / f"random_{i:02d}.py").write_text((ROOT / "bots" / "random_bot.py").read_text() + f"\n# copy {i}\n")
    tables = args.run_bots * (args.run_bots - 1) // 2
    deals = max(1, round(args.report_games / (2 * tables)))
    games = deals * 2 * tables
    cpu = {}
    for progress in ("lines", "none"):
        db = folder / f"run-{progress}.db"
        db.unlink(missing_ok=True)
        cpu[progress], rss = organiser(bots, db, deals, progress, env)
        if progress == "none":
            print(f"memory: command=run games={games} peak_rss_mb={rss:.0f}", flush=True)
    small = folder / "run-small.db"
    small.unlink(missing_ok=True)
    _cpu, rss = organiser(bots, small, max(1, deals // 10), "none", env)
    print(f"memory: command=run games={max(1, deals // 10) * 2 * tables} peak_rss_mb={rss:.0f}", flush=True)
    large = folder / "run-large.db"
    large.unlink(missing_ok=True)
    _cpu, rss = organiser(bots, large, deals * 2, "none", env)
    print(f"memory: command=run games={deals * 2 * 2 * tables} peak_rss_mb={rss:.0f}", flush=True)
    print(f"report: games={games} cpu_ratio={cpu['lines'] / cpu['none']:.2f} (lines {cpu['lines']:.1f} s, none "
          f"{cpu['none']:.1f} s of the organiser's CPU)", flush=True)
    print(f"load: {os.getloadavg()[0]:.2f} (1-minute average)")


if __name__ == "__main__":
    main()
