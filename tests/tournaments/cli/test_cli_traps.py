"""The traps a new user fell into (issue 31): each failure is one line that says what to do, and leaves nothing.

A failed command creates no database and no ledger key; a bot left out is named where the
tournament is refused for too few bots; messages name the option to change; counts are
worded "1 game"; a clone's `.gitignore` keeps private keys out of a commit.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cli import invoke as tourney
from tournaments.cli.serve import install_command
from tournaments.play import protocol

ROOT = Path(__file__).resolve().parents[3]
BOTS = ROOT / "bots"



def left_behind(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("tourney.db") or p.suffix in (".key", ".pub"))


def test_gitignore_keeps_private_keys_out_and_public_ones_in():
    """`git add .` in a clone skips the ledger's private key (league.db.key) and keys new's NAME.key, not the .pub."""
    def ignored(name: str) -> bool:
        return subprocess.run(["git", "check-ignore", "--no-index", "-q", name], cwd=ROOT).returncode == 0

    assert ignored("league.db.key") and ignored("tourney.db.key") and ignored("keys/mykey.key")
    assert not ignored("league.db.pub") and not ignored("mykey.pub")


FAILING = {
    "run, no such folder": (["run", "nobots/", "--game", "tails-on-fire"], "error: nobots: not a directory of bots\n"),
    "match, no such bot": (["match", "bots/x.py", "nosuchbot", "--game", "tails-on-fire"],
                           "error: bots/x.py: no such bot file, and no folder bots to find a bot of that name in\n"),
    "run --resume, no database": ([
        "run", BOTS, "--game", "lemur-tails", "--resume"], "error: no database at tourney.db: nothing to resume\n"),
    "ladder submit, no database": (["ladder", "submit", "spring", BOTS / "random_bot.py"],
                                   "error: no database at tourney.db\n"),
    "users token, no database": (["users", "token", "bob"], "error: no database at tourney.db: nothing to give owner "
                                 "'bob' a token (`tourney users add` adds one)\n"),
    "run, too many players": (["run", BOTS, "--game", "lemur-tails", "--players", "5"],
                              f"error: lemur-tails is played by 2 players, not 5 in {BOTS}\n"),
}


@pytest.mark.parametrize("case", list(FAILING))
def test_a_command_that_fails_before_its_work_creates_no_database(tmp_path, monkeypatch, case):
    """Each fails with its one line and exit 1, and the folder holds no tourney.db and no ledger key afterwards."""
    monkeypatch.chdir(tmp_path)
    args, line = FAILING[case]
    result = tourney(*args)
    assert (result.exit_code, result.output) == (1, line)
    assert left_behind(tmp_path) == []


def test_a_match_with_a_bot_whose_games_hold_a_typo_names_the_game_it_meant(tmp_path, monkeypatch):
    """`tourney match typo.py ...` where typo.py declares GAMES = ("lemur-tail",): one line naming lemur-tails as the
    game it likely meant, exit 1, no database."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "typo.py").write_text((BOTS / "random_bot.py").read_text().replace('GAMES = "*"',
                                                                                    'GAMES = ("lemur-tail",)'))
    result = tourney("match", "typo.py", BOTS / "random_bot.py", "--game", "lemur-tails")
    assert (result.exit_code, result.output) == (1, "error: typo.py plays lemur-tail, not lemur-tails (no game is "
                                                    "named lemur-tail: did you mean lemur-tails?)\n")
    assert left_behind(tmp_path) == []


def test_an_import_of_logs_that_all_fail_creates_no_database(tmp_path, monkeypatch):
    """`replay import` of a bad log reports it and exits 1, and makes no database for the nothing it stored."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.json").write_text("{oops")
    result = tourney("replay", "import", "bad.json")
    assert result.exit_code == 1 and "stored nothing" in result.output
    assert left_behind(tmp_path) == []


def test_a_bot_left_out_is_named_where_the_tournament_is_refused(tmp_path, monkeypatch):
    """One bot, one that never answers its handshake and a Python file that is no bot: the refusal ("needs at least
    2 bots, found 1") says which files were skipped and which bot was left out, and why; no database is made."""
    monkeypatch.setattr(protocol, "HANDSHAKE_SECONDS", 0.5)
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "pair"
    folder.mkdir()
    shutil.copy(BOTS / "random_bot.py", folder)
    silent = folder / "silent.sh"
    silent.write_text("#!/bin/sh\nsleep 30\n")
    silent.chmod(0o755)
    (folder / "helper.py").write_text("def helps():\n    return 1\n")
    result = tourney("run", folder, "--game", "lemur-tails", "--sandbox", "off", "--jobs", "0")
    assert result.exit_code == 1
    assert result.output == (f"error: lemur-tails needs at least 2 bots, found 1 in {folder} (skipped helper.py: a "
                             "Python bot defines GAMES and class Bot (see docs/bot-protocol.md); left out silent: "
                             "timed out: no answer within 0.50 s to hello (a bot must answer each line at once and "
                             "flush its output: docs/bot-protocol.md))\n")
    assert left_behind(tmp_path) == []


def test_gauntlet_and_candidate_messages_say_which_is_missing(tmp_path, monkeypatch):
    """--format gauntlet without --candidate asks for it; --candidate without the gauntlet says it belongs there."""
    monkeypatch.chdir(tmp_path)
    missing = tourney("run", BOTS, "--game", "lemur-tails", "--format", "gauntlet")
    assert missing.exit_code == 2
    assert missing.output == ("error: Invalid value: --format gauntlet needs --candidate NAME: the bot that plays at "
                              "every table (see `tourney run --help`)\n")
    alone = tourney("run", BOTS, "--game", "lemur-tails", "--candidate", "random_bot")
    assert alone.exit_code == 2
    assert alone.output == ("error: Invalid value: --candidate is for --format gauntlet only "
                            "(see `tourney run --help`)\n")
    assert left_behind(tmp_path) == []


def test_a_refused_resume_names_the_option_that_differs(tmp_path):
    """`--resume --games 2` of a tournament of 1 deal says --games, with both values."""
    folder = tmp_path / "pair"
    folder.mkdir()
    for name in ("random_bot.py", "random_program.bot.json"):
        shutil.copy(BOTS / name, folder)
    shutil.copytree(BOTS / "programs", folder / "programs")
    db = tmp_path / "t.db"
    common = ["--game", "lemur-tails", "--seed", "1", "--sandbox", "off", "--jobs", "0", "--db", db]
    assert tourney("run", folder, "--games", "1", *common).exit_code == 0
    result = tourney("run", folder, "--games", "2", "--resume", *common)
    assert result.exit_code == 1
    assert result.output.splitlines()[-1] == ("error: cannot resume 'pair-lemur-tails-seed1': its --games (stored 1, "
                                              "given 2) differs from this command's")


def test_counts_of_one_are_worded_in_the_singular(tmp_path):
    """One game verified is "verified 1 game, ...", one page written "wrote 1 page and index.html"."""
    folder = tmp_path / "pair"
    folder.mkdir()
    shutil.copy(BOTS / "random_bot.py", folder / "a.py")
    shutil.copy(BOTS / "random_bot.py", folder / "b.py")
    db = tmp_path / "t.db"
    assert tourney("run", folder, "--game", "lemur-tails", "--games", "1", "--seed", "1", "--sandbox", "off",
                   "--jobs", "0", "--db", db).exit_code == 0
    logs = tmp_path / "logs"
    assert tourney("replay", "export", "--tournament", "pair-lemur-tails-seed1", "--out", logs, "--db", db
                   ).exit_code == 0
    one = sorted(logs.glob("*.json"))[0]
    verified = tourney("replay", "verify", one)
    assert verified.exit_code == 0 and verified.output.splitlines()[-1].startswith("verified 1 game, ")
    lone = tmp_path / "lone"
    lone.mkdir()
    shutil.copy(one, lone)
    pages = tourney("replay", "html", lone, "-o", tmp_path / "site")
    assert pages.exit_code == 0 and pages.output == f"wrote 1 page and index.html to {tmp_path / 'site'}\n"


def test_a_signed_export_verifies_with_its_key_and_a_failing_manifest_is_named(tmp_path, monkeypatch):
    """`replay export --sign mykey.key` then `replay verify signed/ --key mykey.pub` passes, the manifest's
    checkpoint included; against another key the summary names the manifest that failed."""
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "pair"
    folder.mkdir()
    shutil.copy(BOTS / "random_bot.py", folder / "a.py")
    shutil.copy(BOTS / "random_bot.py", folder / "b.py")
    assert tourney("run", folder, "--game", "lemur-tails", "--games", "1", "--seed", "1", "--sandbox", "off",
                   "--jobs", "0", "--name", "cup").exit_code == 0
    assert tourney("keys", "new", "mykey").exit_code == 0
    exported = tourney("replay", "export", "--tournament", "cup", "--out", "signed/", "--sign", "mykey.key")
    assert exported.output == "wrote 2 full logs and tournament.manifest to signed (signed)\n"
    verified = tourney("replay", "verify", "signed/", "--key", "mykey.pub", "--quiet")
    assert verified.exit_code == 0 and verified.output.endswith(": all passed; 1 manifest passed\n")
    other = tourney("replay", "verify", "signed/", "--key", "tourney.db.pub", "--quiet")
    assert other.exit_code == 1
    # The checkpoint's key, and the two logs that failed (a manifest holds only if every log of its folder does).
    assert other.stdout.endswith("; manifest FAILED: signed/tournament.manifest (2 problems)\n")
    assert "FAIL signed/tournament.manifest: 2 of the folder's logs failed to verify" in other.stderr


def test_serve_says_how_to_add_the_web_extra_where_tourney_came_from(tmp_path):
    """In the clone tourney came from: '.[web]'; elsewhere the clone's path; installed by name: 'tourney[web]'."""
    clone = tmp_path / "tourney"
    clone.mkdir()
    assert install_command(clone, clone) == "pip install '.[web]'"
    assert install_command(clone, tmp_path) == f"pip install '{clone}[web]'"
    assert install_command(None, tmp_path) == "pip install 'tourney[web]'"


def test_a_script_without_its_run_bit_and_an_executable_python_program_are_left_out_with_a_hint(tmp_path,
                                                                                                monkeypatch):
    """A `.sh` without the run bit, a `#!` script of no suffix without it, and an executable `.py` that is a program
    (not a Python bot), are each left out with a notice saying how to play them (chmod +x; a manifest), not skipped
    in silence or with a bare error; a file of notes is still ignored."""
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "bots"
    folder.mkdir()
    for name in ("random_bot.py", "first_legal.sh"):
        shutil.copy(BOTS / name, folder)
    (folder / "first_legal.sh").chmod(0o644)
    program = folder / "player.py"
    program.write_text("#!/usr/bin/env python3\nimport sys\nfor line in sys.stdin:\n    pass\n")
    program.chmod(0o755)
    (folder / "mybot").write_text("#!/bin/sh\nexec python3 mybot.py\n")
    (folder / "NOTES").write_text("the first legal action, always\n")
    result = tourney("run", folder, "--game", "lemur-tails", "--sandbox", "off", "--jobs", "0")
    assert result.exit_code == 1
    assert "skipped mybot: it is not executable: `chmod +x mybot` to play it as a program" in result.output
    assert "NOTES" not in result.output
    assert "skipped first_legal.sh: it is not executable: `chmod +x first_legal.sh` to play it as a program" in \
        result.output
    assert ("skipped player.py: a Python bot defines GAMES and class Bot (see docs/bot-protocol.md); it is "
            "executable: to run it as a program, name it in a manifest player.bot.json (docs/bot-protocol.md)") in \
        result.output


def test_an_executable_that_is_no_program_is_left_out_with_its_reason_and_never_run(tmp_path, monkeypatch):
    """Every file executable, as on vfat: a note, a private key and a script without its #! line are each left out
    in one notice (never staged or run: the script would leave a file behind), the #! script and the binary play."""
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "bots"
    folder.mkdir()
    shutil.copy(BOTS / "first_legal.sh", folder)
    shutil.copy("/bin/true", folder / "binary")  # an ELF header: a program (it fails its handshake: left out)
    (folder / "notes.txt").write_text("the first legal action, always\n")
    (folder / "mine.key").write_text("-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEI...\n")
    (folder / "noshebang").write_text("touch ran\n")
    for path in folder.iterdir():
        path.chmod(0o755)
    result = tourney("run", folder, "--game", "lemur-tails", "--sandbox", "off", "--jobs", "0")
    reason = ("executable, but not a program: a script starts with a #! line, a binary with an ELF header (a file "
              "system such as vfat makes every file executable)")
    for name in ("mine.key", "noshebang", "notes.txt"):
        assert f"skipped {name}: {reason}" in result.output, result.output
    assert "skipped first_legal.sh" not in result.output and "left out binary: " in result.output, result.output
    assert not (folder / "ran").exists() and not (tmp_path / "ran").exists()
