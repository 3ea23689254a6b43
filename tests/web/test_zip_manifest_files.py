"""A zip uploaded with a .bot.json manifest keeps the files its command names and no other (docs/bot-protocol.md,
"Its own files"): one holding a file its command does not name is refused at upload, the line naming each file it
would drop, as a zip whose .py entry has company is (tests/web/test_refusals.py); naming them is the way on, and the
bot then runs with them. Through the API the web's upload form posts to, over a real SQLite league."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.web.league import LADDER, ROOT, tourney
from tests.web.test_api import upload, zipped
from tournaments.bots.discovery import describe, manifest_files

PLAYER = (ROOT / "bots" / "programs" / "random_player.py").read_bytes()
BOT = PLAYER.replace(b"import sys\n", b"import sys\n\nimport helper  # beside it in the zip: here only if named\n")
"""The shipped random program, importing a module of its own (a bot without it fails as it starts)."""
HELPER = b'"""What the bot imports."""\n'


def manifest(*command: str) -> bytes:
    return orjson.dumps({"command": ["python3", *command], "name": "helped"})


def queued(api, token: str) -> int:
    return api.get("/api/me/submissions", token=token).json()["total"]


def test_a_file_the_manifest_does_not_name_is_refused_at_upload_by_name(api, league):
    """A zip of a manifest running bot.py, and helper.py and data/weights.bin beside it, was queued and the two
    dropped when unpacked (the bot then failed at its validation, or played without its weights): it is refused at
    once (422, one line naming both), and nothing is queued."""
    token = league.tokens["alice"]
    files = {"helped.bot.json": manifest("bot.py"), "bot.py": BOT, "helper.py": HELPER, "data/weights.bin": b"\0"}
    answer = upload(api, token, zipped(files), "helped.zip", bot="helped")
    assert (answer.status_code, answer.json()) == (422, {"detail": (
        "the zip holds data/weights.bin, helper.py beside its manifest helped.bot.json, whose command does not name "
        "them: a bot has only the files its command names, so name each file it needs in the command, or leave it "
        "out of the zip (docs/bot-protocol.md)")})
    lone = upload(api, token, zipped({**files, "helped.bot.json": manifest("bot.py", "data/weights.bin")}), "h.zip")
    assert lone.status_code == 422 and "the zip holds helper.py beside its manifest" in lone.json()["detail"]
    assert queued(api, token) == 0


def test_a_file_in_another_folder_than_the_manifest_is_refused_too(api, league):
    """The command runs in the manifest's folder and names files from there: a file beside that folder is dropped
    even when a word of the command spells its name."""
    files = {"bot/helped.bot.json": manifest("bot.py", "helper.py"), "bot/bot.py": BOT, "helper.py": HELPER}
    answer = upload(api, league.tokens["alice"], zipped(files), "helped.zip", entry="bot/helped.bot.json")
    assert answer.status_code == 422
    assert answer.json()["detail"].startswith("the zip holds helper.py beside its manifest bot/helped.bot.json")


def test_a_manifest_that_names_every_file_is_taken_and_its_bot_runs_with_them(api, league):
    """Named in the command, helper.py is the bot's: the upload is queued, and the worker validates the bot, which
    imports it in its sandbox, and lists it."""
    token = league.tokens["bob"]
    files = {"helped.bot.json": manifest("bot.py", "helper.py"), "bot.py": BOT, "helper.py": HELPER}
    answer = upload(api, token, zipped(files), "helped.zip", bot="helped")
    assert answer.status_code == 202, answer.text
    tourney("ladder", "work", LADDER, "--rounds", "1", "--games", "1", "--jobs", "0", "--db", league.path)
    decided = api.get(answer.headers["location"], token=token).json()
    assert (decided["status"], decided["reason"]) == ("listed", None)


@pytest.mark.parametrize("command", [
    ["bot.py", "helper.py"], ["./bot.py", "lib/../helper.py", "data"], ["-u", "bot.py", "../helper.py", "/etc/hosts"],
    ["data/weights.bin", "bot.py", "bot.py"],
])
def test_what_an_upload_keeps_is_what_describe_finds_once_unpacked(tmp_path, command):
    """The check of an upload (manifest_files, over the zip's names) and discovery over the unpacked folder (describe)
    follow one rule: the same files are the bot's, whatever the words of its command."""
    text = manifest(*command)
    files = {"sub/helped.bot.json": text, "sub/bot.py": BOT, "sub/helper.py": HELPER, "sub/data/weights.bin": b"",
             "helper.py": HELPER, "notes.txt": b""}
    for name, content in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(content)
    found = describe(tmp_path / "sub" / "helped.bot.json")
    kept = manifest_files("sub/helped.bot.json", text, list(files))
    assert sorted(kept) == sorted(str(Path("sub", name)) for name in found.files)
