"""The replay page in a real browser (Debian's Chromium through Playwright, tests/browser.py): it plays
each golden game from the dealt table, gives one verdict on its log (verified, unverified or broken,
naming the first bad seq), always shows the step last asked for in its address, tells actions in
words, stacks at a phone's width, and shows a seat's page nothing hidden from that seat.

Tests wait on the page's own signals (its verdict, ``#app[data-drawn]``), never on time.

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

pytestmark = pytest.mark.browser


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


def verdict(viewer) -> tuple[str, str]:
    """The page's one verdict once it has checked its log: (verified, unverified or broken; its text)."""
    viewer.wait_for_selector("#verify:not([data-verdict=pending])")
    return viewer.get_attribute("#verify", "data-verdict"), viewer.inner_text("#verdict")


def drawn(viewer, step: int, mode: str) -> None:
    """Wait until the page says it has drawn ``step`` in ``mode`` (its own signal, set when a step is on screen)."""
    expect(viewer.locator("#app")).to_have_attribute("data-drawn", f"step={step}&view={mode}")


def ask(viewer, step: int, mode: str | None = None) -> None:
    """Ask for a step through the address, as a link does, and wait until it is drawn."""
    viewer.evaluate("hash => { location.hash = hash; }", f"#step={step}" + (f"&view={mode}" if mode else ""))
    drawn(viewer, step, mode or viewer.evaluate("window.tourneyReplay.mode"))


def opening(data: dict) -> int:
    """The step a page opens at: the dealt table, just before the first seat decides."""
    return next(step for step, (actor, *_) in enumerate(data["steps"]) if isinstance(actor, int)) - 1


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
    """Open the page on the dealt table, see its verdict (unsigned: unverified), step with keys and buttons,
    jump with #step=N, read a drawn value the engine's view gives, and find the page's own decoding of every
    view equal to Python's."""
    log = golden(name)
    data = page.page_data(log)
    last = len(data["steps"]) - 1
    uri = publish(data, tmp_path)
    viewer = open_page(uri)
    state, text = verdict(viewer)
    assert state == "unverified" and f"Its hash chain is intact ({len(log['events'])} events" in text
    assert "tourney replay verify" in viewer.inner_text("#verify")
    counter = viewer.locator("#counter")
    drawn(viewer, opening(data), data["views"][0])
    expect(counter).to_have_text(f"step {opening(data)} of {last}")
    assert viewer.locator("#table .seat").count() == len(log["seats"]) and viewer.locator("#table .empty").count() == 0
    viewer.keyboard.press("Home")
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
    ask(viewer, step)
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
    drawn(deep, last - 1, "seat:1")
    assert deep.eval_on_selector("#view", "select => select.value") == "seat:1"


LATE_HASHCHANGE = """(() => {
  // A busy machine, made certain: every hashchange reaches the page's own listener 400 ms late (the page
  // defers its own address update by 150 ms), as when the browser is slow to deliver it.
  let again = false;
  window.addEventListener("hashchange", (event) => {
    if (again) return;
    event.stopImmediatePropagation();
    setTimeout(() => {
      again = true;
      window.dispatchEvent(new HashChangeEvent("hashchange", {oldURL: event.oldURL, newURL: event.newURL}));
      again = false;
    }, 400);
  }, {capture: true});
})();"""


def test_the_step_last_asked_for_in_the_address_always_wins(open_page, tmp_path):
    """A #step= that arrives while the page still has its own address update pending for an earlier step is
    drawn, and stays in the address: the page's update never overwrites it (the race that left a seat page's
    counter at "step 61" for 30 s). Each hashchange is delivered late on purpose; the test waits on the page's
    drawn signal."""
    data = page.page_data(golden("nine-tails-3-seats"))
    viewer = open_page("about:blank", allowed=("file:", "about:blank"))
    viewer.add_init_script(LATE_HASHCHANGE)
    viewer.goto(publish(data, tmp_path))
    verdict(viewer)
    ask(viewer, 61)
    ask(viewer, 122)
    assert viewer.evaluate("location.hash") == "#step=122"
    viewer.click("#next")
    drawn(viewer, 123, data["views"][0])
    viewer.wait_for_function("() => location.hash === '#step=123'")
    ask(viewer, 30)
    expect(viewer.locator("#counter")).to_have_text(f"step 30 of {len(data['steps']) - 1}")


def test_actions_and_legal_actions_are_in_words(open_page, tmp_path):
    """The step panel tells the action chosen and each legal action in the game's words ("choose the trickster",
    "add black 5 to Red's white-ring tail"), the action string in its tooltip, the chosen one marked."""
    for name, code, words in (("tails-on-fire-4-seats", "choose:trickster", "choose the trickster"),
                              ("lemur-tails", None, None)):
        data = page.page_data(golden(name))
        step, row = next((step, row) for step, row in enumerate(data["steps"]) if row[3] and len(row[3]) > 2
                         and (code is None or code in row[3]))
        viewer = open_page(publish(data, tmp_path, name))
        ask(viewer, step)
        options = viewer.locator("#step-info .options li")
        expect(options).to_have_count(len(row[3]))
        shown = options.evaluate_all("items => items.map(i => [i.dataset.action, i.textContent, i.title])")
        assert [action for action, _, _ in shown] == row[3] and all(title == action for action, _, title in shown)
        assert all(text != action for action, text, _ in shown if ":" in action), shown
        if code is not None:
            assert dict((action, text) for action, text, _ in shown)[code] == words
        else:
            play = next((action, text) for action, text, _ in shown if action.startswith("play:"))
            kind, tail = play[0].split(":")[1:]
            colour = {"W": "white", "B": "black"}[kind[0]]
            ring = {"w": "white", "b": "black"}[tail[1]]
            assert play[1] == f"add {colour} {kind[1:]} to {['Red', 'Green'][int(tail[0])]}'s {ring}-ring tail"
        chosen = viewer.locator("#step-info .options li.chosen")
        expect(chosen).to_have_attribute("data-action", row[2])
        expect(viewer.locator("#step-info .said")).to_have_text(chosen.text_content())


def test_the_replay_stacks_at_a_phones_width(open_page, tmp_path):
    """At 390 px the table sits above the story at the page's full width, every control is on screen, and the
    page never scrolls sideways, at any of a game's steps."""
    for name in ("tails-on-fire-4-seats", "nine-tails-3-seats", "lemur-tails"):
        data = page.page_data(golden(name))
        viewer = open_page(publish(data, tmp_path, name), width=390, height=844)
        verdict(viewer)
        last = len(data["steps"]) - 1
        for step in (opening(data), last // 3, 2 * last // 3, last):
            ask(viewer, step)
            assert viewer.evaluate("document.documentElement.scrollWidth") <= 390, (name, step)
            table, side = viewer.locator("#table").bounding_box(), viewer.locator("aside.side").bounding_box()
            assert table["y"] + table["height"] <= side["y"] + 1 and table["width"] >= 340, (name, table, side)
            for control in ("#first", "#back", "#play", "#next", "#last", "#slider", "#speed"):
                box = viewer.locator(control).bounding_box()
                assert box["x"] >= 0 and box["x"] + box["width"] <= 390, (name, control, box)
        # Stepping scrolls the story to the step, never the page: Next stays under the reader's finger.
        viewer.evaluate("window.scrollTo(0, 0)")
        ask(viewer, opening(data))
        for step in range(opening(data) + 1, opening(data) + 8):
            viewer.click("#next")
            drawn(viewer, step, data["views"][0])
            assert viewer.evaluate("window.scrollY") == 0, (name, step)
        assert viewer.evaluate("document.getElementById('events').scrollTop") > 0 or last < 20


def test_play_runs_the_steps_and_stops_at_the_end(open_page, tmp_path):
    """Play (space) walks the game at the chosen speed and pauses at the last step."""
    data = page.page_data(golden("tails-on-fire-2-seats-rogue"))
    last = len(data["steps"]) - 1
    viewer = open_page(publish(data, tmp_path) + f"#step={last - 3}")
    drawn(viewer, last - 3, "full")
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


def signed_log(key: Ed25519PrivateKey) -> dict:
    return signing.sign(golden("nine-tails-3-seats"), key)


GREEN = "rgb(29, 122, 54)"
"""The viewer's --good colour: what "verified" is drawn in, and nothing beside a failure."""


def coloured_green(viewer) -> list[str]:
    """The text of every element of the page drawn in the verified green."""
    return viewer.evaluate("green => [...document.querySelectorAll('#app *')].filter(e => getComputedStyle(e)"
                           ".color === green && e.textContent.trim()).map(e => e.textContent)", GREEN)


def test_a_signed_log_is_verified_by_the_key_it_names(open_page, tmp_path):
    """A signed log with an intact chain: one green verdict, "Verified", naming the key's fingerprint."""
    key = Ed25519PrivateKey.generate()
    fingerprint = signing.fingerprint(signing.raw_public(key.public_key()))
    viewer = open_page(publish(page.page_data(signed_log(key)), tmp_path))
    state, text = verdict(viewer)
    assert state == "verified" and text.startswith("✔ Verified: the hash chain is intact")
    assert f"signed by key {fingerprint}" in text
    assert viewer.locator("#invalid-mark").count() == 0 and coloured_green(viewer)


@pytest.mark.parametrize("how", ["never signed", "signature stripped"])
def test_an_unsigned_log_is_unverified_with_a_warning(open_page, tmp_path, how):
    """An unsigned log (or a signed one whose signature was removed) is "Unverified", with a warning saying that
    an intact chain proves nothing about who made it; nothing is green, and the log still plays."""
    log = golden("nine-tails-3-seats") if how == "never signed" else signed_log(Ed25519PrivateKey.generate())
    log.pop("signature", None)
    viewer = open_page(publish(page.page_data(log), tmp_path))
    state, text = verdict(viewer)
    assert state == "unverified" and text.startswith("⚠ Unverified: this log is not signed.")
    assert "anyone who changes a log can make its chain again" in text
    assert coloured_green(viewer) == [] and viewer.locator("#invalid-mark").count() == 0


def test_a_broken_chain_is_the_one_verdict_even_when_signed(open_page, tmp_path):
    """One byte of one body of a signed log changed, its hash left: the one verdict is red, "Broken", naming
    seq 9 as the first bad one; nothing says "signed" or is green; the controls say "replaying an invalid log"."""
    data = page.page_data(signed_log(Ed25519PrivateKey.generate()))
    data["events"][9][0] = forged(data, 9)
    viewer = open_page(publish(data, tmp_path))
    state, text = verdict(viewer)
    assert state == "broken"
    assert "Broken: the hash chain fails at seq 9, the first bad seq (its body does not match its hash)" in text
    assert "signed by" not in viewer.inner_text("#verify") and "intact" not in viewer.inner_text("#verify")
    assert coloured_green(viewer) == []
    assert viewer.eval_on_selector("#verdict", "e => getComputedStyle(e).backgroundColor") == "rgb(179, 38, 30)"
    expect(viewer.locator("#controls #invalid-mark")).to_have_text("replaying an invalid log")
    viewer.click("#next")  # it still plays, marked
    expect(viewer.locator("#counter")).to_contain_text(f"step {opening(data) + 1} of")


def test_a_changed_private_part_fails_its_commitment(open_page, tmp_path):
    """A hidden card changed in a full page (chain untouched) breaks the log, at its seq."""
    data = page.page_data(golden("lemur-tails"))
    seq, text, salt = data["private"][1]
    data["private"][1] = [seq, text.replace("[", "[1,", 1), salt]
    state, said = verdict(open_page(publish(data, tmp_path)))
    assert state == "broken"
    assert f"fails at seq {seq}, the first bad seq (its private part does not match its commitment)" in said


def test_a_signed_log_with_a_changed_event_fails_its_signature(open_page, tmp_path):
    """A forger changes an event and recomputes every hash: the chain holds, the signature does not, and the
    one verdict is "Broken" (red, the controls marked), never a green "intact" beside it."""
    data = page.page_data(signed_log(Ed25519PrivateKey.generate()))
    data["events"][30][0] = forged(data, 30)
    previous = bytes(32)
    for row in data["events"]:
        previous = hashlib.sha256(previous + row[0].encode()).digest()
        row[1] = previous.hex()
    data["head"] = previous.hex()
    viewer = open_page(publish(data, tmp_path))
    state, text = verdict(viewer)
    assert state == "broken" and "Broken: the signature fails" in text and "it does not match the head" in text
    assert coloured_green(viewer) == []
    expect(viewer.locator("#invalid-mark")).to_be_visible()


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
    verdict(viewer)
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
            ask(viewer, step, mode)
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
    drawn(viewer, 30, "full")
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
    decides = next(step for step, (actor, _, _, legal, *_) in enumerate(data["steps"]) if actor == 2 and step > 30)
    ask(viewer, decides, "seat:2")
    expect(viewer.locator("#step-info")).to_contain_text(f"legal actions ({len(data['steps'][decides][3])})")
    viewer.select_option("#view", "spectator")
    expect(viewer.locator("#step-info")).not_to_contain_text("legal actions")


def test_hostile_bot_names_are_text_not_markup(open_page, tmp_path):
    """A bot named `</script><script>alert(1)</script>` (with U+2028) is shown as its name and runs nothing."""
    viewer = open_page(publish(page.page_data(hostile_log()), tmp_path))
    assert verdict(viewer)[0] == "unverified"
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
    assert "Its hash chain is intact" in verdict(index)[1]
    expect(index.locator("h1")).to_contain_text("Tails on Fire")
