"""A bots folder written by attackers, played by a real `tourney run` process: every bot discovery cannot read
as a bot's own regular files is left out with its reason, the others play, and no content hash covers a file
outside the folder.

One folder holds every attack beside two good bots; the module plays it once (a real process, the sandbox on,
bounded in time, so a discovery that hangs fails the tests instead of hanging them), and each test checks one
attack's outcome.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import cli
from tests.tournaments.play.test_protocol import GAME, SHIPPED, stored_games
from tournaments.bots import discovery
from tournaments.bots.discovery import discover

pytestmark = pytest.mark.sandbox

TIMEOUT = 180


@dataclass(frozen=True)
class Played:
    folder: Path
    db: Path
    secret: Path
    own: dict[str, bytes]
    """Bot name -> the bytes its content hash must cover."""
    done: subprocess.CompletedProcess

    def notice(self, file: str) -> str:
        """The one line of stderr that leaves ``file`` out."""
        [line] = [line for line in self.done.stderr.splitlines() if line.startswith(f"skipped {file}: ")]
        return line

    def content_hash(self, bot: str) -> str:
        with closing(sqlite3.connect(self.db)) as connection:
            [(found,)] = connection.execute("SELECT DISTINCT content_hash FROM bots WHERE name = ?", (bot,))
        return found


def program(folder: Path, name: str, *args: str) -> bytes:
    """A program bot NAME.bot.json running _NAME.sh, a copy of bots/first_legal.sh (which ignores its
    arguments), with ``args`` after it; the bytes its content hash must cover (the manifest's, then the
    script's)."""
    shutil.copy(SHIPPED / "first_legal.sh", folder / f"_{name}.sh")
    manifest = json.dumps({"command": [f"./_{name}.sh", *args]}).encode()
    (folder / f"{name}.bot.json").write_bytes(manifest)
    return manifest + (folder / f"_{name}.sh").read_bytes()


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Played:
    tmp = tmp_path_factory.mktemp("hostile-folder")
    folder = tmp / "bots"
    folder.mkdir()
    shutil.copy(SHIPPED / "random_bot.py", folder / "random_bot.py")
    shutil.copy(SHIPPED / "random_bot.py", folder / "random_b.py")
    os.symlink("/dev/zero", folder / "zero.py")
    os.mkfifo(folder / "fifo.py")
    with (folder / "big.py").open("wb") as big:
        big.truncate(discovery.MAX_SOURCE_BYTES + 1)
    own = {"pagemap": program(folder, "pagemap", "/proc/self/pagemap")}
    os.symlink("/proc/self/pagemap", folder / "maps")
    program(folder, "mapper", "maps")
    secret = tmp / "secret.txt"
    secret.write_text("the organiser's secret\n")
    own["spy"] = program(folder, "spy", str(secret), "../secret.txt")
    os.symlink(secret, folder / "leak")
    program(folder, "leaker", "leak")
    os.symlink("random_bot.py", folder / "alias.py")
    db = tmp / "t.db"
    done = cli.tourney("run", str(folder), "--game", GAME, "--games", "1",
                       "--jobs", "0", "--sandbox", "on", "--db", str(db), "--json", timeout=TIMEOUT, cwd=tmp,
                       env={**os.environ, "COLUMNS": "500"})  # notices on one line each
    return Played(folder, db, secret, own, done)


def test_the_run_goes_on_and_the_good_bots_play(played):
    """Whatever the folder holds, `tourney run` ends (exit 0, no traceback) and plays every bot it could read."""
    assert played.done.returncode == 0, played.done.stderr
    assert "Traceback" not in played.done.stderr
    bots = {row["bot"] for row in json.loads(played.done.stdout)["standings"]}
    assert bots == {"random_bot", "random_b", "alias", "pagemap", "spy"}
    assert {game.reason for game in stored_games(played.db).values()} == {"finished"}


def test_a_symlink_to_dev_zero_is_left_out_unread(played):
    """Attack: zero.py is a symlink to /dev/zero, which tourney read without bound (1.9 GiB in its process).
    A symlink may lead only to a file inside the folder: zero.py is left out, unread, with the reason."""
    assert played.notice("zero.py") == "skipped zero.py: zero.py leads outside the bots folder (to /dev/zero)"


def test_a_fifo_is_left_out_without_waiting_for_a_writer(played):
    """Attack: fifo.py is a FIFO, whose reading waited for a writer forever, hanging `tourney run`. It is
    opened without blocking and refused as not a regular file."""
    assert played.notice("fifo.py") == "skipped fifo.py: fifo.py is not a regular file (a FIFO)"


def test_a_python_file_too_big_to_parse_is_left_out(played):
    """Attack: a Python bot's source is parsed to read GAMES, and parsing costs about 150 times its size in
    memory; a file over MAX_SOURCE_BYTES is refused after reading at most that much."""
    assert played.notice("big.py") == "skipped big.py: big.py is larger than 2 MiB"


def test_a_manifest_naming_proc_never_reads_it(played):
    """Attack: a manifest naming /proc/self/pagemap ended the whole run (`error: Invalid argument`, the
    kernel refusing the read). A path out of the folder is a word of the command, never read: the bot plays,
    its content hash covering its manifest and script only; the same file named through a symlink inside
    the folder leaves that bot out, with the reason."""
    assert played.content_hash("pagemap") == hashlib.sha256(played.own["pagemap"]).hexdigest()
    line = played.notice("mapper.bot.json")
    assert line.startswith("skipped mapper.bot.json: maps leads to /proc/")
    assert line.endswith("/pagemap: a bot's files are never read from /proc")


def test_a_host_file_named_by_a_manifest_is_not_in_the_content_hash(played):
    """Attack: a manifest naming a host file outside its folder (by absolute path, by ../) mixed that file into
    the bot's recorded content hash, so a submitter could confirm guesses about any file tourney can read. The
    hash covers the bot's own files only; a symlink inside the folder leading to the file leaves the bot out."""
    assert played.content_hash("spy") == hashlib.sha256(played.own["spy"]).hexdigest()
    assert played.notice("leaker.bot.json") == (
        f"skipped leaker.bot.json: leak leads outside the bots folder (to {played.secret})")


def test_a_symlink_inside_the_folder_is_a_bot(played):
    """A symlink to another file of the folder is read like that file: alias.py plays with random_bot's hash."""
    assert played.content_hash("alias") == played.content_hash("random_bot")


def test_a_file_swapped_for_a_fifo_after_discovery_is_refused_when_staged(tmp_path):
    """Attack: a file replaced by a FIFO between discovery and staging would hang the copy; staging reads the
    files as discovery does, so it fails at once with the reason."""
    folder = tmp_path / "bots"
    folder.mkdir()
    program(folder, "swap")
    [spec], notices = discover(folder, GAME)
    assert notices == []
    (folder / "_swap.sh").unlink()
    os.mkfifo(folder / "_swap.sh")
    (tmp_path / "staged").mkdir()
    with pytest.raises(discovery.BotError, match=r"_swap.sh is not a regular file \(a FIFO\)"):
        discovery.staged_copy(spec, tmp_path / "staged")
