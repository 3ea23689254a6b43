"""The OpenAPI document says every answer an operation can give (Schemathesis checks it with all its
checks: tests/web/test_schemathesis.py).

Routes name the answers particular to them (``responses=``: a 403 "not your bot"); ``complete``
then adds the ones every operation may give, from the way the application answers:

* 404 wherever the path names something (a ladder, a bot, a game), and 422 wherever a parameter
  or a body is read;
* 409 and 503 wherever the ledger is read (a refused read; rows that disagree with the hashed
  events, docs/web.md "The API"); 400 and 413 wherever a body is sent (a body that cannot be parsed
  as the form it claims to be, such as multipart without its parts; one too large); 401 and 429
  wherever a token or a session is read;
* every error of an API route is JSON (``Error``); every answer of a page is HTML, its errors
  included.

HEAD is answered wherever GET is (``HeadAsGet``), as HTTP asks; it is not listed separately.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from web import schemas
from web.security import App, Receive, Scope, Send

DESCRIPTIONS = {
    303: "done: see the page in Location",
    400: "a body that cannot be read as a form (not multipart or urlencoded, or malformed: no boundary, cut short)",
    401: "no valid API token (API) or no sign-in (pages)",
    403: "not allowed: not yours, a read-only server, or a form without its CSRF token",
    404: "no such ladder, tournament, bot, game or submission",
    409: "the ledger refused the request",
    413: "the upload (the request body) is larger than this server accepts",
    422: "a parameter or an upload that cannot be used (the answer says which, and why)",
    429: "too many requests, or too many wrong tokens from here: wait the seconds in Retry-After",
    503: "this league's database does not verify (rows disagree with the games' hashed events)",
}
HTML = {"text/html": {"schema": {"type": "string"}}}


def complete(app: FastAPI) -> None:
    """Make ``app.openapi()`` document the answers every operation may give (once, then cached)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, summary=app.summary,
                                 description=app.description, routes=app.routes)
            error = schemas.Error.model_json_schema(ref_template="#/components/schemas/{model}")
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            components.update(error.pop("$defs", {}))
            components["Error"] = error
            for unused in ("HTTPValidationError", "ValidationError"):  # FastAPI's: every error here is Error
                components.pop(unused, None)
            for path, operations in schema["paths"].items():
                for operation in operations.values():
                    _complete(path, operation)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi


def _complete(path: str, operation: dict[str, Any]) -> None:
    page = not path.startswith("/api/")
    answers = operation.setdefault("responses", {})
    headers = {p["name"].lower() for p in operation.get("parameters", []) if p.get("in") == "header"}
    statuses = {409, 503}
    if "{" in path:
        statuses.add(404)
    if operation.get("parameters") or "requestBody" in operation:
        statuses.add(422)
    if "requestBody" in operation:
        statuses |= {400, 413}
    if "authorization" in headers or "cookie" in headers or operation.get("x-signed-in"):
        statuses |= {401, 429}
    for status in statuses:
        answers.setdefault(str(status), {"description": DESCRIPTIONS[status]})
    for status, answer in answers.items():
        code = int(status)
        if page:
            if code >= 400 or code == 200:
                answer["content"] = HTML
        elif code >= 400:
            answer["content"] = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
        if code == 303:
            answer.pop("content", None)
            answer.setdefault("headers", {"Location": {"schema": {"type": "string"},
                                                       "description": "where to go next"}})
        if code == 429:
            answer.setdefault("headers", {"Retry-After": {"schema": {"type": "string"},
                                                          "description": "seconds to wait"}})


class HeadAsGet:
    """Answers HEAD as GET without its body (HTTP: HEAD wherever GET is), for every route."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headless(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {**message, "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headless)
