"""The server's refusals, each one line with the status docs/web.md gives: numbers too large for SQL (a 422, never
a 500 from an overflow in the database), validation errors as a sentence, a body that is not a form or is cut short
(400), the upload limit the 413 names, an empty zip, a bot nobody has, a zip whose other files a bot would lose."""

from __future__ import annotations

import io
import re
import zipfile

import pytest

from tests.web.league import LADDER, TOURNAMENT
from tests.web.test_api import RANDOM_BOT, upload, zipped
from tests.web.test_owners import Browser

SQL_INT_MAX = 2**63 - 1
"""The largest integer SQLite's INTEGER (and PostgreSQL's BIGINT) holds."""
HUGE = (SQL_INT_MAX + 1, 10**20)
"""One past the largest SQL integer, and a number far past it (each overflowed SQLite's INTEGER: a 500)."""


def queued(api, token: str) -> int:
    return api.get("/api/me/submissions", token=token).json()["total"]


def integer_parameters(app) -> list[tuple[str, str, dict]]:
    """(method, path, parameter) of every integer parameter (path or query) the document lists."""
    found = []
    for path, operations in app.openapi()["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                schema = parameter["schema"]
                if "integer" in [schema.get("type"), *(part.get("type") for part in schema.get("anyOf", []))]:
                    found.append((method, path, parameter))
    return found


def test_no_integer_a_route_reads_can_overflow_the_database(api, league):
    """Every integer parameter of every route (from the app's own document) is bounded within SQL's integers, and
    2**63 or 10**20 in any of them is a 422 naming it, to a signed-in owner with a real submission (the validation
    game's number was unbounded: `/api/submissions/1/validation/9223372036854775808/log` was a 500)."""
    token = league.tokens["alice"]
    submission = upload(api, token, RANDOM_BOT, bot="alices-bot").json()["id"]
    browser = Browser(api.app)
    browser.sign_in(token)
    filled = {"name": LADDER, "ref": TOURNAMENT, "bot": "alices-bot", "submission_id": str(submission), "number": "1"}
    parameters = integer_parameters(api.app)
    assert {(path, parameter["name"]) for _, path, parameter in parameters} >= {
        ("/api/submissions/{submission_id}/validation/{number}/log", "number"),
        ("/account/submissions/{submission_id}/validation/{number}", "number"),
        ("/account/submissions/{submission_id}", "submission_id")}
    for method, path, parameter in parameters:
        schema = parameter["schema"]
        bounds = [schema, *schema.get("anyOf", [])]
        assert any(part.get("maximum", SQL_INT_MAX + 1) <= SQL_INT_MAX for part in bounds), (path, parameter)
        for value in HUGE:
            in_path = parameter["in"] == "path"
            url = _with(path, filled, parameter["name"] if in_path else "", str(value))
            answer = browser.request(method.upper(), url, params={} if in_path else {parameter["name"]: value},
                                     headers={"Authorization": f"Bearer {token}"})
            assert answer.status_code == 422, (method, url, parameter["name"], answer.status_code)
            if path.startswith("/api/"):
                detail = answer.json()["detail"]
                assert isinstance(detail, str) and detail.startswith(parameter["name"] + ":"), detail


def _with(path: str, filled: dict[str, str], name: str, value: str) -> str:
    """``path`` with each of its parameters filled, ``name``'s with ``value``."""
    return re.sub(r"\{(\w+)\}", lambda m: value if m.group(1) == name else filled.get(m.group(1), "x"), path)


def test_validation_errors_are_one_line_naming_the_field(api, league):
    """A 422 of the API is {"detail": "..."}, a sentence naming the field (it was pydantic's list), and a text field
    sent where the file belongs says so (it said "Value error, Expected UploadFile, received: <class 'str'>")."""
    token = league.tokens["alice"]
    long = upload(api, token, RANDOM_BOT, description="x" * 201)
    assert long.status_code == 422
    assert long.json() == {"detail": "description: string should have at most 200 characters"}
    text = api.post(f"/api/ladders/{LADDER}/submissions", token=token, files={"bot": (None, "b")},
                    data={"file": "text"})
    assert text.status_code == 422
    assert text.json()["detail"] == "file: not a file: send it as a file part (curl -F NAME=@PATH), not as text"
    none = api.post(f"/api/ladders/{LADDER}/submissions", token=token, files={"bot": (None, "b")})
    assert none.status_code == 422 and none.json() == {"detail": "file: missing"}
    paging = api.get(f"/api/ladders/{LADDER}/games", params={"limit": "many", "offset": -1})
    assert paging.status_code == 422 and paging.json()["detail"].count(";") == 1
    assert queued(api, token) == 0


FILE_PART = (b'--xx\r\nContent-Disposition: form-data; name="file"; filename="bot.py"\r\n'
             b"Content-Type: text/x-python\r\n\r\n" + RANDOM_BOT + b"\r\n")
NAME_PART = b'--xx\r\nContent-Disposition: form-data; name="bot"\r\n\r\nalices-name\r\n'
MULTIPART = {"Content-Type": "multipart/form-data; boundary=xx"}


@pytest.mark.parametrize(("body", "kind", "said"), [
    (b'{"file": ', "application/json", "the body is not a form: send it as multipart/form-data (curl -F), not "
                                       "application/json"),
    (b"hello", "text/plain", "not text/plain"),
    (FILE_PART, MULTIPART["Content-Type"], "the multipart body ends before its closing boundary: it was cut short"),
    # The file whole, the name cut short: this was queued, under the file's name instead of the one sent.
    (FILE_PART + NAME_PART[:-8], MULTIPART["Content-Type"], "ends before its closing boundary"),
    (FILE_PART + b"--xx--\r\n", "multipart/form-data", "Missing boundary"),
])
def test_a_body_that_cannot_be_read_as_a_form_is_a_400(api, league, body, kind, said):
    """A body that is not a form (JSON, text), or multipart cut short before its closing boundary, is a 400 in one
    line, as docs/web.md says (they were 422 "Field required", and a cut-short name was dropped); nothing queued."""
    answer = api.post(f"/api/ladders/{LADDER}/submissions", token=league.tokens["alice"], content=body,
                      headers={"Content-Type": kind})
    assert answer.status_code == 400 and said in answer.json()["detail"], answer.text
    assert queued(api, league.tokens["alice"]) == 0


def test_a_whole_multipart_body_is_taken_however_it_is_split(api, league):
    """The closing boundary is found across the pieces the body arrives in (here 5 bytes each), and an epilogue
    after it is allowed: the submission is queued under the name sent."""
    body = FILE_PART + NAME_PART + b"--xx--\r\nan epilogue"

    async def pieces():
        for start in range(0, len(body), 5):
            yield body[start:start + 5]

    answer = api.post(f"/api/ladders/{LADDER}/submissions", token=league.tokens["alice"], content=pieces(),
                      headers=MULTIPART)
    assert answer.status_code == 202 and answer.json()["name"] == "alices-name", answer.text


def test_every_413_names_the_upload_limit(serve, league):
    """However a too-large upload is found (read past the limit, a body past the limit and the form's room, a
    Content-Length saying so), the 413 names the upload limit, the one the owner can act on (it named 1088 KiB,
    a limit that exists nowhere); the account page's too."""
    api = serve(submissions=True, max_upload_bytes=4096)
    token = league.tokens["alice"]
    said = {"detail": "the upload is larger than 4 KiB"}
    read = upload(api, token, b"#" * 5000)
    body = api.post(f"/api/ladders/{LADDER}/submissions", token=token, content=b"x" * 200_000, headers=MULTIPART)
    declared = api.post(f"/api/ladders/{LADDER}/submissions", token=token, content=b"x",
                        headers={**MULTIPART, "Content-Length": "2000000"})
    for answer in (read, body, declared):
        assert (answer.status_code, answer.json()) == (413, said)
    page = api.post("/account/submissions", content=b"x" * 200_000, headers=MULTIPART)
    assert page.status_code == 413 and "larger than this server accepts (4 KiB)" in page.text
    assert queued(api, token) == 0


def empty_zip() -> bytes:
    buffer = io.BytesIO()
    zipfile.ZipFile(buffer, "w").close()
    return buffer.getvalue()


def test_an_empty_zip_is_said_to_be_empty(api, league):
    """A valid zip of no file (22 bytes) is "empty", not "a single file is a Python bot ... (anything else: a zip)"."""
    data = empty_zip()
    assert len(data) == 22
    answer = upload(api, league.tokens["alice"], data, "empty.zip")
    assert answer.status_code == 422 and answer.json()["detail"].startswith("the zip is empty: it holds no bot")


def test_retiring_a_bot_nobody_has_is_a_404(api, league):
    """A bot nobody has is a 404 "no bot 'nosuch'" (it was 403 "only the owner of 'nosuch' may retire it"), as is a
    name another owner only claimed (it stays theirs alone, as on its page); a stored bot of another's stays 403."""
    alice, bob = league.tokens["alice"], league.tokens["bob"]
    url = f"/api/ladders/{LADDER}/bots/{{}}/retire"
    nosuch = api.post(url.format("nosuch"), token=alice)
    assert (nosuch.status_code, nosuch.json()) == (404, {"detail": "no bot 'nosuch'"})
    assert upload(api, bob, RANDOM_BOT, bot="bobs-pending").status_code == 202
    assert api.post(url.format("bobs-pending"), token=alice).json() == {"detail": "no bot 'bobs-pending'"}
    others = api.post(url.format("random_bot"), token=alice)
    assert others.status_code == 403 and "only the owner" in others.json()["detail"]


def test_a_zip_whose_other_files_a_bot_would_lose_is_refused(api, league):
    """A zip of bot.py (which imports helper) and helper.py, started from bot.py, was queued and then refused by the
    worker (ModuleNotFoundError): a bot started from a .py file is that file alone. It is refused at once, saying
    so and pointing to the manifest; the .py alone, and a zip with a manifest and its files, are still taken."""
    token = league.tokens["alice"]
    files = {"bot.py": b"import helper\n" + RANDOM_BOT, "helper.py": b"X = 1\n"}
    answer = upload(api, token, zipped(files), "bot.zip", entry="bot.py")
    assert answer.status_code == 422
    assert answer.json()["detail"] == (
        "the zip holds helper.py beside its entry bot.py, but a bot started from bot.py is that one file alone: "
        "upload bot.py by itself, or add a .bot.json manifest whose command names every file it needs "
        "(docs/bot-protocol.md)")
    many = upload(api, token, zipped({"run": b"#!/bin/sh\n", **{f"lib{n}.sh": b"" for n in range(5)}}), "b.zip",
                  entry="run")
    assert many.status_code == 422 and "lib0.sh, lib1.sh, lib2.sh and 2 more beside its entry run" in many.text
    assert queued(api, token) == 0
    assert upload(api, token, zipped({"bot.py": RANDOM_BOT}), "bot.zip").status_code == 202
    manifest = b'{"command": ["python3", "bot.py", "helper.py"], "name": "alices-program"}'
    both = zipped({"alices.bot.json": manifest, **files})
    assert upload(api, token, both, "alices.zip", bot="alices-program").status_code == 202
