"""Submissions and owners: upload a bot to a ladder, follow what became of it, retire a bot.

The server never runs a submitted bot. An upload is checked (a bot file or a zip, its names,
its size), its name claimed for the owner (no one may submit under another owner's name, or
a name the league runs itself), and queued; `tourney ladder work` validates it in the sandbox
with the games of `tourney ladder submit` and lists it, or refuses it with the reason.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, HTTPException, Request, UploadFile
from fastapi.responses import JSONResponse

from ledger import ladders as ladder_rows
from ledger import owners as owner_rows
from ledger import submissions as queue
from tournaments.ladder import league, owners, uploads
from web import models
from web.deps import LedgerDep, OwnerDep, PagingDep, SiteDep, WritableDep

api = APIRouter(prefix="/api", tags=["submissions"])

AUTH = {401: {"description": "no valid API token"}, 429: {"description": "rate limit reached"}}


def shown(row: dict[str, Any]) -> models.Submission:
    return models.Submission(**{key: row[key] for key in models.Submission.model_fields})


@api.post("/ladders/{name}/submissions", status_code=202, response_model=models.Submission,
          dependencies=[WritableDep], summary="Submit a bot (a file or a zip) to a ladder",
          responses={**AUTH, 403: {"description": "read-only server, or the name is another's"},
                     404: {"description": "no such ladder"}, 413: {"description": "upload too large"},
                     422: {"description": "not a bot upload"}})
async def submit(
    name: str,
    request: Request,
    site: SiteDep,
    owner: OwnerDep,
    file: Annotated[UploadFile, File(description="A Python bot file, a program with #!, or a zip of a bot's files.")],
    bot: Annotated[str | None, Form(description="The bot's name on the ladder (default: the file name's stem).")]
    = None,
    entry: Annotated[str | None, Form(description="In a zip, the file to start (default: its only .bot.json, "
                                                  "else its only .py, at the top).")] = None,
) -> JSONResponse:
    ladder = ladder_rows.get(site.ledger, name)
    since = datetime.now(UTC) - timedelta(hours=1)
    if queue.count_since(site.ledger, owner["id"], since) >= site.settings.submissions_per_hour:
        raise HTTPException(429, f"at most {site.settings.submissions_per_hour} submissions an hour per owner",
                            headers={"Retry-After": "3600"})
    data = await file.read(site.settings.max_upload_bytes + 1)
    if len(data) > site.settings.max_upload_bytes:
        raise HTTPException(413, f"the upload is larger than {site.settings.max_upload_bytes // 1024} KiB")
    try:
        checked = uploads.check(file.filename or "", data, entry or None)
        bot_name = owners.check_name(bot or checked.entry_point.rsplit("/", 1)[-1].split(".")[0], "bot")
    except (uploads.UploadError, owners.BadName) as error:
        raise HTTPException(422, str(error)) from None
    try:
        submission = queue.add(site.ledger, ladder["id"], owner["id"], bot_name, checked.filename,
                               checked.entry_point, data)
    except owner_rows.NameTaken as error:
        raise HTTPException(403, str(error)) from None
    row = queue.get(site.ledger, submission)
    # A path, not a URL: behind a TLS proxy this server may not know its public scheme and host.
    return JSONResponse(shown(row).model_dump(), status_code=202,
                        headers={"Location": request.app.url_path_for("get_submission", submission_id=submission)})


@api.get("/submissions/{submission_id}", response_model=models.Submission, responses=AUTH,
         summary="What became of one of your submissions")
def get_submission(submission_id: int, owner: OwnerDep, ledger: LedgerDep) -> models.Submission:
    try:
        row = queue.get(ledger, submission_id) if 0 < submission_id < 2**62 else None
    except queue.UnknownSubmission:
        row = None
    if row is None or row["owner_id"] != owner["id"]:
        raise HTTPException(404, f"you have no submission {submission_id}")
    return shown(row)


@api.get("/me", response_model=models.Owner, responses=AUTH, summary="The owner of the token, and their bots")
def me(owner: OwnerDep, ledger: LedgerDep) -> models.Owner:
    return models.Owner(name=owner["name"], created_at=owner["created_at"],
                        bots=owner_rows.bots_of(ledger, owner["id"]))


@api.get("/me/submissions", response_model=models.Page[models.Submission], responses=AUTH,
         summary="Your submissions, newest first")
def my_submissions(owner: OwnerDep, ledger: LedgerDep, paging: PagingDep) -> models.Page[models.Submission]:
    found, total = queue.of_owner(ledger, owner["id"], paging.limit, paging.offset)
    return models.Page[models.Submission].of([shown(row) for row in found], total, paging.offset, paging.limit)


@api.post("/ladders/{name}/bots/{bot}/retire", response_model=models.Retired, dependencies=[WritableDep],
          responses={**AUTH, 403: {"description": "not your bot"}, 404: {"description": "no such ladder or bot"}},
          summary="Retire your bot from a ladder: it plays no more; its games and rating stay")
def retire(name: str, bot: str, owner: OwnerDep, ledger: LedgerDep) -> models.Retired:
    ladder_rows.get(ledger, name)
    if bot not in owner_rows.bots_of(ledger, owner["id"]):
        raise HTTPException(403, f"only the owner of {bot!r} may retire it")
    try:
        version = league.retire(ledger, name, bot, f"retired by its owner {owner['name']}")
    except league.LadderError as error:
        raise HTTPException(404, str(error)) from None
    except ladder_rows.LedgerError as error:
        raise HTTPException(404, str(error)) from None
    return models.Retired(ladder=name, bot=bot, version=version)
