"""Tampered input that `replay verify` and `replay import` once accepted: a forged copy of a log beside the real one
in an exported folder, a key written twice in a log, an unsigned forgery imported and then signed by the ledger, and
the messages around them (where a game already stored really is, Python's own words in a signature's errors)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from replays import log as logfmt
from replays.tags import TextError, parse_tag
from tests import cli
from tests.replays.forgery import forge_forfeit, real_log
from tests.tournaments.play.test_protocol import GAME, make_folder


def invoke(*args: str | Path):
    return cli.invoke(*args, width=200)


@pytest.fixture(scope="module")
def cup(tmp_path_factory) -> Path:
    """A Lemur Tails cup of two random bots, two deals (four games), its ledger key beside it (t.db.key, t.db.pub)."""
    tmp = tmp_path_factory.mktemp("cup")
    db = tmp / "t.db"
    result = invoke("run", make_folder(tmp, good=2), "--game", GAME, "--games", "2", "--seed", "7", "--name", "cup",
                    "--jobs", "0", "--sandbox", "off", "--db", db, "--progress", "none")
    assert result.exit_code == 0, result.output
    return db


def export(cup: Path, out: Path) -> Path:
    result = invoke("replay", "export", "--tournament", "cup", "--out", out, "--db", cup)
    assert result.exit_code == 0 and result.stdout == f"wrote 4 full logs and tournament.manifest to {out}\n"
    return out


def first_log(folder: Path) -> Path:
    return sorted(folder.glob("*.json"))[0]


def forged_copy(real: Path, target: Path) -> Path:
    """A forged log of the game of ``real``: cut after a few steps, a seat made to forfeit, hashes recomputed."""
    target.write_bytes(logfmt.dumps(forge_forfeit(logfmt.read(real), 3)))
    return target


def verify(*args: str | Path):
    return invoke("replay", "verify", "--quiet", "--jobs", "0", *args)


def failures(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("FAIL ")]


# -- 1. every file of a folder against its manifest ----------------------------------------------------------------


def test_a_forged_copy_beside_the_real_log_fails_the_manifest_naming_both_files(cup, tmp_path):
    """A forged log of a listed game (another head), its file sorting first (00.json), beside the real log: each
    file is held against the manifest, so the forgery's head and the game in two files fail it, named by file;
    with --key the forgery fails as a log too, and the manifest with it, never "1 manifest passed"."""
    out = export(cup, tmp_path / "logs")
    real = first_log(out)
    forged = forged_copy(real, out / "00.json")
    game_id = real.stem
    alone = verify(forged)
    assert alone.exit_code == 0, alone.output  # unsigned, the forgery proves its own consistency, nothing more
    result = verify(out)
    assert result.exit_code == 1 and "manifest FAILED" in result.stdout and "manifest passed" not in result.stdout
    manifest = out / "tournament.manifest"
    assert f"FAIL {manifest}: game {game_id} is in 2 files ({forged}, {real}): a folder holds one log per game" \
        in failures(result), result.stderr
    assert f"FAIL {manifest}: game {game_id}: {forged}: its head is not the listed one" in failures(result)
    keyed = verify(out, "--key", cup.with_name("t.db.pub"))
    assert keyed.exit_code == 1 and "manifest passed" not in keyed.stdout, keyed.output
    assert f"FAIL {forged}: game {game_id}: the log is not signed, but a key was given to check" in failures(keyed)
    assert f"FAIL {manifest}: {forged} failed to verify" in failures(keyed), keyed.stderr
    assert keyed.stdout.endswith(f": 1 FAILED; manifest FAILED: {manifest} (3 problems)\n"), keyed.stdout


def test_an_exact_copy_of_a_log_fails_the_manifest(cup, tmp_path):
    """The same log twice in the folder (a copy named 00.json): both verify, but the manifest lists one file a game."""
    out = export(cup, tmp_path / "logs")
    real = first_log(out)
    shutil.copy(real, out / "00.json")
    result = verify(out)
    assert result.exit_code == 1, result.output
    assert failures(result) == [f"FAIL {out / 'tournament.manifest'}: game {real.stem} is in 2 files "
                                f"({out / '00.json'}, {real}): a folder holds one log per game"], result.stderr
    assert result.stdout.endswith(f": all passed; manifest FAILED: {out / 'tournament.manifest'} (1 problem)\n")
    (out / "00.json").unlink()
    assert verify(out).stdout.endswith(": all passed; 1 manifest passed\n")


def test_a_manifest_that_repeats_a_key_fails(cup, tmp_path):
    """A manifest is read as strictly as a log: a second "name" written before the real one (a reader keeping the
    first would see another tournament) fails it, named by its path."""
    out = export(cup, tmp_path / "logs")
    manifest = out / "tournament.manifest"
    text = manifest.read_text()
    manifest.write_text(text.replace("{", '{\n  "name": "other",', 1))
    result = verify(out)
    assert result.exit_code == 1, result.output
    assert any(f"{manifest}: name: duplicate key" in line for line in result.output.splitlines()), result.output


# -- 2. a key written twice ------------------------------------------------------------------------------------------


def doubled(path: Path, target: Path, text: str) -> Path:
    """``path``'s log with ``text`` (keys and values) written before its own first key."""
    raw = path.read_text()
    assert raw.startswith("{\n")
    target.write_text("{" + text + ",\n" + raw[2:])
    return target


def test_a_signed_log_with_a_key_written_twice_is_refused_by_every_reader(cup, tmp_path):
    """A signed log with a second "result" and "head" placed before its own (orjson keeps the last, which the
    signature covers): verify --key, import and show refuse it in one line naming the key, and nothing is stored."""
    out = export(cup, tmp_path / "logs")
    forged = doubled(first_log(out), tmp_path / "twice.json",
                     '"result":{"ranking":[2,1],"reason":"finished"},"head":"' + "0" * 64 + '"')
    result = verify(forged, "--key", cup.with_name("t.db.pub"))
    assert result.exit_code == 1 and failures(result) == [f"FAIL {forged}: head: duplicate key"], result.output
    imported = invoke("replay", "import", forged, "--db", tmp_path / "other.db")
    assert imported.exit_code == 1 and f"FAIL {forged}: head: duplicate key" in imported.stderr, imported.output
    assert "0 new games stored" in imported.stdout
    shown = invoke("replay", "show", forged)
    assert shown.exit_code == 1 and shown.stderr == f"error: {forged}: head: duplicate key\n", shown.output


@pytest.mark.parametrize(("where", "expected"), [
    ('"x":1', None),  # no key twice: the same value as orjson reads
    ('"a":{"b":1,"b":2}', "a.b: duplicate key"),
    ('"a":[0,{"c":[{"d":1,"e":2,"d":3}]}]', "a[1].c[0].d: duplicate key"),
    ('"a":1,"a":1', "a: duplicate key"),
    ('"\\u0007":1,"\\u0007":2', "'\\x07': duplicate key"),  # a key that is not printable, escaped
])
def test_a_key_twice_is_named_by_its_path(where, expected):
    """Text not in the form tourney writes is read by the standard library's parser, whose hook sees every key."""
    text = "{" + where + "}"
    if expected is None:
        assert logfmt.loads_strictly(text) == json.loads(text)
        return
    with pytest.raises(logfmt.LogError) as error:
        logfmt.loads_strictly(text, "f.json")
    assert str(error.value) == f"f.json: {expected}"


def test_a_written_log_takes_the_cheap_path_and_a_reformatted_one_the_full_check():
    """A log as tourney writes it is its own proof (its text is the serialization of what it parses to); the same
    log with a key twice, or formatted otherwise, is checked pair by pair. A big integer keeps its value there."""
    log = real_log(GAME, "twice")
    written = logfmt.dumps(log)
    assert logfmt.parse(written) == log
    compact = json.dumps(log)  # another form: the full check, the same value
    assert logfmt.parse(compact) == log
    with pytest.raises(logfmt.LogError, match=r"^log: game: duplicate key$"):
        logfmt.parse(compact.replace('"game": ', '"game": "nine-tails", "game": ', 1))
    big = logfmt.loads_strictly('{"seats": 1000000000000000000000000000000}', written=False)
    assert big == {"seats": 10**30}  # not orjson's float 1e+30


def test_a_text_record_tag_with_a_key_twice_is_refused():
    """A text record's tag value is JSON too: a key twice in it is refused, naming the line."""
    tags: dict = {}
    parse_tag("r.record", 4, '[Options {"seats":2}]', tags)
    assert tags["Options"].value == {"seats": 2}
    with pytest.raises(TextError) as error:
        parse_tag("r.record", 5, '[Config {"seats":2,"seats":3}]', tags)
    assert str(error.value) == "r.record: line 5: the value of Config: seats: duplicate key"


# -- 3. import --key -------------------------------------------------------------------------------------------------


def heads(db: Path) -> dict[str, str]:
    with closing(sqlite3.connect(db)) as connection:
        return dict(connection.execute("SELECT id, head FROM games"))


def test_import_with_a_key_stores_only_logs_that_key_signed(cup, tmp_path):
    """Without --key an unsigned forgery is stored (and then the ledger signs it, and refuses the real log); with
    --key it is refused and not stored, and the real, signed logs are."""
    out = export(cup, tmp_path / "logs")
    real = first_log(out)
    forged = forged_copy(real, tmp_path / "forged.json")
    published = cup.with_name("t.db.pub")
    trusting = invoke("replay", "import", forged, "--db", tmp_path / "trusting.db")
    assert trusting.exit_code == 0, trusting.output  # what --key is for
    checked_db = tmp_path / "checked.db"
    refused = invoke("replay", "import", forged, "--db", checked_db, "--key", published)
    assert refused.exit_code == 1, refused.output
    assert f"FAIL {forged}: game {real.stem}: the log is not signed, but a key was given to check" in refused.stderr
    assert refused.stdout == "1 log read, 0 new games stored\n"
    assert not checked_db.exists() or heads(checked_db) == {}
    stored = invoke("replay", "import", out, "--db", checked_db, "--key", published)
    assert stored.exit_code == 0 and stored.stdout.endswith("4 logs read, 4 new games stored\n"), stored.output
    assert heads(checked_db) == heads(cup)
    invoke("keys", "new", tmp_path / "other")
    other = invoke("replay", "import", real, "--db", tmp_path / "third.db", "--key", tmp_path / "other.pub")
    assert other.exit_code == 1 and "not the given key" in other.stderr, other.output


# -- 4. messages -----------------------------------------------------------------------------------------------------


def test_importing_into_the_ledger_the_games_were_played_in_names_their_tournament(cup, tmp_path):
    """Every game already stored: each line names the tournament it is really in, and the command succeeds."""
    out = export(cup, tmp_path / "logs")
    db = tmp_path / "t.db"
    with closing(sqlite3.connect(cup)) as source, closing(sqlite3.connect(db)) as copy:
        source.backup(copy)  # the ledger as it is, its write-ahead log included
    for suffix in (".key", ".pub"):
        shutil.copy(cup.with_name(cup.name + suffix), db.with_name(db.name + suffix))
    result = invoke("replay", "import", out, "--db", db)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[:4] == [f"{path}: game {path.stem} already stored in cup"
                         for path in sorted(out.glob("*.json"))], result.stdout
    assert lines[4] == "4 logs read, 0 new games stored (every game was already stored)"
    assert "imported-" not in result.output and "error" not in result.output


@pytest.mark.parametrize(("change", "expected"), [
    (lambda s: s.pop("public_key"), "signature.public_key: missing"),
    (lambda s: s.pop("algorithm"), "signature.algorithm: missing"),
    (lambda s: s.update(public_key="zz" * 32), "signature.public_key: must be 64 hex digits"),
    (lambda s: s.update(public_key="ab"), "signature.public_key: must be 64 hex digits"),
    (lambda s: s.update(signature=5), "signature.signature: must be a string, found integer"),
    (lambda s: s.update(signature=None), "signature.signature: must be a string, found null"),
    (lambda s: s.update(algorithm="rsa"), "signature.algorithm: must be 'ed25519', found rsa"),
])
def test_a_malformed_signature_is_named_by_its_path(cup, tmp_path, change, expected):
    """No Python words ("string indices must be integers", "fromhex()", "'public_key'"): the field's path."""
    out = export(cup, tmp_path / "logs")
    log = json.loads(first_log(out).read_text())
    change(log["signature"])
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(log))
    result = verify(path)
    assert failures(result) == [f"FAIL {path}: game {log['game_id']}: {expected}"], result.output


@pytest.mark.parametrize(("signature", "found"), [("abc", "string"), ([], "array")])
def test_a_signature_that_is_not_an_object_says_what_it_is(signature, found, tmp_path):
    log = {**real_log(GAME, "sig"), "signature": signature}
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(log))
    result = verify(path)
    assert failures(result) == [f"FAIL {path}: game {log['game_id']}: signature: must be an object, found {found}"]


def test_verify_messages_name_json_types_and_numbers_as_written(tmp_path):
    """A log that is null is "found null" (not NoneType); an integer past 64 bits is shown as written, not as the
    float 1e+30; a failed file is named once; a run where every game failed counts no events."""
    null = tmp_path / "null.json"
    null.write_text("null")
    log = real_log(GAME, "big")
    log["config"]["seats"] = 10**30
    big = tmp_path / "big.json"
    big.write_text(json.dumps(log))
    result = verify(null, big)
    assert result.exit_code == 1
    assert failures(result) == [
        f"FAIL {null}: a log is a JSON object, found null",
        f"FAIL {big}: game {log['game_id']}: seq 0: expected the header's config "
        '{"options":{},"seats":1000000000000000000000000000000}, found {"options":{},"seats":2} hashed']
    assert result.stdout.startswith("verified 2 games in ") and result.stdout.endswith(": none passed, 2 FAILED\n")


def test_verify_help_and_jobs_speak_of_verifying():
    """verify plays no games: its --jobs and --executor say what verifies where."""
    helped = invoke("replay", "verify", "--help")
    text = " ".join(helped.stdout.split())
    assert "0: verify here" in text and "Where games are verified" in text, text
    assert "play here" not in text and "games are played" not in text, text
    wrong = invoke("replay", "verify", "--jobs", "-1", "x.json")
    assert wrong.exit_code == 2 and "-1 is out of range: 0 (verify here) to " in wrong.output, wrong.output


def test_a_checkpoint_over_one_game_is_singular(tmp_path, cup):
    """`ok tournament 'solo': 1 game; checkpoint ... over 1 game (open)`, not "over 1 games"."""
    out = export(cup, tmp_path / "logs")
    db = tmp_path / "solo.db"
    assert invoke("replay", "import", first_log(out), "--db", db, "--tournament", "solo").exit_code == 0
    result = invoke("replay", "verify", "--db", db, "--jobs", "0")
    assert result.exit_code == 0, result.output
    assert any(line.startswith("ok   tournament 'solo': 1 game; checkpoint ") and line.endswith(" over 1 game (open)")
               for line in result.stdout.splitlines()), result.stdout
