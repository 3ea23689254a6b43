"""What `replay show` and `replay html` refuse, and how: a malformed log, a signature that does not hold, a header
that lies about its game, a missing file, a text record, a path that is no regular file. Both commands check a log
on one path (replays/render.py ``verified``), so each refusal is the same one line, exit 1, from either; nothing of a
refused log is printed, and no page of it written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from replays import archive, signing, text_record
from replays import log as logfmt
from tests import cli
from tests.golden.cases import CASES
from tests.replays.forgery import reseal

GOLDEN = {case.name: case.path for case in CASES}


def golden() -> dict:
    return logfmt.read(GOLDEN["lemur-tails"])


def signed() -> dict:
    return signing.sign(golden(), Ed25519PrivateKey.generate())


def changed(log: dict, **fields) -> dict:
    """``log`` with ``fields`` set (``...``: removed)."""
    out = {key: value for key, value in log.items() if fields.get(key) is not ...}
    out.update({key: value for key, value in fields.items() if value is not ...})
    return out


def flipped(log: dict) -> dict:
    """A signed log whose signature no longer matches its head (one hex digit of it changed)."""
    value = log["signature"]["signature"]
    return changed(log, signature={**log["signature"], "signature": ("1" if value[0] == "0" else "0") + value[1:]})


MALFORMED = {  # the log -> what its one line says
    "seats null": (lambda: changed(golden(), seats=None), "field 'seats' must be a list, found nothing"),
    "seats 5": (lambda: changed(golden(), seats=5), "field 'seats' must be a list, found int 5"),
    "seats a string": (lambda: changed(golden(), seats="ab"), "field 'seats' must be a list"),
    "seats [1, 2]": (lambda: changed(golden(), seats=[1, 2]), "seats[0] must be {seat: 0, bot: string"),
    "a seat with no bot": (lambda: changed(golden(), seats=[{"seat": 0, "hash": "0" * 64}, golden()["seats"][1]]),
                           "seats[0] must be {seat: 0, bot: string"),
    "view 3": (lambda: changed(golden(), view=3), "field 'view' must be a string, found int 3"),
    "view null": (lambda: changed(golden(), view=None), "field 'view' must be a string, found nothing"),
    "no view": (lambda: changed(golden(), view=...), "view: missing"),
    "a broken signature": (lambda: flipped(signed()), "signature does not match the head"),
    "signature x": (lambda: changed(golden(), signature="x"), "game lemur-tails: signature"),
    "signature []": (lambda: changed(golden(), signature=[]), "game lemur-tails: signature"),
    "signature {}": (lambda: changed(golden(), signature={}), "game lemur-tails: signature"),
    "a header naming another game": (lambda: changed(golden(), game="tails-on-fire"),
                                     "seq 0: expected the header's game 'tails-on-fire', found 'lemur-tails' hashed"),
    "a header naming rules version 99": (lambda: changed(golden(), engine_version=99),
                                         "seq 0: expected the header's engine_version 99, found 2 hashed"),
}


@pytest.mark.parametrize("case", MALFORMED)
def test_show_and_html_refuse_a_log_in_the_same_one_line(tmp_path, case):
    """Each was a traceback from `show` (seats, view), or shown whole with exit 0 (signatures), or "upgrade tourney"
    from `html` (a header that lies about the game): now one line, exit 1, the same from both, and the same verdict
    as `replay verify`'s."""
    make, message = MALFORMED[case]
    path = tmp_path / "bad.json"
    path.write_bytes(logfmt.dumps(make()))
    shown = cli.invoke("replay", "show", str(path))
    page = cli.invoke("replay", "html", str(path), "-o", str(tmp_path / "bad.html"))
    verified = cli.invoke("replay", "verify", str(path), "--jobs", "0")
    assert shown.exit_code == page.exit_code == verified.exit_code == 1, shown.output
    assert shown.stdout == page.stdout == "" and shown.stderr == page.stderr
    assert shown.stderr.startswith("error: ") and message in shown.stderr, shown.stderr
    assert len(shown.stderr.splitlines()) == 1
    assert shown.stderr.removeprefix("error: ").removeprefix(f"{path}: ") in verified.stderr
    assert not (tmp_path / "bad.html").exists()


def test_a_signed_log_is_shown_and_its_signature_checked(tmp_path):
    """A log whose signature holds is shown as before."""
    path = tmp_path / "signed.json"
    path.write_bytes(logfmt.dumps(signed()))
    shown = cli.invoke("replay", "show", str(path))
    assert shown.exit_code == 0 and "rank 1: seat 0 heuristic_lemur_tails" in shown.stdout, shown.output


def test_an_unknown_rules_version_in_a_folder_is_a_fail_line_and_the_rest_is_rendered(tmp_path):
    """A log of rules version 99, hashed as such (so verification reaches the rules lookup), stopped `replay html DIR`
    with an "upgrade tourney" error naming no file and writing no index.html: now a FAIL line naming the file, and the
    other logs get their pages and the index."""
    logs = tmp_path / "logs"
    logs.mkdir()
    future = golden()
    future["engine_version"] = future["events"][0]["data"]["engine_version"] = 99
    (logs / "a-future.json").write_bytes(logfmt.dumps(reseal(future)))
    (logs / "b-lies.json").write_bytes(logfmt.dumps(changed(golden(), engine_version=99)))
    (logs / "c-good.json").write_bytes(GOLDEN["lemur-tails"].read_bytes())
    out = tmp_path / "site"
    result = cli.invoke("replay", "html", str(logs), "-o", str(out))
    assert result.exit_code == 1
    failures = result.stderr.splitlines()
    assert len(failures) == 2 and all(line.startswith("FAIL ") for line in failures), result.stderr
    assert failures[0].startswith(f"FAIL {logs / 'a-future.json'}: ") and "no rules version 99" in failures[0]
    assert failures[1].startswith(f"FAIL {logs / 'b-lies.json'}: ") and "the header's engine_version 99" in failures[1]
    assert result.stdout == f"wrote 1 page and index.html to {out}\n"
    assert sorted(p.name for p in out.iterdir()) == ["c-good.html", "index.html"]


@pytest.mark.parametrize("command", ["show", "html"])
@pytest.mark.parametrize("name", ["logs/nothere.json", "nothere.json", "nothere.record", "logs/nothere"])
def test_a_missing_file_is_named_as_a_missing_file(tmp_path, monkeypatch, command, name):
    """`show logs/nothere.json` said "no database at tourney.db" (it took the name for a game id): a name with a slash
    or a log's suffix that is not there is a missing file, from `show` and `html` alike."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "logs").mkdir()
    result = cli.invoke("replay", command, name)
    assert result.exit_code == 1
    assert result.stderr == f"error: {name}: no such file or directory\n"
    assert not (tmp_path / "tourney.db").exists()


def test_a_text_record_is_shown_and_paged_as_its_log(tmp_path):
    """A .record text record said "not JSON": `show` and `html` read it as `verify` does, into its full log."""
    log = golden()
    record = tmp_path / "game.record"
    record.write_text(text_record.write(log), encoding="utf-8")
    from_log = tmp_path / "game.json"
    from_log.write_bytes(logfmt.dumps(log))
    shown = cli.invoke("replay", "show", str(record))
    assert shown.exit_code == 0, shown.output
    assert shown.stdout == cli.invoke("replay", "show", str(from_log)).stdout
    page = cli.invoke("replay", "html", str(record), "-o", str(tmp_path / "record.html"))
    assert page.exit_code == 0 and page.stdout.startswith(f"wrote {tmp_path / 'record.html'}: Lemur Tails game "), \
        page.output


@pytest.mark.parametrize(("command", "special"), [("show", "/dev/zero"), ("html", "fifo"), ("verify", "both")])
def test_a_path_that_is_no_regular_file_is_refused_not_read_forever(tmp_path, command, special):
    """`replay show /dev/zero` (and verify's, and html's) read without end; a FIFO waited for a writer forever. Both
    are one line now, exit 1 (a real process, bounded in time: reverted, this test fails rather than hangs)."""
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    paths = {"/dev/zero": [Path("/dev/zero")], "fifo": [fifo], "both": [Path("/dev/zero"), fifo]}[special]
    extra = {"html": ["-o", tmp_path / "page.html"], "verify": ["--jobs", "0"]}.get(command, [])
    result = cli.tourney("replay", command, *paths, *extra, cwd=tmp_path, timeout=120)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    for path in paths:
        assert f"{path}: not a regular file" in result.stderr, result.stderr
    assert not (tmp_path / "page.html").exists()


@pytest.fixture
def stored(tmp_path, ledger, db_path) -> dict[str, Path]:
    """The golden Lemur Tails log as a file and as a stored game (tourney.db)."""
    archive.import_log(ledger, golden())
    path = tmp_path / "game.json"
    path.write_bytes(logfmt.dumps(golden()))
    return {"log": path, "db": db_path}


def view_args(command: str, stored: dict[str, Path], view: str) -> list:
    out = stored["log"].parent / "out"
    if command == "export":
        return ["replay", "export", "lemur-tails", "--out", out, "--db", stored["db"], "--view", view]
    return ["replay", command, stored["log"], "--view", view] + (["-o", out] if command == "html" else [])


@pytest.mark.parametrize("command", ["show", "html", "export"])
@pytest.mark.parametrize("view", ["garbage", "seat:-1", "seat:", "seat:\u00b2", "Full"])
def test_a_malformed_view_is_a_usage_error(stored, command, view):
    """A --view that is not full, spectator or seat:K exited 1, where docs/cli.md says a bad option value exits 2
    (and `seat:²` was a traceback: a digit to str.isdigit, not to int)."""
    result = cli.invoke(*view_args(command, stored, view))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: Invalid value for '--view': {view!r} is not a view: use full, spectator "
                                    "or seat:K"), result.stderr
    assert len(result.stderr.splitlines()) == 1 and not (stored["log"].parent / "out").exists()


@pytest.mark.parametrize("command", ["show", "html", "export"])
def test_a_seat_the_game_does_not_have_is_the_logs_refusal(stored, command):
    """seat:5 of a two-seat game is well formed: the log refuses it (exit 1), and export makes no folder for it."""
    result = cli.invoke(*view_args(command, stored, "seat:5"))
    assert (result.exit_code, result.stderr) == (
        1, "error: unknown view 'seat:5': use full, spectator or seat:K with K from 0 to 1\n")
    assert not (stored["log"].parent / "out").exists()
