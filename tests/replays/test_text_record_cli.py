"""`tourney replay export --format text`, and `replay verify` and `replay import` of text records, on a real ledger."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from replays import text_record
from tests import cli
from tests.tournaments.play.test_protocol import make_folder


def invoke(*args: str):
    return cli.invoke(*list(args), width=200)


@pytest.fixture(scope="module")
def cup(tmp_path_factory) -> Path:
    """A Nine Tails cup at three seats (places, not 1-0): three random bots and one that answers an illegal action at
    its second decision (a forfeit in each of its games), one deal per table."""
    tmp = tmp_path_factory.mktemp("cup")
    folder = make_folder(tmp, good=3, fixtures=("illegal.py",))
    db = tmp / "t.db"
    result = invoke("run", str(folder), "--game", "nine-tails", "--players", "3", "--games", "1", "--seed", "4",
                    "--name", "cup", "--jobs", "1", "--sandbox", "off", "--db", str(db), "--progress", "none")
    assert result.exit_code == 0, result.output
    return db


@pytest.fixture(scope="module")
def records(cup, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("records")
    result = invoke("replay", "export", "--tournament", "cup", "--out", str(out), "--format", "text", "--db", str(cup))
    assert result.exit_code == 0 and result.stdout == f"wrote 12 text records and tournament.manifest to {out}\n"
    return out


def heads(db: Path) -> dict[str, str]:
    with closing(sqlite3.connect(db)) as connection:
        return dict(connection.execute("SELECT id, head FROM games"))


@pytest.mark.slow
def test_export_writes_a_record_per_game_with_its_labels(cup, records):
    """Each stored game is <game id>.record, its labels saying the tournament, the day and the key."""
    files = sorted(records.glob("*.record"))
    assert sorted(path.stem for path in files) == sorted(heads(cup))
    text = files[0].read_text()
    assert text.startswith('[Format "tourney-record"]\n[FormatVersion 1]\n[Event "cup"]\n[Date "')
    assert re.search(r'^\[Key "t\d+-d\d+-r\d+"\]$', text, re.MULTILINE)
    assert re.search(r'^\[Signature \{"algorithm":"ed25519",', text, re.MULTILINE)
    assert re.search(r'^\[Result "places [1-3]-[1-3]-[1-3]"\]$', text, re.MULTILINE)
    forfeits = [path for path in files if '[Termination "forfeit"]' in path.read_text()]
    assert len(forfeits) == 9 and all("teleport:moon" in path.read_text() for path in forfeits)


def test_records_verify_with_their_manifest_and_the_ledger_key(cup, records):
    """`replay verify` of the folder passes every record and the manifest, under the ledger's key."""
    result = invoke("replay", "verify", str(records), "--key", f"{cup}.pub")
    assert result.exit_code == 0, result.output
    assert result.stdout.count("checked against the given key") == 12
    assert "verified 12 games" in result.stdout and "all passed; 1 manifest passed" in result.stdout


@pytest.mark.slow
def test_import_of_records_stores_the_very_games(cup, records, tmp_path):
    """Records imported into another ledger are the same games (ids and heads), which verify there, forfeits and all."""
    mirror = tmp_path / "mirror.db"
    result = invoke("replay", "import", str(records), "--db", str(mirror))
    assert result.exit_code == 0 and result.stdout.endswith("12 logs read, 12 new games stored\n"), result.output
    assert heads(mirror) == heads(cup)
    assert invoke("replay", "verify", "--db", str(mirror), "-q").exit_code == 0
    again = invoke("replay", "import", str(records), "--db", str(mirror))
    assert again.exit_code == 0
    assert again.stdout.endswith("12 logs read, 0 new games stored (every game was already stored)\n")
    assert again.stdout.count("already stored in imported-nine-tails") == 12
    json_out = tmp_path / "json"
    invoke("replay", "export", "--tournament", "imported-nine-tails", "--out", str(json_out), "--db", str(mirror))
    original = tmp_path / "original"
    invoke("replay", "export", "--tournament", "cup", "--out", str(original), "--db", str(cup))
    for path in original.glob("*.json"):  # the JSON logs, but for the signature each ledger's key made
        assert _unsigned(path.read_bytes()) == _unsigned((json_out / path.name).read_bytes())


def _unsigned(raw: bytes) -> dict:
    import orjson

    log = orjson.loads(raw)
    log.pop("signature", None)
    return log


def test_a_tampered_record_fails_verify_and_import_naming_its_line(records, tmp_path):
    """A changed decision fails `replay verify` (exit 1) and `replay import` (nothing stored), naming the line."""
    # Game ids are drawn, so which game sorts first changes from run to run; illegal.py's games at its seat 0 end
    # after one decision: the first record (by name) with a third decision line, a line that carries a check.
    for source in sorted(records.glob("*.record")):
        lines = source.read_text().split("\n")
        checked = [at for at in range(lines.index(""), len(lines)) if re.search(r" #[0-9a-f]{8}$", lines[at])]
        if len(checked) >= 3:
            break
    number = checked[2] + 1
    lines[number - 1] = re.sub(r"#[0-9a-f]{8}$", "#00000000", lines[number - 1])
    assert lines[number - 1] != source.read_text().split("\n")[number - 1]
    forged = tmp_path / source.name
    forged.write_text("\n".join(lines))
    verified = invoke("replay", "verify", str(forged))
    assert verified.exit_code == 1
    assert re.search(rf"^FAIL {re.escape(str(forged))}: game {source.stem}: line {number}: expected check "
                     r"#[0-9a-f]{8} \(the hash chain after this decision\), found #00000000$", verified.stderr,
                     re.MULTILINE)
    mirror = tmp_path / "mirror.db"
    imported = invoke("replay", "import", str(forged), "--db", str(mirror))
    assert imported.exit_code == 1 and f"line {number}: expected check" in imported.stderr
    assert not mirror.exists() or heads(mirror) == {}


def test_text_export_of_a_redacted_view_is_refused(cup, tmp_path):
    """A text record is always the full view: --format text --view spectator is one usage line, exit 2."""
    result = invoke("replay", "export", "--tournament", "cup", "--out", str(tmp_path / "o"), "--format", "text",
                    "--view", "spectator", "--db", str(cup))
    assert result.exit_code == 2 and not (tmp_path / "o").exists()
    assert result.stderr.startswith("error: Invalid value for '--view': --format text writes the full view only")
    assert len(result.stderr.strip().splitlines()) == 1


def test_unknown_export_format_is_refused(cup, tmp_path):
    """--format is json or text."""
    result = invoke("replay", "export", "--tournament", "cup", "--out", str(tmp_path / "o"), "--format", "pgn",
                    "--db", str(cup))
    assert result.exit_code == 2 and "'pgn' is not one of json, text" in result.stderr


@pytest.mark.slow
def test_a_record_signed_with_another_key_names_the_signature_line(cup, tmp_path):
    """`export --sign KEY --format text` signs each record's head with KEY; verify --key checks it at its line."""
    assert invoke("keys", "new", str(tmp_path / "pub")).exit_code == 0
    out = tmp_path / "signed"
    result = invoke("replay", "export", "--tournament", "cup", "--out", str(out), "--format", "text", "--sign",
                    str(tmp_path / "pub.key"), "--db", str(cup))
    assert result.exit_code == 0 and result.stdout.endswith("(signed)\n")
    assert invoke("replay", "verify", str(out), "--key", str(tmp_path / "pub.pub")).exit_code == 0
    wrong = invoke("replay", "verify", str(out), "--key", f"{cup}.pub")
    first = sorted(out.glob("*.record"))[0]
    line = next(n for n, text in enumerate(first.read_text().split("\n"), 1) if text.startswith("[Signature "))
    assert wrong.exit_code == 1 and f"{first.stem}: line {line}: signed by key" in wrong.stderr


def test_an_empty_folder_names_both_kinds_of_file(tmp_path):
    """A folder with neither .json logs nor .record text records is one error line."""
    (tmp_path / "empty").mkdir()
    result = invoke("replay", "import", str(tmp_path / "empty"), "--db", str(tmp_path / "m.db"))
    assert result.exit_code == 1
    assert result.output == f"error: {tmp_path / 'empty'}: no .json logs or .record text records in this folder\n"


def test_records_name_their_games_and_are_much_smaller_than_their_logs(cup, records, tmp_path):
    """Each record names its game; a tournament's records take a tenth of its JSON logs or less (a log holds every
    event with its hash; a record, a line per decision)."""
    logs = tmp_path / "logs"
    invoke("replay", "export", "--tournament", "cup", "--out", str(logs), "--db", str(cup))
    for path in records.glob("*.record"):
        assert text_record.parse(path.read_text()).tags["GameId"].value == path.stem
    size = sum(path.stat().st_size for path in records.glob("*.record"))
    assert size * 10 < sum(path.stat().st_size for path in logs.glob("*.json"))
