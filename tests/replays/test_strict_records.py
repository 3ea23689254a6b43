"""A value of the wrong kind is not a default: a text record's tag of the wrong type (`[Options null]`,
`[FormatVersion 1.0]`, `[Key 5]`) and a JSON log's `"signature": null` were once read as `{}`, as version 1, as a
label, as an unsigned log. `replay verify`, `show` and `import` refuse each in one line naming the tag or field and
what it must be, exit 1, nothing stored; the signed logs and records export writes still verify."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from pathlib import Path

import orjson
import pytest

from replays import log as logfmt
from replays import text_record
from tests import cli
from tests.tournaments.play.test_protocol import GAME, make_folder


def invoke(*args: str | Path):
    return cli.invoke(*args, width=200)


@pytest.fixture(scope="module")
def signed(tmp_path_factory) -> dict[str, Path]:
    """A Lemur Tails cup of two random bots (two games), exported signed by a key of its own: as JSON logs and as
    text records, with that key's public half."""
    tmp = tmp_path_factory.mktemp("cup")
    db = tmp / "t.db"
    played = invoke("run", make_folder(tmp, good=2), "--game", GAME, "--games", "1", "--seed", "3", "--name", "cup",
                    "--jobs", "0", "--sandbox", "off", "--db", db, "--progress", "none")
    assert played.exit_code == 0, played.output
    assert invoke("keys", "new", tmp / "publisher").exit_code == 0
    out = {"db": db, "key": tmp / "publisher.pub"}
    for kind in ("json", "text"):
        out[kind] = tmp / kind
        exported = invoke("replay", "export", "--tournament", "cup", "--out", out[kind], "--format", kind, "--sign",
                          tmp / "publisher.key", "--db", db)
        assert exported.exit_code == 0 and exported.stdout.endswith("(signed)\n"), exported.output
    return out


def first(folder: Path, suffix: str) -> Path:
    return sorted(folder.glob(f"*{suffix}"))[0]


def stored_games(db: Path) -> int:
    if not db.exists():
        return 0
    with closing(sqlite3.connect(db)) as connection:
        return connection.execute("SELECT count(*) FROM games").fetchone()[0]


def refused_everywhere(path: Path, tmp_path: Path, said: str) -> None:
    """`replay verify`, `show` and `import` of ``path`` each refuse it, exit 1, in one line that says ``said``;
    import stores nothing."""
    verified = invoke("replay", "verify", path, "--jobs", "0")
    assert verified.exit_code == 1 and verified.stderr.splitlines() == [f"FAIL {path}: {said}"], verified.stderr
    shown = invoke("replay", "show", path)
    assert shown.exit_code == 1 and shown.stdout == "", shown.output
    assert shown.stderr.splitlines() in ([f"error: {said}"], [f"error: {path}: {said}"]), shown.stderr
    mirror = tmp_path / "mirror.db"
    imported = invoke("replay", "import", path, "--db", mirror)
    assert imported.exit_code == 1, imported.output
    assert [line for line in imported.stderr.splitlines() if line.startswith("FAIL ")] == [f"FAIL {path}: {said}"]
    assert "stored nothing" in imported.stderr and stored_games(mirror) == 0


# -- text records: every tag is of its kind ----------------------------------------------------------------------

WRONG_KINDS = [  # (tag, a value of the wrong kind, what the tag must be)
    *(("Options", value, "an object") for value in ("null", "0", "false", '""', "[]")),
    ("FormatVersion", "1.0", "a whole number"), ("FormatVersion", "true", "a whole number"),
    ("Key", "5", "a string"), ("Event", "null", "a string"), ("Date", "[]", "a string"),
    ("Game", '["lemur-tails"]', "a string"), ("Rules", "2.0", "a whole number"), ("Seats", '"2"', "a whole number"),
    ("Seat0", "null", "a string"), ("Seat1Hash", "7", "a string"), ("Result", "1", "a string"),
    ("Termination", "null", "a string"), ("ForfeitSeat", "0.0", "a whole number"), ("ForfeitReason", "{}", "a string"),
    ("GameId", "0", "a string"), ("Prng", "null", "a string"), ("Seed", "false", "a string"),
    ("SeedCommitment", "null", "a string of 64 hex digits (0-9a-f)"), ("EndedKeys", "null", "a list of strings"),
    ("EndedKeys", '["ranking",1]', "a list of strings"), ("Opening", "0", "a string of 64 hex digits (0-9a-f)"),
    ("Head", '"XYZ"', "a string of 64 hex digits (0-9a-f)"), ("Signature", "null", "an object"),
    ("Signature", '"ed25519"', "an object"),
]


def with_tag(text: str, tag: str, value: str) -> tuple[str, int]:
    """The record with ``[tag value]`` in place of its tag (or, if it has none, just before Head), and its line."""
    lines = text.split("\n")
    at = next((n for n, line in enumerate(lines) if line.startswith(f"[{tag} ")), None)
    if at is None:
        at = next(n for n, line in enumerate(lines) if line.startswith("[Head "))
        lines.insert(at, "")
    lines[at] = f"[{tag} {value}]"
    return "\n".join(lines), at + 1


@pytest.mark.parametrize(("tag", "value", "said"), WRONG_KINDS)
def test_a_record_tag_of_the_wrong_kind_is_refused_naming_the_tag(signed, tmp_path, tag, value, said):
    """Each tag the format knows is read as its kind or refused at its line: none is taken for a default."""
    text, number = with_tag(first(signed["text"], ".record").read_text(), tag, value)
    path = tmp_path / "odd.record"
    path.write_text(text)
    refused_everywhere(path, tmp_path, f"line {number}: {tag} must be {said}, found {value!r}")


def test_a_record_is_not_written_of_a_log_with_a_null_signature(signed):
    """Export reads its record back: a log whose signature is null gives none (its Signature tag is refused)."""
    log = logfmt.read(first(signed["json"], ".json"))
    with pytest.raises(logfmt.LogError, match=r"line \d+: Signature must be an object, found 'null'"):
        text_record.write({**log, "signature": None})


def test_a_deal_book_of_format_version_1_0_is_refused(tmp_path):
    """The version tag is shared with deal books: 1.0 is no version there either."""
    book = tmp_path / "book.deals"
    book.write_text('[Format "tourney-deals"]\n[FormatVersion 1.0]\n[Game "lemur-tails"]\n\nabc\n')
    db = tmp_path / "t.db"
    result = invoke("run", make_folder(tmp_path), "--game", GAME, "--deals", book, "--db", db, "--sandbox", "off")
    assert result.exit_code == 1 and not db.exists()
    assert result.stderr.splitlines() == [f"error: {book}: line 2: unknown deal book format version '1.0'"]


# -- JSON logs: a null is not an absent field ----------------------------------------------------------------------


@pytest.mark.parametrize("source", ["signed", "unsigned"])
def test_a_null_signature_is_refused_not_taken_for_an_unsigned_log(signed, tmp_path, source):
    """`"signature": null` is a malformed signature, not a missing one (the format lets it be absent, never null),
    whether the log was signed or not."""
    log = orjson.loads(first(signed["json"], ".json").read_bytes())
    if source == "unsigned":
        del log["signature"]
        assert invoke("replay", "verify", _written(tmp_path / "plain.json", log)).exit_code == 0
    path = _written(tmp_path / "odd.json", {**log, "signature": None})
    refused_everywhere(path, tmp_path, f"game {log['game_id']}: signature: must be an object, found null")


@pytest.mark.parametrize("field", ["seed", "result"])
def test_a_null_seed_or_result_of_a_finished_game_is_refused(signed, tmp_path, field):
    """The envelope's other nullable fields: null only while the game is not over, so a finished game's is named."""
    log = orjson.loads(first(signed["json"], ".json").read_bytes())
    path = _written(tmp_path / "odd.json", {**log, field: None})
    verified = invoke("replay", "verify", path, "--jobs", "0")
    assert verified.exit_code == 1
    assert re.fullmatch(rf"FAIL {re.escape(str(path))}: game {log['game_id']}: seq \d+: expected the header's "
                        rf"{field} null, found .* hashed\n", verified.stderr), verified.stderr


def _written(path: Path, log: dict) -> Path:
    path.write_bytes(logfmt.dumps(log))
    return path


# -- what export writes still verifies -----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["json", "text"])
def test_signed_logs_and_records_that_export_writes_verify_and_import(signed, tmp_path, kind):
    """Every signed log (and record) of the cup verifies under its key, is shown, and imports."""
    folder = signed[kind]
    verified = invoke("replay", "verify", folder, "--key", signed["key"], "--jobs", "0")
    assert verified.exit_code == 0 and verified.stdout.count("checked against the given key") == 2, verified.output
    suffix = ".json" if kind == "json" else ".record"
    assert invoke("replay", "show", first(folder, suffix)).exit_code == 0
    mirror = tmp_path / "mirror.db"
    imported = invoke("replay", "import", folder, "--key", signed["key"], "--db", mirror)
    assert imported.exit_code == 0 and stored_games(mirror) == 2, imported.output
