"""`replay html` without a browser: the embedded data, its escaping, the delta-encoded views, the
views a log may be shown in, the sentences, and the command line."""

from __future__ import annotations

import html.parser
import re
from pathlib import Path

import orjson
import pytest
from hypothesis import given

from engines import registry
from engines.driver import play
from replays import archive, delta
from replays import html as page
from replays import log as logfmt
from replays.narration import Narrator
from replays.record import SeatInfo, record
from replays.verify import verify_log
from tests import cli
from tests.golden.cases import CASES
from tests.properties import examples
from tests.replays.forgery import RandomAgent, real_log
from tests.strategies import json_values

EVENTS = examples(300)  # single events rendered: cheap, and the escaping's edge cases are many

GOLDEN = {case.name: case.path for case in CASES}
HOSTILE = "</script><script>alert(1)</script> <!-- & \u2028\u2029 ' \" >"


def golden(name: str) -> dict:
    return logfmt.read(GOLDEN[name])


def embedded(document: str) -> str:
    """The text of the page's data block, as a browser reads it."""
    match = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', document, re.S)
    assert match is not None
    return match.group(1)


def engine_views(log: dict, seats: list[int]) -> dict[str, list]:
    """Every view after every step, folded here independently of replays.html: step 0 (before the table)
    is None, and the log's closing steps keep the last view."""
    engine = registry.get(log["game"], log["engine_version"])
    after: dict[int, object] = {}
    verify_log(log, watch=lambda actor, group, state: after.__setitem__(group[0]["step"], state))
    steps = log["events"][-1]["step"] + 1
    out: dict[str, list] = {"spectator": [], **{f"seat:{s}": [] for s in seats}}
    state = None
    for step in range(steps):
        state = after.get(step, state)
        out["spectator"].append(None if state is None else orjson.loads(orjson.dumps(engine.view(state, None))))
        for seat in seats:
            out[f"seat:{seat}"].append(None if state is None else orjson.loads(orjson.dumps(engine.view(state, seat))))
    return out


def hostile_log() -> dict:
    engine = registry.get("lemur-tails")
    config = engine.configure(2)
    played = play(engine, config, "hostile", [RandomAgent("h/0"), RandomAgent("h/1")])
    seats = [SeatInfo(HOSTILE, "0" * 64), SeatInfo("plain", "1" * 64)]
    return logfmt.from_recorded(record(engine, config, "hostile", played, seats, game_id="hostile-game",
                                       salt_key=b"h" * 32))


# -- the data block ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_the_embedded_json_round_trips(name):
    """The data block of a golden replay's page parses back to exactly the data the page was made from."""
    data = page.page_data(golden(name))
    assert orjson.loads(embedded(page.document(data))) == data


def test_hostile_strings_cannot_close_the_script_or_become_markup():
    """A bot named `</script><script>alert(1)</script>` with U+2028/U+2029 stays one string inside the data block."""
    document = page.document(page.page_data(hostile_log()))
    block = embedded(document)
    for raw in ("<", ">", "&", "\u2028", "\u2029"):
        assert raw not in block
    assert document.count("</script>") == 2  # the data block's and the viewer's own
    assert orjson.loads(block)["seats"][0]["bot"] == HOSTILE

    class Scripts(html.parser.HTMLParser):
        def __init__(self):
            super().__init__()
            self.tags: list[tuple[str, dict]] = []

        def handle_starttag(self, tag, attrs):
            self.tags.append((tag, dict(attrs)))

    parsed = Scripts()
    parsed.feed(document)
    assert [attrs.get("type") for tag, attrs in parsed.tags if tag == "script"] == ["application/json", None]


def test_the_page_allows_only_its_own_script_and_style():
    """The Content-Security-Policy forbids every request and admits only the page's own inline script and style."""
    document = page.document(page.page_data(golden("lemur-tails")))
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', document).group(1)
    assert policy.startswith("default-src 'none';")
    script = re.search(r"<script>(.*)</script>", document, re.S).group(1)
    style = re.search(r"<style>(.*)</style>", document, re.S).group(1)
    assert f"script-src '{page._sha256(script)}'" in policy and f"style-src '{page._sha256(style)}'" in policy
    assert "unsafe" not in policy and "http" not in document.split("<body>")[0].replace("http-equiv", "")


def test_event_bodies_are_the_hashed_bytes():
    """Each embedded body is the exact canonical body the chain hashed, so a browser can recompute every link."""
    log = golden("nine-tails-3-seats")
    data = page.page_data(log)
    records = logfmt.records_of(log)
    assert [row[0].encode() for row in data["events"]] == [record.body for record in records]
    assert [row[1] for row in data["events"]] == [event["hash"] for event in log["events"]]


# -- views --------------------------------------------------------------------------------------


@pytest.mark.slow
@given(json_values, json_values)
@EVENTS
def test_a_patch_turns_the_old_value_into_the_new(old, new):
    """patch(old, diff(old, new)) is new, JSON-equal (True is not 1), and old is left as it was."""
    before = orjson.dumps(old)
    assert delta.same(delta.patch(old, delta.diff(old, new)), new)
    assert orjson.dumps(old) == before


def test_a_patch_of_equal_values_is_empty_and_a_growing_pile_appends():
    """Equal views cost nothing, and a card put on a pile is one small operation, not the whole pile."""
    assert delta.diff({"a": [1, 2]}, {"a": [1, 2]}) == []
    assert delta.diff({"pile": [1, 2, 3, 4, 5, 6]}, {"pile": [1, 2, 3, 4, 5, 6, 7]}) == [[["pile", 6], 7]]
    assert delta.diff([True], [1]) != [] and delta.diff({"n": 1}, {"n": True}) == [[["n"], True]]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_decoded_views_equal_the_engine_views_at_every_step(name):
    """For every view a full page offers, decoding the page's deltas gives the engine's view after each step."""
    log = golden(name)
    data = page.page_data(log)
    seats = list(range(len(log["seats"])))
    expected = engine_views(log, seats)
    decoded = page.decode_views(data)
    assert len(data["steps"]) == len(expected["spectator"])
    for key, views in expected.items():
        assert len(decoded[key]) == len(views)
        for step, (got, want) in enumerate(zip(decoded[key], views, strict=True)):
            assert delta.same(got, want), f"{name} {key} step {step}"


@pytest.mark.parametrize("name", ["tails-on-fire-4-seats", "lemur-tails", "nine-tails-3-seats"])
def test_a_redacted_log_gives_the_same_views_as_the_full_log(name):
    """A seat:1 (or spectator) page from the redacted log holds the views of the same page made from the full log."""
    log = golden(name)
    for view in ("seat:1", "spectator"):
        from_full = page.page_data(log, view)
        from_redacted = page.page_data(logfmt.redact(log, view), view)
        assert from_full.pop("unchecked") == []  # a redacted log's verification says what it could not check
        from_redacted.pop("unchecked")
        assert from_full == from_redacted


@pytest.mark.parametrize(("log_view", "asked"), [("spectator", "seat:0"), ("spectator", "full"),
                                                 ("seat:0", "seat:1"), ("seat:0", "full")])
def test_a_redacted_log_is_shown_only_in_the_views_it_allows(log_view, asked):
    """A spectator log never becomes a seat's page, nor a seat's log another seat's: one clear error."""
    log = logfmt.redact(golden("lemur-tails"), log_view)
    with pytest.raises(logfmt.LogError, match=f"a {log_view} log cannot be shown as {asked}"):
        page.page_data(log, asked)


def test_a_page_offers_the_views_its_log_allows():
    """A full page offers everything, a seat page its seat and the spectator, a spectator page only itself."""
    log = golden("tails-on-fire-2-seats-rogue")
    assert page.page_data(log)["views"] == ["full", "spectator", "seat:0", "seat:1"]
    assert page.page_data(log, "seat:1")["views"] == ["seat:1", "spectator"]
    assert page.page_data(logfmt.redact(log, "spectator"))["views"] == ["spectator"]
    assert set(page.page_data(log, "seat:1")["own"]) == {"1"}
    assert page.page_data(log, "spectator")["own"] == {}


def hidden_from(log: dict, seat: int) -> list[dict]:
    return [e for e in log["events"] if "private" in e and seat not in e["audience"]]


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_a_seat_page_holds_nothing_hidden_from_that_seat(name):
    """A seat:1 page built from the full log holds no salt, private part or private sentence of an event hidden
    from seat 1, and no legal actions of another seat."""
    log = golden(name)
    data = page.page_data(log, "seat:1")
    text = page.document(data)
    narrator = Narrator(log["game"])
    seen_private = {orjson.dumps(e["private"]) for e in log["events"] if "private" in e and 1 in e["audience"]}
    hidden = hidden_from(log, 1)
    assert hidden
    for event in hidden:
        assert event["salt"] not in text
        secret = orjson.dumps(event["private"], option=orjson.OPT_SORT_KEYS).decode()
        if orjson.dumps(event["private"]) not in seen_private:
            assert embed_text(secret) not in text
        told = narrator.sentence(event["type"], event["data"], event["private"])
        if told != narrator.sentence(event["type"], event["data"]):
            assert embed_text(told) not in text
    assert all(legal is None for actor, _, _, legal, *_ in data["steps"] if actor != 1)
    assert any(legal for actor, _, _, legal, *_ in data["steps"] if actor == 1)


def embed_text(text: str) -> str:
    return page.embed(text)[1:-1]


def test_the_result_names_ranks_scores_and_a_forfeit():
    """The page's result has each seat's rank, its score in words, and who forfeited and why."""
    data = page.page_data(golden("tails-on-fire-4-seats"))
    assert data["result"] == {"ranking": [2, 3, 1, 3], "reason": "finished",
                              "scores": ["8 flames", "1 flame", "12 flames", "1 flame"], "forfeit": None}

    class Illegal(RandomAgent):
        def act(self, turn):
            return "castle" if len(turn.events) > 3 else super().act(turn)

    log = real_log("nine-tails", "forfeit", agents=[RandomAgent("a"), Illegal("b"), RandomAgent("c")])
    data = page.page_data(log)
    assert data["result"]["reason"] == "forfeit" and data["result"]["forfeit"]["seat"] == 1
    assert "castle" in data["result"]["forfeit"]["reason"]
    forfeit_step = data["steps"][-2]
    assert forfeit_step[0] == 1 and forfeit_step[3]  # the forfeiting seat, with the legal actions it had


PLAIN_ACTIONS = {"pass", "venture", "rest"}
"""Actions that are already words: said as they are."""


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_every_action_of_a_page_is_in_words(name):
    """Each step's chosen and legal actions point at phrases: the game's words for that action, read with the
    public view before the step; none is left as its code (``play:W3:1b``)."""
    data = page.page_data(golden(name))
    narrator = Narrator(data["game"])
    spectator = page.decode_views(data)["spectator"]
    seen = 0
    for step, (_, _, action, legal, said) in enumerate(data["steps"]):
        if legal is None and action is None:
            assert said is None
            continue
        before = spectator[step - 1]
        if action is not None:
            assert data["phrases"][said[0]] == narrator.action(action, before)
        for option, index in zip(legal or [], said[1] or [], strict=True):
            words = data["phrases"][index]
            assert words == narrator.action(option, before) and (words != option or option in PLAIN_ACTIONS), option
            seen += 1
    assert seen > 100


def test_actions_in_words_read_like_the_story():
    """A few actions of each game, worded as its events are ("Red chooses the trickster")."""
    assert Narrator("tails-on-fire").action("choose:trickster") == "choose the trickster"
    assert Narrator("tails-on-fire").action("play:7") == "play 7"
    assert Narrator("lemur-tails").action("play:W3:1b") == "add white 3 to Green's black-ring tail"
    assert Narrator("lemur-tails").action("lemur:market:BJ") == "turn a Sun lemur to take black joker from the market"
    assert Narrator("nine-tails").action("take:T-AC", {"phase": "choose"}) == "take the tail card T-AC"
    assert Narrator("nine-tails").action("none", {"phase": "target"}) == "no target"
    assert Narrator("nine-tails").action("trick:quick-paws", {"phase": "trick window"}) == "play Quick Paws"
    assert Narrator("high-cards").action("commit:3") == "commit:3"  # a game with no words: its code


# -- a game with no drawing -------------------------------------------------------------------


def test_a_game_with_no_words_or_drawing_still_gets_a_page():
    """The toy game (no sentences, no drawing of its own) is told plainly and its views still embedded."""
    log = real_log("high-cards", "plain")
    data = page.page_data(log)
    assert "Card committed: Red" in {row[2] for row in data["events"]}
    assert page.decode_views(data)["seat:0"][-1]["hand"] == []
    assert "Tourney.start()" in page.document(data)


# -- the command line ----------------------------------------------------------------------------


def test_cli_writes_one_page_from_a_log_file(tmp_path, monkeypatch):
    """`replay html FILE` writes FILE's name with .html here by default, or -o, in the log's own view."""
    monkeypatch.chdir(tmp_path)
    source = tmp_path / "logs" / "game.json"
    source.parent.mkdir()
    source.write_bytes(logfmt.dumps(logfmt.redact(golden("lemur-tails"), "seat:0")))
    result = cli.invoke("replay", "html", str(source))
    assert result.exit_code == 0, result.output
    assert result.output.startswith("wrote game.html: Lemur Tails game lemur-tails, ")
    assert "seat:0 view" in result.output
    data = orjson.loads(embedded((tmp_path / "game.html").read_text()))
    assert data["view"] == "seat:0" and data["views"] == ["seat:0", "spectator"]
    result = cli.invoke("replay", "html", str(source), "--view", "spectator", "-o", "watch.html")
    assert result.exit_code == 0
    assert orjson.loads(embedded((tmp_path / "watch.html").read_text()))["view"] == "spectator"


def test_cli_writes_a_stored_game_by_id(tmp_path, ledger, db_path):
    """`replay html GAME_ID --db` makes the page of a stored game, in any view."""
    archive.import_log(ledger, golden("tails-on-fire-2-seats-rogue"))
    out = tmp_path / "page.html"
    result = cli.invoke("replay", "html", "tails-on-fire-2", "--db", str(db_path), "-o", str(out), "--view", "seat:1")
    assert result.exit_code == 0, result.output
    assert orjson.loads(embedded(out.read_text()))["views"] == ["seat:1", "spectator"]


def test_cli_writes_a_folder_of_pages_with_an_index(tmp_path):
    """`replay html DIR -o OUTDIR` writes a page per log and an index naming each game's bots and result."""
    logs = tmp_path / "logs"
    logs.mkdir()
    for name in ("lemur-tails", "tails-on-fire-2-seats-rogue"):
        (logs / f"{name}.json").write_bytes(GOLDEN[name].read_bytes())
    (logs / "a game #2.json").write_bytes(GOLDEN["lemur-tails"].read_bytes())
    hostile = hostile_log()
    (logs / "hostile.json").write_bytes(logfmt.dumps(hostile))
    out = tmp_path / "site"
    result = cli.invoke("replay", "html", str(logs), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"wrote 4 pages and index.html to {out}"
    assert sorted(p.name for p in out.iterdir()) == ["a game #2.html", "hostile.html", "index.html",
                                                     "lemur-tails.html", "tails-on-fire-2-seats-rogue.html"]
    index = (out / "index.html").read_text()
    assert '<a href="lemur-tails.html">lemur-tails</a>' in index and '<a href="a%20game%20%232.html">' in index
    assert "Red: heuristic_lemur_tails, Green: random_bot" in index
    assert "1. heuristic_lemur_tails (shortest tail 17, longest 21), 2. random_bot" in index
    assert "<script>alert" not in index and "&lt;/script&gt;&lt;script&gt;alert(1)" in index


def test_cli_folder_goes_on_past_a_bad_log_and_fails_at_the_end(tmp_path):
    """A log that does not verify is named and skipped; the other pages are written; exit 1."""
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "good.json").write_bytes(GOLDEN["lemur-tails"].read_bytes())
    broken = golden("lemur-tails")
    broken["events"][7]["data"]["seat"] = 1
    (logs / "bad.json").write_bytes(logfmt.dumps(broken))
    result = cli.invoke("replay", "html", str(logs), "-o", str(tmp_path / "site"))
    assert result.exit_code == 1
    assert f"FAIL {logs / 'bad.json'}: game lemur-tails: seq 7" in result.output
    assert (tmp_path / "site" / "good.html").exists() and not (tmp_path / "site" / "bad.html").exists()


@pytest.mark.parametrize(("args", "message"), [
    (["missing.json"], "error: missing.json: no such file or directory"),
    (["LOG", "--view", "seat:7"], "error: unknown view 'seat:7'"),
    (["SPECTATOR", "--view", "seat:0"], "a spectator log cannot be shown as seat:0"),
    (["TAMPERED"], "error: game lemur-tails: seq 7: expected an intact hash chain"),
    (["LOG", "-o", "no/such/dir/page.html"], "cannot write"),
])
def test_cli_failures_are_one_line(tmp_path, monkeypatch, args, message):
    """Missing files, bad views, views a log lacks, tampered logs and unwritable outputs: one error line, exit 1."""
    monkeypatch.chdir(tmp_path)
    log = golden("lemur-tails")
    (tmp_path / "LOG").write_bytes(logfmt.dumps(log))
    (tmp_path / "SPECTATOR").write_bytes(logfmt.dumps(logfmt.redact(log, "spectator")))
    log["events"][7]["data"]["seat"] = 1
    (tmp_path / "TAMPERED").write_bytes(logfmt.dumps(log))
    result = cli.invoke("replay", "html", *args)
    assert result.exit_code == 1
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert not list(tmp_path.glob("*.html"))


def test_cli_folder_needs_an_output_folder(tmp_path):
    """`replay html DIR` without -o is a usage error (exit 2)."""
    result = cli.invoke("replay", "html", str(tmp_path))
    assert result.exit_code == 2 and "-o OUTDIR" in result.output


def test_page_file_names_stay_in_their_folder():
    """A stored game's id becomes a file name with no path in it."""
    assert page.file_name("../../etc/passwd") == "_.._etc_passwd.html"
    assert page.file_name("3f2a-b") == "3f2a-b.html"


def test_a_lemur_tails_rules_version_1_log_gets_a_page_in_words(tmp_path):
    """A version 1 log (cards by id) still becomes a page whose sentences name the cards (LT-21)."""
    source = Path(__file__).parent / "fixtures" / "lemur-tails-v1.json"
    result = cli.invoke("replay", "html", str(source), "-o", str(tmp_path / "v1.html"))
    assert result.exit_code == 0, result.output
    data = embedded((tmp_path / "v1.html").read_text())
    assert orjson.loads(data)["game"] == "lemur-tails"
    assert re.search(r"adds (white|black) (\d|joker) to Red's (white|black)-ring tail", data)
