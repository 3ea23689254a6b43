"""Secret seeds: drawn without --seed, committed, kept out of the database and every bot's reach, revealed
at the end and checked; chosen seeds recorded as the organiser's; old tournaments still resume."""

from __future__ import annotations

import functools
import json
import shutil
import sqlite3
import sys
from contextlib import closing
from pathlib import Path

import pytest
from sqlalchemy import text

from engines import registry
from ledger import seeds
from ledger.canonical import canonical
from ledger.rows import ladder_rows, tournament_rows
from ledger.store import Ledger
from tests import cli
from tests.tournaments.play.test_protocol import FIXTURES, GAME, ROOT, SHIPPED, make_folder
from tournaments.bots.spec import Limits
from tournaments.ladder import league, sessions
from tournaments.play import preparation, runner
from tournaments.play.schedule import deal_seed, schedule
from tournaments.sandbox import sandbox as sandboxing

invoke = functools.partial(cli.invoke, width=200)


def prepared_spec(folder: Path, seed: str | None = None, games: int = 2) -> runner.Spec:
    """The spec `tourney run FOLDER --game lemur-tails --games N` makes (default time limits)."""
    prepared, k = preparation.prepare(folder, GAME, None, Limits(1.0, 5.0))
    return runner.Spec(GAME, k, games, seed, 1.0, 5.0, tuple(prepared.bots))


class Interrupted(Exception):
    """Stands for Ctrl-C in the middle of a run."""


def interrupt_after(games: int):
    def progress(stored: int) -> None:
        if stored == games:
            raise Interrupted
    return progress


def stored_bytes(db: Path) -> bytes:
    """Everything SQLite has written for a database: the file and its write-ahead log."""
    wal = db.with_name(db.name + "-wal")
    return db.read_bytes() + (wal.read_bytes() if wal.exists() else b"")


def game_seeds(db: Path) -> set[str]:
    with closing(sqlite3.connect(db)) as connection:
        return {row[0] for row in connection.execute("SELECT seed FROM games")}


def test_a_drawn_seed_is_committed_kept_out_of_the_database_and_revealed_at_the_end(tmp_path):
    """Without --seed: while games remain, the database holds the commitment and not the seed (not a byte of it),
    and standings show only the commitment; a resume computes the same seed again; once the last game is
    stored the seed is revealed, matches the commitment, and every deal derives from it."""
    folder = make_folder(tmp_path, good=2)
    db = tmp_path / "t.db"
    ledger = Ledger(str(db))
    first = runner.open_run(ledger, None, prepared_spec(folder), False, runner.default_namer(folder, GAME))
    seed = first.spec.seed
    assert first.spec.drawn and len(seed) == 64 and first.name.endswith(seeds.commitment(seed)[:8])
    with pytest.raises(Interrupted):
        runner.execute(ledger, first, 0, interrupt_after(2))  # as Ctrl-C after two games would
    assert first.revealed is None and len(first.stored) == 2
    assert seed.encode() not in stored_bytes(db)
    row = tournament_rows.get(ledger, first.name)
    assert row["seed"] == "" and row["seed_origin"] == seeds.DRAWN and row["seed_commitment"] == seeds.commitment(seed)
    shown = invoke("standings", first.name, "--json", "--db", str(db))
    assert shown.exit_code == 0 and seed not in shown.output, shown.output
    assert json.loads(shown.output)["seed"] == {"origin": "drawn", "commitment": seeds.commitment(seed), "seed": None}
    assert seed not in invoke("list", "--json", "--db", str(db)).output

    resumed = runner.open_run(ledger, None, prepared_spec(folder), True, runner.default_namer(folder, GAME))
    assert resumed.name == first.name and resumed.spec.seed == seed and resumed.done == 2
    runner.execute(ledger, resumed, 0)
    assert resumed.revealed == seed
    assert tournament_rows.get(ledger, first.name)["seed"] == seed
    keys = {game.key: game.seed for game in schedule(["random_b", "random_bot"], 2, 2, seed)}
    assert game_seeds(db) == set(keys.values()) and deal_seed(seed, 0, 0) in keys.values()
    shown = json.loads(invoke("standings", first.name, "--json", "--db", str(db)).output)
    assert shown["seed"]["seed"] == seed and shown["integrity"]["checkpoint"]["state"] == "complete"
    verified = invoke("replay", "verify", "--db", str(db))
    assert verified.exit_code == 0 and "seed drawn, revealed, matches its commitment" in verified.output
    ledger.close()


def test_a_chosen_seed_is_recorded_as_the_organisers(tmp_path):
    """--seed S: shown from the start, stored with its commitment, recorded as chosen by the organiser."""
    db = tmp_path / "t.db"
    result = invoke("run", str(make_folder(tmp_path, good=2)), "--game", GAME, "--games", "1", "--seed", "7",
                    "--jobs", "0", "--db", str(db))
    assert result.exit_code == 0 and "seed 7 (chosen by the organiser)" in result.output, result.output
    ledger = Ledger(str(db))
    row = tournament_rows.get(ledger, "1")
    assert (row["seed"], row["seed_origin"], row["seed_commitment"]) == ("7", "organiser", seeds.commitment("7"))
    assert row["name"].endswith("-seed7")
    ledger.close()


def test_resume_keeps_the_tournaments_own_seed(tmp_path):
    """A drawn seed's tournament refuses --seed on resume; a chosen seed's refuses another --seed."""
    folder = make_folder(tmp_path, good=2)
    db = tmp_path / "t.db"
    ledger = Ledger(str(db))
    drawn = runner.open_run(ledger, "drawn", prepared_spec(folder), False)
    chosen = runner.open_run(ledger, "chosen", prepared_spec(folder, "5"), False)
    ledger.close()
    assert drawn.spec.drawn and not chosen.spec.drawn
    common = ["run", str(folder), "--game", GAME, "--games", "2", "--jobs", "0", "--db", str(db), "--resume"]
    refused = invoke(*common, "--name", "drawn", "--seed", "5")
    assert refused.exit_code == 1 and "its seed was drawn" in refused.output, refused.output
    other = invoke(*common, "--name", "chosen", "--seed", "6")
    assert other.exit_code == 1 and "it was started with --seed 5, not 6" in other.output, other.output
    done = invoke(*common, "--name", "drawn")
    assert done.exit_code == 0 and "seed revealed" in done.output, done.output


def test_a_tournament_stored_before_drawn_seeds_still_resumes(tmp_path):
    """A tournament written by an older tourney (revision 0003; its spec holds the old default seed "1" and its
    name ends in -seed1) resumes with the same command plus --resume, no --seed, and keeps seed 1."""
    folder = make_folder(tmp_path, good=2)
    db = tmp_path / "old.db"
    old = Ledger(str(db), upgrade=False)
    old.upgrade("0003")
    spec = prepared_spec(folder, "1", games=1)
    name = f"{folder.resolve().name}-{GAME}-seed1"
    with old.write() as connection:
        bot_ids = [old.ensure_bot(b.name, b.content_hash, b.kind, connection) for b in spec.bots]
        connection.execute(
            text("INSERT INTO tournaments (name, game, spec, seed, created_at) VALUES (:name, :game, :spec, '1', :at)"),
            {"name": name, "game": GAME, "spec": canonical(spec.to_json()).decode(), "at": "2026-11-01T00:00:00+00:00"})
        connection.execute(text("INSERT INTO tournament_bots (tournament_id, bot_id) VALUES (1, :a), (1, :b)"),
                           {"a": bot_ids[0], "b": bot_ids[1]})
    old.close()
    resumed = invoke("run", str(folder), "--game", GAME, "--games", "1", "--jobs", "0", "--db", str(db), "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert f"{name}:" in resumed.output and "seed 1 (chosen by the organiser)" in resumed.output
    verified = invoke("replay", "verify", "--db", str(db))
    assert verified.exit_code == 0 and "seed chosen by the organiser" in verified.output, verified.output


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", ["off", "on"])
def test_no_bot_process_can_see_the_seed(tmp_path, sandbox):
    """A real `tourney run` without --seed, with worker processes: a program bot that writes down its argv,
    environment, hello message, and the command line, environment and status of every process above it
    it can read (without the sandbox: tourney's own workers and parent) finds neither the tournament's seed
    nor any game's seed anywhere; tourney's own output shows the commitment, and the seed only once the
    tournament is over."""
    if sandbox == "on" and (problem := sandboxing.unavailable()) is not None:
        pytest.fail(f"this test needs a working bwrap: {problem}")
    folder = make_folder(tmp_path, good=1)
    seen = tmp_path / "seen"
    seen.mkdir()
    (folder / "programs").mkdir()
    shutil.copy(FIXTURES / "programs" / "witness.py", folder / "programs" / "witness.py")
    (folder / "witness.bot.json").write_text(json.dumps(
        {"name": "witness", "command": [sys.executable, "-I", "programs/witness.py", str(seen)]}))
    db, logs = tmp_path / "t.db", tmp_path / "logs"
    process = cli.tourney("run", str(folder), "--game", GAME, "--games",
                          "2", "--jobs", "2", "--sandbox", sandbox, "--bot-logs", str(logs), "--db", str(db),
                          cwd=ROOT, timeout=300)
    assert process.returncode == 0, process.stderr
    ledger = Ledger(str(db), read_only=True)
    row = tournament_rows.get(ledger, "1")
    ledger.close()
    seed = row["seed"]
    secrets = {seed, *game_seeds(db)}
    assert row["seed_origin"] == seeds.DRAWN and len(secrets) == 3
    before, over, after = process.stdout.replace("\n", "").partition("the tournament is over")
    assert over and row["seed_commitment"] in before and seed not in before and f"seed revealed: {seed}" in after
    dumps = [json.loads(line.removeprefix("witness: ")) for path in logs.glob("*.log")
             for line in path.read_text().splitlines() if line.startswith("witness: ")]
    assert len(dumps) == 4, "the witness bot did not write down what it saw in every game"
    if sandbox == "off":
        assert len(list(seen.glob("*.json"))) >= 5  # the handshake's process too
    for dump in dumps:
        assert dump["messages"] and dump["messages"][0]["type"] == "hello"
        assert dump["environ"] and dump["processes"]
        if sandbox == "off":
            # What it wrote down is real: tourney's own command line (the database path) is there.
            assert any(str(db) in p["cmdline"] and "run" in p["cmdline"] for p in dump["processes"])
            assert any(p["environ"] for p in dump["processes"][1:])
        text = json.dumps(dump)
        assert not [secret for secret in secrets if secret in text]


def test_a_ladder_session_draws_commits_and_reveals_its_seed(tmp_path):
    """`ladder play` without --seed: the session's seed is drawn and committed, revealed when it stops, and every
    game of the session was dealt from it; a forged reveal then fails verification."""
    db = tmp_path / "league.db"
    ledger = Ledger(str(db))
    ladder_rows.create(ledger, "spring", GAME, 2)
    limits = league.Limits(move_time=2.0, time_bank=5.0)
    league.submit(ledger, "spring", SHIPPED / "random_bot.py", None, limits)
    league.submit(ledger, "spring", SHIPPED / "first_legal.sh", None, limits)
    lines: list[str] = []
    sessions.play(ledger, "spring", 4, 0, limits, None, None, lines.append)
    (session,) = ladder_rows.sessions(ledger, 1)
    ledger.close()
    seed = session["seed"]
    assert session["origin"] == seeds.DRAWN and session["commitment"] == seeds.commitment(seed)
    # Shown as their first 16 digits (the whole of each is stored, and verified below).
    assert seed not in lines[0] and lines[0].endswith(f"commitment {session['commitment'][:16]}…")
    assert f"seed revealed: {seed[:16]}…" in lines[-1] and seed[16:] not in lines[-1]
    assert game_seeds(db) == {deal_seed(seed, 0, deal) for deal in range(2)}
    assert registry.get(GAME).default_seats == 2
    verified = invoke("replay", "verify", "--db", str(db), "--ladder", "spring")
    assert verified.exit_code == 0, verified.output
    with closing(sqlite3.connect(db)) as connection:
        connection.execute("UPDATE ladder_sessions SET seed = 'forged'")
        connection.commit()
    forged = invoke("replay", "verify", "--db", str(db), "--ladder", "spring")
    assert forged.exit_code == 1 and "session 1: its revealed seed does not match its commitment" in forged.output
