"""The HTTP API and the pages through httpx's ASGI transport: every endpoint, paging, 404s,
tokens, uploads, name ownership, rate limits, ETags, the published views, the headers."""

from __future__ import annotations

import contextlib
import hashlib
import io
import shutil
import subprocess
import zipfile

import orjson
import pytest

from ledger import read_models
from ledger.rows import ladder_rows
from ledger.store import Ledger
from replays import log as logfmt
from replays import signing
from replays.verify import verify_log
from tests.cli import invoke
from tests.web.league import LADDER, ROOT, SLASHED, TOURNAMENT, TRIO, XSS, tourney
from tournaments.ladder import league as ladder_league
from tournaments.play import standings

ESCAPED = "&lt;img src=x onerror=alert(1)&gt;"


def first_game(api, ladder=LADDER) -> str:
    return api.get(f"/api/ladders/{ladder}/games", params={"limit": 1}).json()["items"][0]["game_id"]


# -- reading ---------------------------------------------------------------------------------------


@pytest.mark.slow
def test_ladders_list_and_one_ladder_with_its_leaderboard(serve):
    """GET /api/ladders lists the ladders; GET /api/ladders/NAME gives the leaderboard of the CLI's standings."""
    api = serve()
    listed = api.get("/api/ladders").json()
    assert [item["name"] for item in listed["items"]] == [LADDER, TRIO] and listed["total"] == 2
    board = api.get(f"/api/ladders/{LADDER}").json()
    assert board["games"] == 4 and board["waiting"] == 0 and board["publish"] == "spectator"
    assert {row["bot"] for row in board["leaderboard"]} == {XSS, "random_bot"}
    for row in board["leaderboard"]:
        assert row["games"] == 4 and len(row["history"]) == 4 and row["last_played"] and row["version"] == 1
        assert row["owner"] is None and row["margin"] > 0


@pytest.mark.slow
def test_ladder_games_are_paginated_newest_first(serve, league):
    """limit and offset page through a ladder's games; next is the following offset, null on the last page."""
    api = serve()
    first = api.get(f"/api/ladders/{LADDER}/games", params={"limit": 3}).json()
    second = api.get(f"/api/ladders/{LADDER}/games", params={"limit": 3, "offset": 3}).json()
    assert (first["total"], first["next"], second["next"]) == (4, 3, None)
    assert len(first["items"]) == 3 and len(second["items"]) == 1
    stored = ladder_rows.game_ids(Ledger(str(league.path), read_only=True), 1)
    assert [game["game_id"] for game in first["items"] + second["items"]] == stored[::-1]


@pytest.mark.parametrize("params", [{"limit": 0}, {"limit": 201}, {"offset": -1}, {"limit": "many"}])
def test_paging_out_of_range_is_a_422(serve, params):
    """A limit outside 1..200, a negative offset or a word is refused with 422, naming the parameter."""
    response = serve().get(f"/api/ladders/{LADDER}/games", params=params)
    assert response.status_code == 422
    assert next(iter(params)) in str(response.json()["detail"])


def test_rating_history_of_a_bot_on_a_ladder(serve):
    """GET .../bots/BOT/history gives the rating after each game, as `ladder history` does."""
    history = serve().get(f"/api/ladders/{LADDER}/bots/random_bot/history").json()
    assert [point["seq"] for point in history] == sorted(point["seq"] for point in history) and len(history) == 4


def test_rating_history_is_numbered_by_the_ladders_own_games(serve):
    """A leaderboard row's history and a bot's history number games on that ladder (1 is its first), not by the
    store's count shared by every ladder: the second ladder's games are 1 to 3, not 5 to 7."""
    api = serve()
    trio = api.get(f"/api/ladders/{TRIO}").json()
    numbered = {number for row in trio["leaderboard"] for number in row["history_games"]}
    assert numbered == set(range(1, trio["games"] + 1))
    history = api.get(f"/api/ladders/{TRIO}/bots/random_bot/history").json()
    assert [point["number"] for point in history] == list(range(1, len(history) + 1))
    assert min(point["seq"] for point in history) > api.get(f"/api/ladders/{LADDER}").json()["games"]


def test_tournament_standings_are_the_clis(serve, league):
    """GET /api/tournaments/NAME gives the standings `tourney standings` computes, head-to-head and LOS included."""
    api = serve()
    listed = api.get("/api/tournaments").json()
    assert [item["name"] for item in listed["items"]] == [SLASHED, TOURNAMENT]  # newest first
    shown = api.get(f"/api/tournaments/{TOURNAMENT}").json()
    expected = standings.of_tournament(Ledger(str(league.path), read_only=True), TOURNAMENT).to_json()
    assert shown["standings"] == expected["standings"] and shown["los"] == expected["los"]
    assert shown["head_to_head"] == expected["head_to_head"]
    assert api.get(f"/api/tournaments/{shown['id']}").json()["name"] == TOURNAMENT


def test_read_models_emptied_by_a_rebuild_stopped_half_way_are_a_503_not_a_parts_counts(serve, league):
    """A `db audit --rebuild` stopped after emptying the read models: the lists (which show each tournament's and
    ladder's games as the read models count them) and the home page answer 503 saying the operator is on it, as the
    standings do, where they showed counts of 0; once `tourney db upgrade` has counted the games again, 200."""
    whole = serve().get("/api/tournaments").json()
    ledger = Ledger(str(league.path))
    with ledger.write() as connection:  # what the rebuild's first transaction leaves
        read_models.clear(connection)
    ledger.close()
    api = serve()
    for url in ("/api/tournaments", "/api/ladders", "/", f"/api/tournaments/{TOURNAMENT}"):
        refused = api.get(url)
        assert refused.status_code == 503 and "being brought up to date" in refused.text, (url, refused.text)
    assert "counted" in tourney("db", "upgrade", "--db", league.path)
    assert serve().get("/api/tournaments").json() == whole


def test_tournament_games_paginated_with_forfeits(serve):
    """A tournament's games come newest first (by key within a second), each forfeit with its seat, bot and
    reason."""
    api = serve()
    games = api.get(f"/api/tournaments/{TOURNAMENT}/games", params={"limit": 200}).json()
    assert games["total"] == len(games["items"]) > 0
    forfeits = [game["forfeit"] for game in games["items"] if game["forfeit"]]
    assert forfeits and all(f["bot"] == "raises" and "tripped over its tail" in f["reason"] for f in forfeits)
    stamps = [(game["created_at"], game["key"]) for game in games["items"]]
    assert stamps == sorted(stamps, reverse=True)


def test_bot_versions_and_games_filtered_by_result_and_forfeit(serve):
    """A bot's page data: its content hashes; its games filtered by result and by its own forfeits."""
    api = serve()
    bot = api.get("/api/bots/raises").json()
    assert len(bot["versions"]) == 1 and len(bot["versions"][0]["content_hash"]) == 64
    every = api.get("/api/bots/raises/games", params={"limit": 200}).json()
    forfeited = api.get("/api/bots/raises/games", params={"forfeited": "true", "limit": 200}).json()
    kept = api.get("/api/bots/raises/games", params={"forfeited": "false", "limit": 200}).json()
    assert forfeited["total"] > 0 and forfeited["total"] + kept["total"] == every["total"]
    assert all(game["forfeit"]["bot"] == "raises" for game in forfeited["items"])
    wins = api.get(f"/api/bots/{XSS}/games", params={"result": "win", "limit": 200}).json()["items"]
    losses = api.get(f"/api/bots/{XSS}/games", params={"result": "loss", "limit": 200}).json()["items"]
    for game, place in [(g, 1) for g in wins] + [(g, 2) for g in losses]:
        assert next(seat["rank"] for seat in game["seats"] if seat["bot"] == XSS) == place


def test_game_detail_verifies_and_downloads_a_spectator_log(serve):
    """GET /api/games/ID says the game verifies; its spectator log holds no private part and verifies."""
    api = serve()
    game_id = first_game(api)
    game = api.get(f"/api/games/{game_id}").json()
    assert game["verification"]["ok"] and game["ladder"] == LADDER and game["views"] == ["spectator"]
    response = api.get(f"/api/games/{game_id}/log")
    assert response.headers["content-disposition"].startswith("attachment;")
    log = orjson.loads(response.content)
    assert log["view"] == "spectator" and not any("private" in event for event in log["events"])
    verify_log(log, "downloaded")


def test_full_view_only_once_the_ladder_publishes_it(serve, league):
    """The full log and replay are 403 until `tourney ladder publish LADDER full`; then they are offered."""
    api = serve()
    game_id = first_game(api)
    for url in (f"/api/games/{game_id}/log?view=full", f"/games/{game_id}?view=full",
                f"/games/{game_id}/replay?view=full"):
        assert api.get(url).status_code == 403
    tourney("ladder", "publish", LADDER, "full", "--db", league.path)
    assert api.get(f"/api/games/{game_id}").json()["views"] == ["spectator", "full"]
    log = orjson.loads(api.get(f"/api/games/{game_id}/log?view=full").content)
    assert log["view"] == "full" and any("private" in event for event in log["events"])
    assert api.get(f"/games/{game_id}/replay?view=full").status_code == 200


def test_tournament_games_follow_the_servers_tournament_logs_setting(serve):
    """Tournament games offer the full view only on a server started with --tournament-logs full."""
    game_id = serve().get(f"/api/tournaments/{TOURNAMENT}/games").json()["items"][0]["game_id"]
    assert serve().get(f"/api/games/{game_id}").json()["views"] == ["spectator"]
    assert serve(tournament_logs="full").get(f"/api/games/{game_id}").json()["views"] == ["spectator", "full"]


def test_signed_download_with_the_servers_key(serve, tmp_path):
    """With --sign, a log downloads signed by that key; without, signed=true is a 404."""
    signing.new_keys(tmp_path / "league.key", tmp_path / "league.pub")
    api = serve(signing_key=tmp_path / "league.key")
    game_id = first_game(api)
    log = orjson.loads(api.get(f"/api/games/{game_id}/log", params={"signed": "true"}).content)
    assert "checked against the given key" in signing.check_signature(log, signing.load_public(tmp_path / "league.pub"))
    assert serve().get(f"/api/games/{game_id}/log", params={"signed": "true"}).status_code == 404


def test_a_tampered_game_shows_as_failing_verification(serve, league):
    """A game whose sealed events were altered behind the ledger's back is shown as not verifying."""
    api = serve()
    game_id = first_game(api)
    import sqlite3

    raw = sqlite3.connect(league.path)
    number = "(SELECT store_seq FROM games WHERE id = ?)"
    query = f"SELECT block FROM sealed_games WHERE store_seq = {number}"
    block = bytearray(raw.execute(query, (game_id,)).fetchone()[0])
    block[len(block) // 2] ^= 0xFF
    raw.execute("DROP TRIGGER sealed_games_no_update")
    raw.execute(f"UPDATE sealed_games SET block = ? WHERE store_seq = {number}", (bytes(block), game_id))
    raw.commit()
    raw.close()
    verification = api.get(f"/api/games/{game_id}").json()["verification"]
    assert not verification["ok"] and "its sealed block cannot be decompressed" in verification["detail"]


@pytest.mark.parametrize("url", [
    "/api/ladders/nope", "/api/ladders/nope/games", f"/api/ladders/{LADDER}/bots/nobody/history",
    "/api/tournaments/nope", "/api/tournaments/99999999999999999999999", "/api/tournaments/²",
    "/api/bots/nobody", "/api/bots/nobody/games", "/api/games/nope", "/api/games/nope/log",
    "/ladders/nope", "/tournaments/nope", "/bots/nobody", "/games/nope", "/games/nope/replay", "/no/such/page",
])
def test_what_does_not_exist_is_a_404(serve, url):
    """Unknown ladders, tournaments, bots and games are 404: JSON under /api, a page elsewhere."""
    response = serve().get(url)
    assert response.status_code == 404
    if url.startswith("/api/"):
        assert response.json()["detail"]
        assert "league.db" not in response.text  # the database's path is the operator's business
    else:
        assert response.headers["content-type"].startswith("text/html") and "404" in response.text


# -- live updates ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_leaderboard_etag_is_304_until_a_game_is_stored(serve, league):
    """The ladder and its leaderboard fragment answer 304 to their ETag until another game is stored."""
    api = serve()
    for url in (f"/api/ladders/{LADDER}", f"/ladders/{LADDER}/leaderboard"):
        first = api.get(url)
        tag = first.headers["etag"]
        assert api.get(url, headers={"If-None-Match": tag}).status_code == 304
    tourney("ladder", "play", LADDER, "--games", "2", "--jobs", "0", "--db", league.path)
    for url in (f"/api/ladders/{LADDER}", f"/ladders/{LADDER}/leaderboard"):
        again = api.get(url, headers={"If-None-Match": tag})
        assert again.status_code == 200 and again.headers["etag"] != tag
    assert api.get(f"/api/ladders/{LADDER}").json()["games"] == 6


# -- tokens ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("header", [None, "Basic YWxpY2U6eA==", "Bearer", "Bearer tourney_not-a-token",
                                    "Bearer notourneyprefix"])
def test_without_a_valid_token_the_owner_api_is_401(api, header):
    """No header, another scheme, an empty or unknown token: 401 with WWW-Authenticate: Bearer."""
    response = api.get("/api/me", headers={"Authorization": header} if header else {})
    assert response.status_code == 401 and response.headers["www-authenticate"].startswith("Bearer")


def test_a_token_names_its_owner_and_only_its_hash_is_stored(api, league):
    """GET /api/me with alice's token is alice; the database holds the token's SHA-256, never the token."""
    token = league.tokens["alice"]
    me = api.get("/api/me", token=token).json()
    assert (me["name"], me["bots"]) == ("alice", [])
    data = league.path.read_bytes()
    assert token.encode() not in data and hashlib.sha256(token.encode()).hexdigest().encode() in data


def test_a_new_token_replaces_the_old_one(api, league):
    """`tourney users token NAME` prints a new token; the old one is refused from then on."""
    old = league.tokens["bob"]
    new = tourney("users", "token", "bob", "--db", league.path).strip().splitlines()[-1]
    assert api.get("/api/me", token=old).status_code == 401
    assert api.get("/api/me", token=new).json()["name"] == "bob"


def test_tokens_are_rate_limited(serve, league):
    """Past --requests-per-minute a token gets 429 with Retry-After; another owner's token is not slowed."""
    api = serve(submissions=True, requests_per_minute=3)
    answers = [api.get("/api/me", token=league.tokens["alice"]).status_code for _ in range(4)]
    assert answers == [200, 200, 200, 429]
    limited = api.get("/api/me", token=league.tokens["alice"])
    assert int(limited.headers["retry-after"]) >= 1
    assert api.get("/api/me", token=league.tokens["bob"]).status_code == 200


# -- submissions -------------------------------------------------------------------------------------


def upload(api, token, content: bytes, filename="my_bot.py", ladder=LADDER, **form):
    return api.post(f"/api/ladders/{ladder}/submissions", token=token,
                    files={"file": (filename, content, "application/octet-stream")}, data=form)


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


RANDOM_BOT = (ROOT / "bots" / "random_bot.py").read_bytes() + b"\n# an owner's copy\n"
"""A bot whose content no other test bot has (main's ladder caches unpacked bots by content alone)."""


def test_a_read_only_server_refuses_submissions(serve, league):
    """Without --submissions a submission is 403, whoever sends it."""
    response = upload(serve(), league.tokens["alice"], RANDOM_BOT)
    assert response.status_code == 403 and "read-only" in response.json()["detail"]


def test_a_submission_needs_a_token(api):
    """A submission without a token is 401 (a form posted from another site carries none)."""
    response = api.post(f"/api/ladders/{LADDER}/submissions", files={"file": ("b.py", RANDOM_BOT)})
    assert response.status_code == 401


def test_an_oversize_upload_is_413_before_it_is_read(serve, league):
    """An upload over --max-upload-kb is 413, whether its Content-Length says so or its body runs over."""
    api = serve(submissions=True, max_upload_bytes=1024)
    assert upload(api, league.tokens["alice"], b"#" * 2048).status_code == 413
    huge = api.post(f"/api/ladders/{LADDER}/submissions", token=league.tokens["alice"],
                    content=b"x" * 200_000, headers={"Content-Type": "multipart/form-data; boundary=x"})
    assert huge.status_code == 413

    async def chunks():  # a well-formed start of a file field, then more of it than the limit, with no length
        yield b'--x\r\nContent-Disposition: form-data; name="file"; filename="a.py"\r\n\r\n'
        for _ in range(100):
            yield b"x" * 4096

    streamed = api.post(f"/api/ladders/{LADDER}/submissions", token=league.tokens["alice"], content=chunks(),
                        headers={"Content-Type": "multipart/form-data; boundary=x"})
    assert streamed.status_code == 413


@pytest.mark.parametrize(("filename", "content", "form", "words"), [
    ("bot.txt", b"hello", {}, "a single file is a Python bot (.py), a program starting with #!, or a compiled program"),
    ("bot", b"\x7fELX not quite", {}, "(an ELF executable)"),
    ("bot.zip", zipped({"../evil.py": b"x"}), {}, "no '..'"),
    ("bot.zip", zipped({"a.py": b"x", "b.py": b"y"}), {}, "several .py files"),
    ("bot.zip", zipped({"a.py": b"x"}), {"entry": "b.py"}, "no file 'b.py'"),
    ("bot.zip", b"PK\x03\x04 not really a zip", {}, "not a readable zip"),
    ("bot.py", b"", {}, "empty"),
    ("bot.py", RANDOM_BOT, {"bot": "no spaces please"}, "not a name here"),
    ("bot.bot.json", b"{}", {}, "upload it in a zip"),
])
def test_what_cannot_be_a_bot_is_a_422(api, league, filename, content, form, words):
    """Uploads that cannot be a bot are refused at once with a reason, and nothing is queued."""
    response = upload(api, league.tokens["alice"], content, filename, **form)
    assert response.status_code == 422 and words in response.json()["detail"]
    assert api.get("/api/me/submissions", token=league.tokens["alice"]).json()["total"] == 0


def test_no_name_hijack(api, league):
    """A name another owner submitted under, or one the league runs itself, is refused with 403."""
    assert upload(api, league.tokens["alice"], RANDOM_BOT, bot="alices-bot").status_code == 202
    taken = upload(api, league.tokens["bob"], RANDOM_BOT, bot="alices-bot")
    assert taken.status_code == 403 and "another owner" in taken.json()["detail"]
    operators = upload(api, league.tokens["bob"], RANDOM_BOT, bot="random_bot")
    assert operators.status_code == 403 and "runs itself" in operators.json()["detail"]
    assert upload(api, league.tokens["alice"], RANDOM_BOT + b"\n", bot="alices-bot").status_code == 202


def test_submissions_per_hour_are_limited_per_owner(serve, league):
    """Past --submissions-per-hour an owner gets 429 (counted in the database); others may still submit."""
    api = serve(submissions=True, submissions_per_hour=1)
    assert upload(api, league.tokens["alice"], RANDOM_BOT, bot="one").status_code == 202
    assert upload(api, league.tokens["alice"], RANDOM_BOT, bot="two").status_code == 429
    assert upload(api, league.tokens["bob"], RANDOM_BOT, bot="three").status_code == 202


@pytest.mark.slow
def test_a_passing_submission_is_listed_by_the_worker_and_plays(api, league):
    """A good upload waits as pending; `ladder work` validates and lists it, plays it, and the leaderboard
    shows it with its owner."""
    response = upload(api, league.tokens["alice"], RANDOM_BOT, bot="alices-random")
    assert response.status_code == 202 and response.json()["status"] == "pending"
    location = response.headers["location"]
    assert api.get(location, token=league.tokens["bob"]).status_code == 404  # not bob's to see
    assert api.get(f"/api/ladders/{LADDER}").json()["waiting"] == 1
    out = tourney("ladder", "work", LADDER, "--rounds", "1", "--games", "4", "--jobs", "0", "--seed", "3",
                  "--db", league.path)
    assert "listed alices-random v1 (owner alice)" in out
    decided = api.get(location, token=league.tokens["alice"]).json()
    assert decided["status"] == "listed" and decided["reason"] is None
    board = {row["bot"]: row for row in api.get(f"/api/ladders/{LADDER}").json()["leaderboard"]}
    assert board["alices-random"]["owner"] == "alice" and board["alices-random"]["games"] > 0
    assert api.get("/api/me", token=league.tokens["alice"]).json()["bots"] == ["alices-random"]


@pytest.mark.slow
def test_a_failing_submission_is_refused_with_its_reason(api, league):
    """An upload that forfeits its validation game is refused, the reason told to its owner; nothing is listed."""
    illegal = (ROOT / "tests" / "tournaments" / "bots" / "illegal.py").read_bytes()
    location = upload(api, league.tokens["bob"], illegal, "illegal.py").headers["location"]
    tourney("ladder", "work", LADDER, "--rounds", "1", "--games", "1", "--jobs", "0", "--db", league.path)
    decided = api.get(location, token=league.tokens["bob"]).json()
    assert decided["status"] == "refused" and "forfeited" in decided["reason"] and "/tmp" not in decided["reason"]
    assert "illegal" not in {row["bot"] for row in api.get(f"/api/ladders/{LADDER}").json()["leaderboard"]}


def test_a_zip_with_a_manifest_is_validated_as_a_program(api, league):
    """A zip holding a .bot.json manifest and its program is unpacked and validated like `ladder submit` does."""
    program = (ROOT / "bots" / "programs" / "random_player.py").read_bytes()
    manifest = (ROOT / "bots" / "random_program.bot.json").read_bytes()
    files = zipped({"random_program.bot.json": manifest, "programs/random_player.py": program})
    location = upload(api, league.tokens["bob"], files, "random_program.zip", bot="bobs-program").headers["location"]
    tourney("ladder", "work", LADDER, "--rounds", "1", "--games", "1", "--jobs", "0", "--db", league.path)
    assert api.get(location, token=league.tokens["bob"]).json()["status"] == "listed"


C_BOT = r"""
/* A bot in C: ready to hello, the first legal action to each act, quits at end (docs/bot-protocol.md). */
#include <stdio.h>
#include <string.h>

static char line[1 << 21];

int main(void) {
    while (fgets(line, sizeof line, stdin)) {
        if (strstr(line, "\"type\":\"hello\"")) {
            printf("{\"type\": \"ready\"}\n");
        } else if (strstr(line, "\"type\":\"act\"")) {
            char *first = strstr(line, "\"legal\":[\"");
            char *end = first ? strchr(first + 10, '"') : NULL;
            if (!end) return 1;
            printf("{\"type\": \"action\", \"action\": \"%.*s\"}\n", (int) (end - first - 10), first + 10);
        } else {
            return 0;
        }
        fflush(stdout);
    }
    return 0;
}
"""


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler here")
def test_a_compiled_bot_is_accepted_as_ladder_submit_accepts_it(api, league, tmp_path):
    """A bot compiled from C (an ELF executable), uploaded as its one file: the web refused it ("a single file is a
    Python bot (.py) or a program starting with #!") though `ladder submit` lists it; now it is queued, and the
    worker validates it in the sandbox and lists it."""
    source = tmp_path / "first.c"
    source.write_text(C_BOT)
    subprocess.run(["cc", "-O1", "-o", str(tmp_path / "first"), str(source)], check=True, timeout=120)
    binary = (tmp_path / "first").read_bytes()
    assert binary.startswith(b"\x7fELF")
    response = upload(api, league.tokens["bob"], binary, "first", bot="bobs-c-bot")
    assert response.status_code == 202, response.json()
    out = tourney("ladder", "work", LADDER, "--rounds", "1", "--games", "1", "--jobs", "0", "--db", league.path)
    assert "listed bobs-c-bot v1 (owner bob)" in out, out
    decided = api.get(response.headers["location"], token=league.tokens["bob"]).json()
    assert decided["status"] == "listed" and decided["reason"] is None


def test_owners_retire_their_own_bots_only(api, league):
    """POST .../bots/BOT/retire retires the owner's bot; another owner's is 403."""
    upload(api, league.tokens["alice"], RANDOM_BOT, bot="alices-random")
    tourney("ladder", "work", LADDER, "--rounds", "1", "--games", "1", "--jobs", "0", "--db", league.path)
    url = f"/api/ladders/{LADDER}/bots/alices-random/retire"
    assert api.post(url, token=league.tokens["bob"]).status_code == 403
    assert api.post(url, token=league.tokens["alice"]).json() == {"ladder": LADDER, "bot": "alices-random",
                                                                  "version": 1}
    assert "alices-random" not in {row["bot"] for row in api.get(f"/api/ladders/{LADDER}").json()["leaderboard"]}
    assert api.post(url, token=league.tokens["alice"]).status_code == 404  # nothing active left to retire
    assert serve_read_only(league).post(url, token=league.tokens["alice"]).status_code == 403


def serve_read_only(league):
    from tests.web.league import Api
    from web.app import create_app
    from web.settings import Settings

    return Api(create_app(Settings(db=str(league.path))))


CHATTY_BOT = b"""import sys

GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        self.rng = rng
        print(f"chatty at seat {seat} <script>alert(1)</script>", file=sys.stderr)

    def act(self, turn):
        return self.rng.choice(turn.legal)
"""
"""A bot that writes on stderr (markup included) in each of its games."""


@pytest.mark.slow
def test_stderr_of_ladder_games_is_its_owners_only(api, league):
    """What a bot wrote on stderr in the ladder games `ladder work` played in the sandbox is stored with
    each game and shown, escaped, to its owner (API and bot page with their token), never to another
    owner or to anyone without a token, and the page saying it is never cached for others."""
    assert upload(api, league.tokens["alice"], CHATTY_BOT, bot="chatty").status_code == 202
    # Seeded: matchmaking picks tables at random, and this seed seats the new bot.
    tourney("ladder", "work", LADDER, "--rounds", "1", "--games", "4", "--jobs", "0", "--seed", "3",
            "--db", league.path)
    played = api.get("/api/bots/chatty/games").json()
    assert played["total"] >= 1
    logs = api.get("/api/bots/chatty/logs", token=league.tokens["alice"]).json()
    assert logs["total"] == played["total"]
    seats = {(g["game_id"], s["seat"]) for g in played["items"] for s in g["seats"] if s["bot"] == "chatty"}
    assert {(item["game_id"], item["seat"]) for item in logs["items"]} == seats
    for item in logs["items"]:
        assert f"chatty at seat {item['seat']} <script>alert(1)</script>" in item["stderr"]

    owners_page = api.get("/bots/chatty", token=league.tokens["alice"])
    assert "chatty at seat" in owners_page.text and "&lt;script&gt;alert(1)&lt;/script&gt;" in owners_page.text
    assert "<script>alert(1)" not in owners_page.text
    assert owners_page.headers["cache-control"] == "private, no-store"
    assert owners_page.headers["vary"].startswith("Authorization, Cookie")  # and Accept-Encoding: it may be gzipped

    assert api.get("/api/bots/chatty/logs").status_code == 401
    assert api.get("/api/bots/chatty/logs", token=league.tokens["bob"]).status_code == 403
    for page in (api.get("/bots/chatty"), api.get("/bots/chatty", token=league.tokens["bob"])):
        assert page.status_code == 200 and "chatty at seat" not in page.text
        assert page.headers["vary"].startswith("Authorization, Cookie")
    assert api.get("/bots/chatty", token="tourney_not-a-token").status_code == 401


@pytest.mark.slow
def test_ladder_play_stores_stderr_too(league, tmp_path):
    """`tourney ladder play` stores each bot process's stderr tail with its game, as `ladder work` does; a
    bot that wrote nothing has no row."""
    (tmp_path / "chatty.py").write_bytes(CHATTY_BOT)
    tourney("ladder", "submit", LADDER, tmp_path / "chatty.py", "--db", league.path)
    tourney("ladder", "play", LADDER, "--games", "4", "--jobs", "0", "--seed", "2", "--db", league.path)
    ledger = Ledger(str(league.path), read_only=True)
    try:
        with ledger.read() as connection:
            stored = connection.exec_driver_sql(
                "SELECT b.name, l.stderr FROM bot_logs l JOIN seats s ON s.game_id = l.game_id AND s.seat = l.seat "
                "JOIN bots b ON b.id = s.bot_id").all()
            chatty_seats = connection.exec_driver_sql(
                "SELECT COUNT(*) FROM seats s JOIN bots b ON b.id = s.bot_id WHERE b.name = 'chatty'").scalar()
    finally:
        ledger.close()
    assert chatty_seats >= 1 and len(stored) == chatty_seats
    assert all(name == "chatty" and b"chatty at seat" in bytes(stderr) for name, stderr in stored)


# -- pages and headers -------------------------------------------------------------------------------


@pytest.mark.parametrize("url", [
    "/", f"/ladders/{LADDER}", f"/ladders/{LADDER}/leaderboard", f"/tournaments/{TOURNAMENT}", "/bots/random_bot",
    "/bots/random_bot?result=&forfeited=", "/bots/raises?forfeited=true"])
def test_pages_escape_the_html_bot_name(serve, url):
    """Every page shows the bot named like an HTML tag as text: escaped, never as markup."""
    response = serve().get(url)
    assert response.status_code == 200 and XSS not in response.text
    if LADDER in url or "random_bot" in url:  # pages that show it
        assert ESCAPED in response.text


def test_every_response_carries_the_security_headers(serve):
    """Pages and API answers carry a CSP without inline script, nosniff, no-referrer, and set no cookie."""
    api = serve()
    game_id = first_game(api)
    for url in ("/", f"/ladders/{LADDER}", f"/games/{game_id}", "/api/ladders", "/nope", "/static/site.css"):
        response = api.get(url)
        policy = response.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy and "frame-ancestors 'none'" in policy
        assert response.headers["x-content-type-options"] == "nosniff"
        assert "set-cookie" not in response.headers


def test_the_replay_route_has_the_documents_own_policy(serve):
    """/games/ID/replay serves the replay page with its hash-pinned policy, framed only by this site."""
    api = serve()
    game_id = first_game(api)
    response = api.get(f"/games/{game_id}/replay")
    policy = response.headers["content-security-policy"]
    assert "script-src 'sha256-" in policy and "frame-ancestors 'self'" in policy and "connect-src" not in policy
    assert response.headers["x-frame-options"] == "SAMEORIGIN" and XSS not in response.text
    page = api.get(f"/games/{game_id}").text
    assert f'src="/games/{game_id}/replay?view=spectator" sandbox="allow-scripts"' in page


def test_openapi_documents_every_api_route_and_no_page_loads_a_cdn(serve):
    """/openapi.json lists the API; the CDN-backed /docs and /redoc pages do not exist."""
    api = serve()
    paths = api.get("/openapi.json").json()["paths"]
    for path in ("/api/ladders", "/api/ladders/{name}", "/api/ladders/{name}/submissions", "/api/submissions/"
                 "{submission_id}", "/api/me", "/api/bots/{name}/logs", "/api/games/{game_id}/log",
                 "/api/tournaments/{ref}/games", "/api/ladders/{name}/bots/{bot}/retire"):
        assert path in paths
    assert api.get("/docs").status_code == 404 and api.get("/redoc").status_code == 404


def test_a_spectator_page_never_holds_a_hidden_card(serve, league):
    """The spectator replay served holds exactly what a page made from the spectator log holds (the
    same events, views and steps: no hand hidden from spectators), unlike the full page."""
    from replays import archive, html

    api = serve()
    game_id = first_game(api)
    full = archive.export(Ledger(str(league.path), read_only=True), game_id)
    served = html.page_data(full, "spectator", game_id)
    assert api.get(f"/games/{game_id}/replay").text == html.document(served)
    redacted = html.page_data(logfmt.redact(full, "spectator"), "spectator", game_id)
    shown = ("events", "private", "steps", "spectator", "own", "seats", "result", "views")
    assert {key: served[key] for key in shown} == {key: redacted[key] for key in shown}
    assert html.page_data(full, "full", game_id)["own"] != served["own"]


def test_ladder_league_functions_are_what_the_page_shows(serve, league):
    """The leaderboard's ratings, margins and forfeits are league.standings' own."""
    shown = serve().get(f"/api/ladders/{LADDER}").json()["leaderboard"]
    expected = ladder_league.standings(Ledger(str(league.path), read_only=True), LADDER)
    assert [(r["bot"], r["rating"], r["margin"], r["forfeits"]) for r in shown] == \
        [(s.name, round(s.rating, 1), round(s.margin, 1), s.forfeits) for s in expected]


def test_an_openskill_ladder_shows_mu_and_sigma(serve):
    """A three-seat ladder rates by OpenSkill: its leaderboard ranks by mu - 3 sigma and carries mu and sigma."""
    shown = serve().get(f"/api/ladders/{TRIO}").json()
    assert shown["rating"] == "openskill"
    for row in shown["leaderboard"]:
        assert row["rating"] == pytest.approx(row["mu"] - 3 * row["sigma"], abs=0.1)
        assert row["history"][-1] == pytest.approx(row["rating"], abs=0.1)
    assert "OpenSkill" in serve().get(f"/ladders/{TRIO}").text


@pytest.mark.parametrize("change", [("ladder", "retire", LADDER, "random_bot"), ("ladder", "rebuild", LADDER),
                                    ("ladder", "publish", LADDER, "full")])
def test_leaderboard_etag_moves_with_a_retirement_a_rebuild_or_a_publication(serve, league, change):
    """A retirement, a publication and a rebuild's rewritten ratings change the ladder's ETag (no stale cache)."""
    api = serve()
    tag = api.get(f"/api/ladders/{LADDER}").headers["etag"]
    if change[1] == "rebuild":  # a rebuild only moves ratings that had drifted: make one drift
        import sqlite3

        with contextlib.closing(sqlite3.connect(league.path)) as raw, raw:
            raw.execute("UPDATE ladder_entries SET rating = rating + 7 WHERE name = 'random_bot'")
        # Pages read the ratings as stored (never refolded per view): the drift shows, with a new ETag, and the
        # audit of the read models names it until the rebuild puts the fold back.
        drifted = api.get(f"/api/ladders/{LADDER}")
        assert drifted.status_code == 200 and drifted.headers["etag"] != tag
        audit = invoke("db", "audit", "--db", league.path)
        assert audit.exit_code == 1 and "is stored with rating" in audit.output, audit.output
        tourney(*change, "--db", league.path)
        assert api.get(f"/api/ladders/{LADDER}", headers={"If-None-Match": tag}).status_code == 304
        return
    tourney(*change, "--db", league.path)
    assert api.get(f"/api/ladders/{LADDER}", headers={"If-None-Match": tag}).status_code == 200


def test_tournament_los_and_head_to_head_come_a_page_of_rows_at_a_time(serve, league):
    """GET /api/tournaments/NAME?offset=&limit= gives the LOS and head-to-head of ``limit`` bots (rank order) against
    every opponent, with where the next page starts: the pages together are the CLI's whole table, and an answer's
    table never holds more rows than asked."""
    api = serve()
    expected = standings.of_tournament(Ledger(str(league.path), read_only=True), TOURNAMENT).to_json()
    order = [row["bot"] for row in expected["standings"]]
    assert len(order) > 2
    first = api.get(f"/api/tournaments/{TOURNAMENT}").json()
    assert first["table_bots"] == order[:20] and first["table_total"] == len(order) and first["table_offset"] == 0
    los, h2h, offset, seen = {}, {}, 0, []
    while offset is not None:
        shown = api.get(f"/api/tournaments/{TOURNAMENT}", params={"offset": offset, "limit": 2}).json()
        assert list(shown["head_to_head"]) == shown["table_bots"] == order[offset:offset + 2]
        assert set(shown["los"]) == set(shown["table_bots"])
        assert shown["standings"] == first["standings"]
        los.update(shown["los"])
        h2h.update(shown["head_to_head"])
        seen += shown["table_bots"]
        offset = shown["table_next"]
    assert seen == order and los == expected["los"] and h2h == expected["head_to_head"]
    assert api.get(f"/api/tournaments/{TOURNAMENT}", params={"limit": 0}).status_code == 422
