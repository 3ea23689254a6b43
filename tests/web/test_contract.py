"""The HTTP contract beside Schemathesis' run (tests/web/test_schemathesis.py), each point on its own: HEAD
wherever GET is, 405 naming every method of a path, JSON errors under /api and HTML ones on pages, the
statuses each operation documents, an empty upload refused as the schema says, and answers to a token
(or a session) never cached."""

from __future__ import annotations

import re

import pytest

from tests.web.league import LADDER, ROOT, TOURNAMENT


def first_game(api) -> str:
    return api.get(f"/api/ladders/{LADDER}/games", params={"limit": 1}).json()["items"][0]["game_id"]


def test_head_answers_wherever_get_does(api, league):
    """HEAD of every GET route of the document (its parameters filled with what the league holds) answers as
    GET does, same status and content type, with no body; HEAD / is a 200, not a 405."""
    known = {"name": LADDER, "bot": "random_bot", "ref": TOURNAMENT, "game_id": first_game(api),
             "submission_id": "1", "number": "1"}
    alice = league.tokens["alice"]
    head = api.request("HEAD", "/")
    assert head.status_code == 200 and head.content == b"" and head.headers["content-type"].startswith("text/html")
    tried = 0
    for path, operations in api.get("/openapi.json").json()["paths"].items():
        if "get" not in operations:
            continue
        url = re.sub(r"\{(\w+)\}", lambda m: known[m.group(1)], path)
        got, head = api.get(url, token=alice), api.request("HEAD", url, token=alice)
        assert head.status_code == got.status_code, url
        assert head.headers.get("content-type") == got.headers.get("content-type") and head.content == b"", url
        tried += 1
    assert tried >= 20


def test_a_method_a_path_does_not_answer_is_a_405_naming_every_one_it_does(api):
    """/sign-in answers GET (and HEAD) and POST: a PUT there is a 405 whose Allow names all three."""
    answer = api.request("PUT", "/sign-in")
    assert answer.status_code == 405
    assert set(answer.headers["allow"].split(", ")) == {"GET", "HEAD", "POST"}


@pytest.mark.parametrize(("url", "status"), [("/api/ladders/nope", 404), ("/api/ladders/duel/games?limit=0", 422),
                                             ("/api/bots/random_bot/games?result=maybe", 422)])
def test_api_errors_are_json(api, url, status):
    """Every error under /api is JSON: {"detail": ...}."""
    answer = api.get(url)
    assert answer.status_code == status and answer.headers["content-type"] == "application/json"
    assert "detail" in answer.json()


@pytest.mark.parametrize(("url", "status"), [("/ladders/nope", 404), ("/ladders/duel/games?limit=0", 422),
                                             ("/bots/random_bot?result=maybe", 422),
                                             ("/ladders/duel?sort=height", 422)])
def test_page_errors_are_pages(api, url, status):
    """Every error of a page is a page (HTML, saying what is wrong), and the document says so."""
    answer = api.get(url)
    assert answer.status_code == status and answer.headers["content-type"].startswith("text/html")
    assert f"<h1>{status}</h1>" in answer.text


def test_every_operation_documents_its_errors(api):
    """Each operation lists 404 where its path names something, 422 where it reads a parameter or a body, and
    the ledger's 409 and 503; an API error's schema is Error, a page error's HTML."""
    for path, operations in api.get("/openapi.json").json()["paths"].items():
        for method, operation in operations.items():
            answers = operation["responses"]
            assert {"409", "503"} <= set(answers), (method, path)
            if "{" in path:
                assert "404" in answers, (method, path)
            if operation.get("parameters") or "requestBody" in operation:
                assert "422" in answers, (method, path)
            for status, answer in answers.items():
                if int(status) >= 400:
                    kind = "application/json" if path.startswith("/api/") else "text/html"
                    assert list(answer["content"]) == [kind], (method, path, status)


def test_an_empty_upload_is_refused_as_the_schema_says(api, league):
    """The document says an upload is never empty (minLength 1); an empty one is a 422 saying so."""
    schemas = api.get("/openapi.json").json()["components"]["schemas"]
    uploads = [schema["properties"]["file"] for schema in schemas.values() if "file" in schema.get("properties", {})]
    assert len(uploads) == 2 and all(upload["minLength"] == 1 for upload in uploads)
    answer = api.post(f"/api/ladders/{LADDER}/submissions", token=league.tokens["alice"],
                      files={"file": ("empty.py", b"")})
    assert answer.status_code == 422 and answer.json()["detail"] == "the upload is empty"


def test_answers_to_a_token_are_never_cached(api, league):
    """Everything answered to an owner's token (their submission, their bots' stderr, who they are) is
    `Cache-Control: private, no-store`; what anyone may see is not marked private (the leaderboard keeps its
    ETag's no-cache, token or not: it is the same for everyone)."""
    alice = league.tokens["alice"]
    made = api.post(f"/api/ladders/{LADDER}/submissions", token=alice,
                    files={"file": ("mine.py", (ROOT / "bots" / "random_bot.py").read_bytes() + b"\n# mine\n")},
                    data={"bot": "alices"})
    assert made.status_code == 202 and made.headers["cache-control"] == "private, no-store"
    for url in (f"/api/submissions/{made.json()['id']}", "/api/bots/alices/logs", "/api/me", "/api/me/submissions",
                "/bots/alices"):
        answer = api.get(url, token=alice)
        assert answer.status_code == 200 and answer.headers["cache-control"] == "private, no-store", url
    for url in ("/", f"/api/ladders/{LADDER}", "/bots/alices"):
        assert "private" not in api.get(url).headers.get("cache-control", ""), url
    assert api.get(f"/api/ladders/{LADDER}", token=alice).headers["cache-control"] == "no-cache"
