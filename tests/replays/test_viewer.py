"""The replay page in a real browser (Debian's Chromium through Playwright, tests/browser.py): it plays
each golden game, checks the hash chain and signature itself, names the first bad seq of a tampered
log, and shows a seat's page nothing hidden from that seat.

Every page is opened from file: with every other request aborted and failing the test, as does any
console error, page error or dialog."""

from __future__ import annotations

import hashlib
import html
import re
from pathlib import Path

import orjson
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from replays import html as page
from replays import signing
from replays.narration import Narrator
from tests.replays import screenshots
from tests.replays.test_html import GOLDEN, HOSTILE, golden, hidden_from, hostile_log


def expect(locator):
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    """Where the tests put their screenshots (docs/img/ holds the committed ones)."""
    return tmp_path_factory.mktemp("screenshots")


def publish(data: dict, folder: Path, name: str = "page") -> str:
    path = folder / f"{name}.html"
    path.write_text(page.document(data), encoding="utf-8")
    return path.as_uri()


def checked(viewer) -> str:
    """The verification panel's text once the page has checked its log."""
    viewer.wait_for_selector("#verify .check.good, #verify .check.bad")
    return viewer.inner_text("#verify")


def drawn_value(game: str, view: dict) -> tuple[str, str]:
    """One value each game draws (selector, expected text): a score or a card, from the engine's view."""
    if game == "tails-on-fire":
        flames = view["players"][0]["flames"]
        return '.seat[data-seat="0"] .score', f"{flames} flame{'' if flames == 1 else 's'}"
    if game == "nine-tails":
        return '.seat[data-seat="0"] .fox .tails', str(view["foxes"][0][0]["tail_count"])
    lengths = sorted(len(view["tails"][f"0{ring}"]) for ring in "wb")
    return '.seat[data-seat="0"] .score', f"shortest tail {lengths[0]}"


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_a_golden_replay_plays_steps_jumps_and_checks_its_chain(name, open_page, tmp_path, shots):
    """Open the page, see "hash chain intact", step with keys and buttons, jump with #step=N, read a drawn
    value the engine's view gives, and find the page's own decoding of every view equal to Python's."""
    log = golden(name)
    data = page.page_data(log)
    last = len(data["steps"]) - 1
    uri = publish(data, tmp_path)
    viewer = open_page(uri)
    assert f"hash chain intact ({len(log['events'])} events" in checked(viewer)
    assert "unsigned" in checked(viewer) and "tourney replay verify" in checked(viewer)
    counter = viewer.locator("#counter")
    expect(counter).to_have_text(f"step 0 of {last}")
    viewer.keyboard.press("ArrowRight")
    expect(counter).to_have_text(f"step 1 of {last}")
    viewer.click("#next")
    viewer.click("#next")
    viewer.click("#back")
    expect(counter).to_have_text(f"step 2 of {last}")
    viewer.keyboard.press("End")
    expect(counter).to_have_text(f"step {last} of {last}")
    expect(viewer.locator("#result .ranks li")).to_have_count(len(log["seats"]))
    viewer.keyboard.press("Home")
    expect(counter).to_have_text(f"step 0 of {last}")

    step = screenshots.SHOTS.get(name, last // 2)
    viewer.evaluate(f"location.hash = '#step={step}'")
    expect(counter).to_have_text(f"step {step} of {last}")
    assert viewer.evaluate("location.hash") == f"#step={step}"
    views = page.decode_views(data)
    selector, text = drawn_value(log["game"], views["spectator"][step])
    expect(viewer.locator(selector).first).to_have_text(text)
    viewer.screenshot(path=str(shots / f"{name}.png"))

    for mode in ("spectator", "seat:0", "seat:1"):
        for at in (0, 1, step, last):
            assert viewer.evaluate("([at, mode]) => window.tourneyReplay.view(at, mode)", [at, mode]) == views[mode][at]

    deep = open_page(f"{uri}#step={last - 1}&view=seat:1")
    expect(deep.locator("#counter")).to_have_text(f"step {last - 1} of {last}")
    assert deep.eval_on_selector("#view", "select => select.value") == "seat:1"


def test_play_runs_the_steps_and_stops_at_the_end(open_page, tmp_path):
    """Play (space) walks the game at the chosen speed and pauses at the last step."""
    data = page.page_data(golden("tails-on-fire-2-seats-rogue"))
    last = len(data["steps"]) - 1
    viewer = open_page(publish(data, tmp_path) + f"#step={last - 3}")
    checked(viewer)
    viewer.select_option("#speed", "10")
    viewer.keyboard.press(" ")
    expect(viewer.locator("#play")).to_have_text("Pause")
    expect(viewer.locator("#counter")).to_have_text(f"step {last} of {last}")
    expect(viewer.locator("#play")).to_have_text("Play")


def forged(data: dict, seq: int) -> str:
    """Body ``seq`` with one byte changed: the first digit of its public data."""
    body = data["events"][seq][0]
    at = body.index('"data":') + re.search(r"\d", body[body.index('"data":'):]).start()
    return body[:at] + str((int(body[at]) + 1) % 10) + body[at + 1:]


def test_a_tampered_body_shows_the_first_bad_seq(open_page, tmp_path):
    """One byte of one body changed, its hash left: the page names that seq as the first bad one."""
    data = page.page_data(golden("lemur-tails"))
    data["events"][9][0] = forged(data, 9)
    text = checked(open_page(publish(data, tmp_path)))
    assert "hash chain broken: first bad seq 9 (its body does not match its hash)" in text
    assert "hash chain intact" not in text


def test_a_changed_private_part_fails_its_commitment(open_page, tmp_path):
    """A hidden card changed in a full page (chain untouched) fails against its commitment, at its seq."""
    data = page.page_data(golden("lemur-tails"))
    seq, text, salt = data["private"][1]
    data["private"][1] = [seq, text.replace("[", "[1,", 1), salt]
    assert f"first bad seq {seq} (its private part does not match its commitment)" in checked(
        open_page(publish(data, tmp_path)))


def signed_log(key: Ed25519PrivateKey) -> dict:
    return signing.sign(golden("nine-tails-3-seats"), key)


def test_a_signed_log_shows_its_fingerprint(open_page, tmp_path):
    """A signed log's page checks the Ed25519 signature of the head and names the key's fingerprint."""
    key = Ed25519PrivateKey.generate()
    fingerprint = signing.fingerprint(signing.raw_public(key.public_key()))
    text = checked(open_page(publish(page.page_data(signed_log(key)), tmp_path)))
    assert f"signed by {fingerprint}" in text and "hash chain intact" in text


def test_a_signed_log_with_a_changed_event_fails_its_signature(open_page, tmp_path):
    """A forger changes an event and recomputes every hash: the chain holds, the signature does not."""
    data = page.page_data(signed_log(Ed25519PrivateKey.generate()))
    data["events"][30][0] = forged(data, 30)
    previous = bytes(32)
    for row in data["events"]:
        previous = hashlib.sha256(previous + row[0].encode()).digest()
        row[1] = previous.hex()
    data["head"] = previous.hex()
    text = checked(open_page(publish(data, tmp_path)))
    assert "hash chain intact" in text
    assert "signature fails" in text and "it does not match the head" in text


FACE_UP_HAND_CARDS = """() => Object.fromEntries([...document.querySelectorAll('.seat')].map((seat) => [
  seat.dataset.seat,
  [...seat.querySelectorAll('.zone')]
    .filter((zone) => /hand|chosen/i.test(zone.querySelector('.zone-title').textContent))
    .flatMap((zone) => [...zone.querySelectorAll('.card:not(.back)')]).length]))"""


@pytest.mark.parametrize("name", ["tails-on-fire-4-seats", "nine-tails-3-seats", "lemur-tails"])
def test_a_seat_page_shows_nothing_hidden_from_that_seat(name, open_page, tmp_path):
    """A seat:1 page (made from the full log): no hidden card of another seat, as a private part, a salt or a
    sentence, anywhere in the page at any step or view it offers; no other seat's hand face up."""
    log = golden(name)
    data = page.page_data(log, "seat:1")
    last = len(data["steps"]) - 1
    viewer = open_page(publish(data, tmp_path) + "#view=full")
    checked(viewer)
    offered = viewer.eval_on_selector_all("#view option", "options => options.map(o => o.value)")
    assert offered == ["seat:1", "spectator"]
    narrator = Narrator(log["game"])
    visible = {orjson.dumps(e["private"]) for e in log["events"] if "private" in e and 1 in e["audience"]}
    hidden = hidden_from(log, 1)
    forbidden = {event["salt"] for event in hidden}
    for event in hidden:
        secret = narrator.sentence(event["type"], event["data"], event["private"])
        if secret != narrator.sentence(event["type"], event["data"]):
            forbidden.add(html.escape(secret, quote=False))
        if orjson.dumps(event["private"]) not in visible:
            forbidden.add(page.embed(orjson.dumps(event["private"], option=orjson.OPT_SORT_KEYS).decode())[1:-1])
    seen_own_hand = False
    for mode in ("seat:1", "spectator"):
        viewer.select_option("#view", mode)
        for step in range(0, last + 1, max(1, last // 6)):
            viewer.evaluate(f"location.hash = '#step={step}&view={mode}'")
            expect(viewer.locator("#counter")).to_have_text(f"step {step} of {last}")
            content = viewer.content()
            assert not [secret for secret in forbidden if secret in content], f"{mode} step {step}"
            face_up = viewer.evaluate(FACE_UP_HAND_CARDS)
            assert all(count == 0 for seat, count in face_up.items() if seat != "1" or mode == "spectator"), face_up
            seen_own_hand = seen_own_hand or face_up.get("1", 0) > 0
    assert seen_own_hand


def test_the_view_switch_shows_each_views_hands(open_page, tmp_path):
    """A full page: "everything" shows every hand, the spectator none, a seat only its own; the story follows."""
    data = page.page_data(golden("tails-on-fire-4-seats"))
    picks = sum(1 for e in golden("tails-on-fire-4-seats")["events"]
                if e["type"] == "opossum_chosen" and e["data"]["seat"] == 0)
    viewer = open_page(publish(data, tmp_path) + "#step=30")
    checked(viewer)
    views = page.decode_views(data)
    held = {str(seat): len(views[f"seat:{seat}"][30]["hand"]) + len(views[f"seat:{seat}"][30]["chosen"])
            for seat in range(4)}
    assert all(held.values())
    assert viewer.evaluate(FACE_UP_HAND_CARDS) == held
    assert viewer.locator("#events .event", has_text="Red chooses").count() == picks
    assert viewer.locator("#events .event", has_text="Red chooses an opossum").count() == 0
    viewer.select_option("#view", "spectator")
    assert viewer.evaluate(FACE_UP_HAND_CARDS) == {"0": 0, "1": 0, "2": 0, "3": 0}
    assert viewer.locator("#events .event", has_text="Red chooses an opossum").count() == picks
    viewer.select_option("#view", "seat:2")
    assert viewer.evaluate(FACE_UP_HAND_CARDS) == {"0": 0, "1": 0, "2": held["2"], "3": 0}
    viewer.wait_for_function("() => location.hash === '#step=30&view=seat:2'")
    decides = next(step for step, (actor, _, _, legal) in enumerate(data["steps"]) if actor == 2 and step > 30)
    viewer.evaluate(f"location.hash = '#step={decides}&view=seat:2'")
    expect(viewer.locator("#step-info")).to_contain_text(f"legal actions ({len(data['steps'][decides][3])})")
    viewer.select_option("#view", "spectator")
    expect(viewer.locator("#step-info")).not_to_contain_text("legal actions")


def test_hostile_bot_names_are_text_not_markup(open_page, tmp_path):
    """A bot named `</script><script>alert(1)</script>` (with U+2028) is shown as its name and runs nothing."""
    viewer = open_page(publish(page.page_data(hostile_log()), tmp_path))
    assert "hash chain intact" in checked(viewer)
    assert viewer.locator(".seat-chip").first.text_content() == f"Red: {HOSTILE}"
    assert viewer.evaluate("document.scripts.length") == 2


def test_the_harness_catches_requests_and_errors(open_page, tmp_path):
    """The browser fixture itself: a request off file:, a console error and a dialog are all caught."""
    path = tmp_path / "bad.html"
    path.write_text("<script>console.error('boom'); fetch('http://example.invalid/x').catch(() => 0); "
                    "alert(1);</script>")
    viewer = open_page(path.as_uri())
    problems = viewer.problems.problems
    for _ in range(600):  # until the three have been reported (events arrive as the driver reads them)
        if len(problems) >= 3:
            break
        viewer.wait_for_timeout(50)
    assert any("request to http://example.invalid/x" in p for p in problems), problems
    assert any("console error: boom" in p for p in problems) and any("dialog: alert" in p for p in problems)
    viewer.problems.accepted = True


def test_the_index_links_every_page(open_page, tmp_path):
    """`replay html DIR -o OUTDIR`'s index opens cleanly and its links lead to pages that check their chains."""
    names = ("lemur-tails", "tails-on-fire-2-seats-rogue")
    folder = page.write_folder([(name, GOLDEN[name]) for name in names], tmp_path / "site")
    assert not folder.failures
    index = open_page((tmp_path / "site" / "index.html").as_uri())
    expect(index.locator("table.games tbody tr")).to_have_count(2)
    index.click("text=tails-on-fire-2-seats-rogue")
    assert "hash chain intact" in checked(index)
    expect(index.locator("h1")).to_contain_text("Tails on Fire")
