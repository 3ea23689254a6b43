"""Ladders on a real SQLite file with real bot processes: submit, version, refuse, play, rate, rebuild."""

from __future__ import annotations

import io
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ledger.rows import ladder_rows, match_rows
from ledger.store import Ledger
from tests import cli
from tests.tournaments.ladder.test_hostile_uploads import lying_zip
from tournaments.ladder import bot_cache, sessions
from tournaments.ladder import league as ladder
from tournaments.play.schedule import Scheduled
from tournaments.sandbox import leftovers

ROOT = Path(__file__).resolve().parents[3]
BOTS = ROOT / "bots"
GAME = "lemur-tails"
FAST = ladder.Limits(move_time=2.0, time_bank=5.0)


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    """Unpacked bots go to this test's own cache, not the user's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.fixture
def league(tmp_path):
    ledger = Ledger(str(tmp_path / "league.db"))
    ladder_rows.create(ledger, "spring", GAME, 2)
    return ledger


def bot_file(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / f"{name}.py"
    path.write_text(f"GAMES = '*'\n\n\nclass Bot:\n    def __init__(self, game, seat, rng):\n        self.rng = rng\n\n"
                    f"    def act(self, turn):\n{body}\n")
    return path


def test_submit_lists_a_bot_and_the_same_content_again_is_a_no_op(league):
    """A bot passes validation and is listed at 1500; the same file again changes nothing."""
    first = ladder.submit(league, "spring", BOTS / "random_bot.py", None, FAST)
    again = ladder.submit(league, "spring", BOTS / "random_bot.py", None, FAST)
    assert first.new and first.version == 1 and not again.new and again.entry_id == first.entry_id
    entries = ladder_rows.entries(league, ladder_rows.get(league, "spring")["id"])
    assert [(e["name"], e["version"], e["rating"], e["status"]) for e in entries] == [
        ("random_bot", 1, 1500.0, "active")]


@pytest.mark.slow
def test_new_content_is_a_new_version_and_the_old_one_retires_with_its_history(league, tmp_path):
    """Changed content under the same name: v2 is listed, v1 retires from matchmaking but keeps its games."""
    ladder.submit(league, "spring", BOTS / "random_bot.py", "alpha", FAST)
    ladder.submit(league, "spring", BOTS / "first_legal.sh", None, FAST)
    sessions.play(league, "spring", 4, 0, FAST, "1")
    changed = bot_file(tmp_path, "alpha", "        return turn.legal[-1]")
    second = ladder.submit(league, "spring", changed, "alpha", FAST)
    assert second.new and second.version == 2 and second.retired
    standings = ladder.standings(league, "spring", include_retired=True)
    versions = {(s.name, s.version): s for s in standings}
    assert versions[("alpha", 1)].status == "retired" and versions[("alpha", 1)].games == 4
    assert versions[("alpha", 2)].status == "active" and versions[("alpha", 2)].games == 0
    assert len(ladder.history(league, "spring", "alpha")) == 4
    assert [s.name for s in ladder.standings(league, "spring")].count("alpha") == 1


@pytest.mark.parametrize(("body", "reason"), [
    ("        raise RuntimeError('boom')", "crashed: RuntimeError: boom"),
    ("        return 'teleport:moon'", "illegal action"),
    ("        return 7", "answered int 7, not one of its legal actions"),
])
def test_a_submission_that_fails_its_validation_game_is_refused_with_the_reason(league, tmp_path, body, reason):
    """A bot that crashes or misbehaves in its validation game is refused with the reason `run` records
    (a crash keeps its exception text, issue 16 item 4), and nothing is stored."""
    path = bot_file(tmp_path, "broken", body)
    with pytest.raises(ladder.LadderError, match=rf"refused: in its validation game it forfeited .*{reason}"):
        ladder.submit(league, "spring", path, None, FAST)
    assert ladder_rows.entries(league, ladder_rows.get(league, "spring")["id"], active_only=False) == []


def test_a_submission_over_its_memory_limit_is_killed_and_refused(league, tmp_path):
    """RLIMIT_AS: a bot that tries to hold 400 MiB under a 200 MiB limit fails its validation."""
    hoard = "        self.hoard = bytearray(400 * 1024 * 1024)\n        return turn.legal[0]"
    path = bot_file(tmp_path, "hungry", hoard)
    with pytest.raises(ladder.LadderError, match="refused"):
        ladder.submit(league, "spring", path, None, ladder.Limits(2.0, 5.0, 60, 200))


@pytest.mark.slow
def test_a_submission_over_its_cpu_limit_is_killed_and_refused(league, tmp_path):
    """RLIMIT_CPU: a bot spinning for more CPU seconds than allowed is killed, though its move time is long."""
    path = bot_file(tmp_path, "spinner", "        while True:\n            pass")
    with pytest.raises(ladder.LadderError, match=r"refused: .*crashed"):
        ladder.submit(league, "spring", path, None, ladder.Limits(30.0, 0.0, 1, 1024))


def test_a_python_submission_never_runs_in_the_ladders_process(league, tmp_path):
    """A submitted Python file runs through tournaments.bots.pyhost in its own sandbox: its import-time
    side effect (creating a file beside it) happens neither in this process nor anywhere on the host,
    and no bot module is loaded here, yet it plays its validation games."""
    marker = tmp_path / "imported-here"
    path = bot_file(tmp_path, "spy", "        return turn.legal[0]")
    path.write_text(f"try:\n    open({str(marker)!r}, 'w').close()\nexcept OSError:\n    pass\n" + path.read_text())
    assert ladder.submit(league, "spring", path, None, FAST).new
    assert not marker.exists()
    assert not [module for module in list(sys.modules.values())
                if str(getattr(module, "__file__", None) or "").startswith(str(tmp_path))]


@pytest.mark.slow
def test_play_standings_history_and_rebuild_equal_the_incremental_ratings(league):
    """Games are stored and rated as they end; refolding the ledger gives the very same numbers."""
    for path in ("heuristic_lemur_tails.py", "random_bot.py", "first_legal.sh"):
        ladder.submit(league, "spring", BOTS / path, None, FAST)
    played = sessions.play(league, "spring", 12, 2, FAST, "3")
    assert played >= 12
    ladder_id = ladder_rows.get(league, "spring")["id"]
    before = {e["id"]: e["rating"] for e in ladder_rows.entries(league, ladder_id)}
    assert sum(e["games"] for e in ladder_rows.entries(league, ladder_id)) == 2 * played
    changes = ladder.rebuild(league, "spring")
    assert all(old == new for old, new in changes.values())
    assert {e["id"]: e["rating"] for e in ladder_rows.entries(league, ladder_id)} == before
    history = ladder.history(league, "spring", "random_bot")
    assert history and history[-1]["rating"] == before[next(e for e in ladder_rows.entries(league, ladder_id)
                                                             if e["name"] == "random_bot")["id"]]


@pytest.mark.slow
def test_two_ladder_play_processes_at_once_lose_no_game_and_count_none_twice(tmp_path):
    """Two real `ladder play` processes feed one ladder: every game is stored once and rated once."""
    db = str(tmp_path / "league.db")
    run = [*cli.COMMAND, "ladder"]
    subprocess.run([*run, "create", "duo", "--game", GAME, "--db", db], check=True, capture_output=True, cwd=ROOT)
    for path in ("heuristic_lemur_tails.py", "random_bot.py", "first_legal.sh"):
        subprocess.run([*run, "submit", "duo", str(BOTS / path), "--db", db], check=True, capture_output=True,
                       cwd=ROOT)
    players = [subprocess.Popen([*run, "play", "duo", "--games", "16", "--jobs", "1", "--seed", str(seed),
                                 "--db", db], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
               for seed in (1, 2)]
    outputs = [p.communicate(timeout=300) for p in players]
    assert [p.returncode for p in players] == [0, 0], outputs
    played = sum(int(line.split()[1]) for out, _ in outputs for line in out.decode().splitlines()
                 if line.startswith("played "))
    ledger = Ledger(db)
    ladder_id = ladder_rows.get(ledger, "duo")["id"]
    with ledger.read() as connection:
        stored = connection.exec_driver_sql("SELECT COUNT(*), COUNT(DISTINCT game_id) FROM ladder_games").first()
        rated = connection.exec_driver_sql("SELECT COUNT(*) FROM ladder_ratings").scalar()
    assert stored == (played, played) and rated == 2 * played
    assert sum(e["games"] for e in ladder_rows.entries(ledger, ladder_id)) == 2 * played
    incremental = {e["id"]: e["rating"] for e in ladder_rows.entries(ledger, ladder_id)}
    assert all(old == new for old, new in ladder.rebuild(ledger, "duo").values())
    assert {e["id"]: e["rating"] for e in ladder_rows.entries(ledger, ladder_id)} == incremental


@pytest.mark.slow
def test_standings_converge_and_a_resubmitted_identical_bot_does_not_move(league):
    """With the shipped bots the heuristic ranks above random within 60 games; resubmitting it changes nothing."""
    ladder.submit(league, "spring", BOTS / "heuristic_lemur_tails.py", "heuristic", FAST)
    ladder.submit(league, "spring", BOTS / "random_bot.py", "random", FAST)
    sessions.play(league, "spring", 60, 2, FAST, "11")
    standings = {s.name: s for s in ladder.standings(league, "spring")}
    assert standings["heuristic"].rating > standings["random"].rating
    assert standings["heuristic"].rating - standings["heuristic"].margin > standings["random"].rating
    resubmitted = ladder.submit(league, "spring", BOTS / "heuristic_lemur_tails.py", "heuristic", FAST)
    assert not resubmitted.new
    assert {s.name: s.rating for s in ladder.standings(league, "spring")} == {
        name: s.rating for name, s in standings.items()}


@pytest.mark.slow
def test_cli_ladder_commands(tmp_path):
    """create, list, submit (twice), standings --json, history and rebuild through the CLI."""
    db = ["--db", str(tmp_path / "cli.db")]
    assert cli.invoke("ladder", "create", "cup", "--game", GAME, *db).exit_code == 0
    again = cli.invoke("ladder", "create", "cup", "--game", GAME, *db)
    assert again.exit_code == 1 and "already exists" in again.output
    for path in ("random_bot.py", "first_legal.sh"):
        result = cli.invoke("ladder", "submit", "cup", str(BOTS / path), *db)
        assert result.exit_code == 0 and "listed" in result.output, result.output
    same = cli.invoke("ladder", "submit", "cup", str(BOTS / "random_bot.py"), *db)
    assert "nothing changed" in same.output
    play = cli.invoke("ladder", "play", "cup", "--games", "2", "--jobs", "0", "--seed", "4", *db)
    assert play.exit_code == 0, play.output
    standings = json.loads(cli.invoke("ladder", "standings", "cup", "--json", *db).output)
    assert {row["bot"] for row in standings} == {"random_bot", "first_legal"}
    assert all(row["provisional"] for row in standings) and all(row["games"] == 2 for row in standings)
    history = json.loads(cli.invoke("ladder", "history", "cup", "first_legal", "--json", *db).output)
    assert len(history) == 2
    waiting = cli.invoke("ladder", "queue", "cup", *db)
    assert waiting.exit_code == 0 and "no match is waiting or being played" in waiting.output
    (match,) = json.loads(cli.invoke("ladder", "queue", "cup", "--all", "--json", *db).output)
    assert (match["deal"], match["status"], match["attempts"]) == (0, "stored", 1)
    assert sorted(match["table"]) == ["first_legal v1", "random_bot v1"]
    rebuilt = cli.invoke("ladder", "rebuild", "cup", *db)
    assert "all 2 ratings equal the incremental ones" in rebuilt.output
    listing = cli.invoke("ladder", "list", *db)
    assert "cup" in listing.output and GAME in listing.output
    unknown = cli.invoke("ladder", "standings", "nope", *db)
    assert unknown.exit_code == 1 and "no ladder 'nope'" in unknown.output
    missing = cli.invoke("ladder", "submit", "cup", str(tmp_path / "none.py"), *db)
    assert missing.exit_code == 1 and missing.output == f"error: {tmp_path / 'none.py'}: no such file\n"
    folder = cli.invoke("ladder", "submit", "cup", str(tmp_path), *db)
    assert folder.exit_code == 1 and "not a bot file" in folder.output


def test_play_needs_enough_active_bots(league):
    """A ladder with fewer active bots than seats says so instead of playing."""
    ladder.submit(league, "spring", BOTS / "random_bot.py", None, FAST)
    with pytest.raises(ladder.LadderError, match="needs 2 active bots to play, it has 1"):
        sessions.play(league, "spring", 2, 0, FAST, "1")


def test_materialized_bots_keep_their_exec_bit(league, tmp_path):
    """A stored executable is unpacked executable, into the user's private cache (mode 0700), in a
    folder keyed by its content hash and entry point."""
    ladder.submit(league, "spring", BOTS / "first_legal.sh", None, FAST)
    entry = ladder_rows.entries(league, ladder_rows.get(league, "spring")["id"])[0]
    entry_point, files = ladder_rows.archive(league, entry["bot_id"])
    directory = ladder.materialize(entry["content_hash"], entry_point, files)
    assert directory == tmp_path / "cache" / "tourney" / "bots" / f"{entry['content_hash']}-first_legal.sh"
    assert os.access(directory / "first_legal.sh", os.X_OK)
    assert stat.S_IMODE((tmp_path / "cache" / "tourney").stat().st_mode) == 0o700


def test_a_good_cached_bot_is_never_removed_under_another_process(league, monkeypatch):
    """Two ladder workers unpacking one bot at once: the one that looked while the folder was not there yet (here:
    its first check sees nothing) finds a good copy in place when it comes to put its own there, and leaves it:
    the same folder, the same files, so a game being played from it loses nothing. A copy that does not match is
    still replaced."""
    ladder.submit(league, "spring", BOTS / "random_bot.py", None, FAST)
    entry = ladder_rows.entries(league, ladder_rows.get(league, "spring")["id"])[0]
    entry_point, files = ladder_rows.archive(league, entry["bot_id"])
    directory = ladder.materialize(entry["content_hash"], entry_point, files)
    before = (directory.stat().st_ino, (directory / entry_point).stat().st_ino)
    playing = (directory / entry_point).open("rb")  # a game reads it now
    real = bot_cache._hash_of
    looks = []

    def first_look_sees_nothing(folder, point):
        looks.append(folder)
        return None if len(looks) == 1 else real(folder, point)

    monkeypatch.setattr(bot_cache, "_hash_of", first_look_sees_nothing)
    assert ladder.materialize(entry["content_hash"], entry_point, files) == directory
    assert (directory.stat().st_ino, (directory / entry_point).stat().st_ino) == before
    assert playing.read() == (directory / entry_point).read_bytes()
    playing.close()
    monkeypatch.setattr(bot_cache, "_hash_of", real)
    (directory / entry_point).write_text("changed on disk\n")
    assert ladder.materialize(entry["content_hash"], entry_point, files) == directory
    assert real(directory, entry_point) == entry["content_hash"]
    assert not [stale for stale in directory.parent.iterdir() if stale.name.startswith(bot_cache.WORKING)]


KILLED_MID_UNPACK = """
import os, signal, sys, zipfile
from pathlib import Path
from tournaments.ladder import bot_cache
zipfile.ZipFile.read = lambda *_args, **_kwargs: os.kill(os.getpid(), signal.SIGKILL)
bot_cache.materialize(sys.argv[1], sys.argv[2], Path(sys.argv[3]).read_bytes())
"""
"""A process SIGKILLed in the middle of unpacking a bot into the cache (as it reads the archive's first file)."""


def test_a_copy_half_unpacked_by_a_killed_process_is_removed_by_the_next_unpack(league, tmp_path):
    """A ladder worker killed while it unpacks a bot leaves its working folder, named for its machine and process;
    the next unpack into the cache on that machine, once that process is gone, removes it and puts the good copy in
    place (another machine's, in a shared home folder, is left to that machine)."""
    ladder.submit(league, "spring", BOTS / "random_bot.py", None, FAST)
    entry = ladder_rows.entries(league, ladder_rows.get(league, "spring")["id"])[0]
    entry_point, files = ladder_rows.archive(league, entry["bot_id"])
    archive = tmp_path / "bot.zip"
    archive.write_bytes(files)
    root = bot_cache.cache_root()
    shutil.rmtree(root)  # the submission's own validation unpacked it already
    killed = subprocess.Popen([sys.executable, "-c", KILLED_MID_UNPACK, entry["content_hash"], entry_point,
                               str(archive)], stderr=subprocess.PIPE, text=True, cwd=ROOT)
    assert killed.communicate(timeout=60)[1] == "" and killed.returncode == -9
    left = list(root.iterdir())
    assert [leftovers.parse(path.name, f"{bot_cache.WORKING}{socket.gethostname()}-")[0] for path in left] == [
        killed.pid]
    elsewhere = root / f"{bot_cache.WORKING}another-host-{killed.pid}-1-aaaaaaaa"  # a shared home: not ours to judge
    elsewhere.mkdir()
    directory = ladder.materialize(entry["content_hash"], entry_point, files)
    assert sorted(root.iterdir()) == sorted([directory, elsewhere])
    assert bot_cache._hash_of(directory, entry_point) == entry["content_hash"]


def test_a_stored_bot_that_cannot_be_unpacked_leaves_nothing_in_the_cache(tmp_path):
    """A stored archive that names a file outside its folder, or whose member is cut short, is refused, and the
    copy it was unpacking into is removed with the refusal (a hostile upload retried never fills the cache)."""
    escaping = io.BytesIO()
    with zipfile.ZipFile(escaping, "w") as archive:
        archive.writestr("bot.py", "GAMES = '*'\n")
        archive.writestr("../../escaped.py", "GAMES = '*'\n")
    with pytest.raises(ladder.LadderError, match="a file outside its folder"):
        ladder.materialize("0" * 64, "bot.py", escaping.getvalue())
    with pytest.raises(zipfile.BadZipFile):
        ladder.materialize("1" * 64, "lying.py", lying_zip())
    assert list(bot_cache.cache_root().iterdir()) == []
    assert not (tmp_path / "cache" / "tourney" / "escaped.py").exists()


@pytest.mark.slow
def test_a_cached_bot_is_checked_against_its_hash_before_each_use(league, tmp_path):
    """A cached bot whose file was changed after it was unpacked (by another local user, a disk
    fault) is unpacked again from the ledger before it plays: the games are the stored bot's."""
    ladder.submit(league, "spring", BOTS / "random_bot.py", None, FAST)
    ladder.submit(league, "spring", BOTS / "first_legal.sh", None, FAST)
    entry = next(e for e in ladder_rows.entries(league, ladder_rows.get(league,
                                                                        "spring")["id"]) if e["name"] == "random_bot")
    cached = tmp_path / "cache" / "tourney" / "bots" / f"{entry['content_hash']}-random_bot.py" / "random_bot.py"
    original = cached.read_bytes()
    cached.write_text("GAMES = '*'\n\n\nclass Bot:\n    def __init__(self, game, seat, rng):\n        pass\n\n"
                      "    def act(self, turn):\n        return 'teleport:moon'\n")
    assert sessions.play(league, "spring", 2, 0, FAST, "1") == 2
    assert cached.read_bytes() == original
    assert [s.forfeits for s in ladder.standings(league, "spring")] == [0, 0]


def test_a_renamed_copy_of_a_submitted_bot_is_accepted_as_the_same_content(league, tmp_path):
    """The same file under another name (and another entry point) is the same content: it passes its
    validation from a cache folder of its own and is listed, beside the original."""
    ladder.submit(league, "spring", BOTS / "random_bot.py", None, FAST)
    copy = tmp_path / "copy_of_random.py"
    shutil.copy(BOTS / "random_bot.py", copy)
    listed = ladder.submit(league, "spring", copy, None, FAST)
    assert listed.new and listed.name == "copy_of_random"
    hashes = {e["name"]: e["content_hash"] for e in ladder_rows.entries(league, ladder_rows.get(league,
                                                                                                "spring")["id"])}
    assert hashes["copy_of_random"] == hashes["random_bot"]
    assert sessions.play(league, "spring", 2, 0, FAST, "2") == 2


def test_validation_uses_a_fresh_seed_like_any_ladder_game(league, tmp_path):
    """A bot that misbehaves only when its seed is one a fixed validation seed would give it (the
    seeds of the old fixed validation) cannot tell validation from play: it is accepted, as it
    would be in any ladder game."""
    fixed = [Scheduled(f"validation-r{r}", 0, 0, r, ("x", "y"), "validation-seed").bot_seed("validation", seat)
             for r in range(2) for seat in range(2)]
    path = tmp_path / "wary.py"
    path.write_text(f"import random\nGAMES = '*'\nVALIDATION_SEEDS = {fixed!r}\n\n\nclass Bot:\n"
                    "    def __init__(self, game, seat, rng):\n"
                    "        seen = [random.Random(s).getstate() for s in VALIDATION_SEEDS]\n"
                    "        self.validated = rng.getstate() in seen\n"
                    "\n    def act(self, turn):\n"
                    "        return 'refuse:validation' if self.validated else turn.legal[0]\n")
    assert ladder.submit(league, "spring", path, None, FAST).new


@pytest.mark.slow
def test_a_queued_match_whose_bot_retired_since_is_cancelled_not_played(league):
    """Matches are matchmade when they are queued; one whose table has a bot retired before it is played is
    cancelled (no game of the retired bot after its retirement), the others are played and the session ends."""
    for path in ("random_bot.py", "first_legal.sh", "heuristic_lemur_tails.py"):
        ladder.submit(league, "spring", BOTS / path, None, FAST)
    worker = sessions.Worker(league, ladder_rows.get(league, "spring"), FAST, 0)
    session = worker.open(8, "6")
    while worker.queue_next(session):  # queue every deal of the session, as a worker would, batch by batch
        match_rows.claim(league, 1, "queueing", 60.0, 100)
    queued = match_rows.matches(league, 1)
    match_rows.release(league, "queueing", [m["id"] for m in queued])
    retired = queued[0]["entries"][0]
    name = next(e["name"] for e in ladder_rows.entries(league, 1) if e["id"] == retired)
    ladder.retire(league, "spring", name, "withdrawn by its author")
    assert worker.drive(session) == 2 * sum(retired not in m["entries"] for m in queued)
    assert {m["id"]: m["status"] for m in match_rows.matches(league, 1)} == {
        m["id"]: "cancelled" if retired in m["entries"] else "stored" for m in queued}
    worker.stop_session(session)
    assert ladder_rows.sessions(league, 1)[0]["ended_at"] is not None
    played = [e for e in ladder_rows.entries(league, 1, active_only=False) if e["id"] == retired]
    assert played[0]["games"] == 0
