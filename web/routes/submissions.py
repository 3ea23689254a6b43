"""Submissions and owners: upload a bot to a ladder, follow what became of it, retire a bot.

The server never runs a submitted bot. An upload is checked (a bot file or a zip, its names,
its size), its name claimed for the owner (no one may submit under another owner's name, or
a name the league runs itself), and queued; `tourney ladder work` validates it in the sandbox
with the games of `tourney ladder submit` and lists it, or refuses it with the reason.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, File, Form, HTTPException, Request, UploadFile
from fastapi.responses import JSONResponse, Response

from ledger.rows import game_rows, ladder_rows, owner_rows, submission_rows
from ledger.store import Ledger
from replays import log as logfmt
from tournaments.ladder import league, owner_tokens, uploads
from web import schemas
from web.deps import LedgerDep, OwnerDep, PagingDep, Site, SiteDep, SubmissionId, ValidationNumber, WritableDep

api = APIRouter(prefix="/api", tags=["submissions"])

NOT_EMPTY = {"minLength": 1}
Described = Annotated[str | None, Form(max_length=league.DESCRIPTION_CHARS, description=(
    "A line on the bot, shown with it on the leaderboard and its page (plain text, at most "
    f"{league.DESCRIPTION_CHARS} characters)."))]
"""An upload has at least one byte (an empty one is refused, 422, as the schema says)."""
AUTH = {401: {"description": "no valid API token"}, 429: {"description": "rate limit reached"}}


def shown(row: dict[str, Any]) -> schemas.Submission:
    return schemas.Submission(**{key: row[key] for key in schemas.Submission.model_fields if key in row})


async def accept(site: Site, owner: dict[str, Any], ladder_name: str, upload: UploadFile, bot: str | None,
                 entry: str | None, description: str | None = None) -> dict[str, Any]:
    """Check an upload and queue it for validation (the API's and the account page's): its row, or an
    HTTPException saying what is wrong (404 no ladder, 429 too many this hour, 413 too large, 422 not a bot,
    403 a name that is another's)."""
    ladder = ladder_rows.get(site.ledger, ladder_name)
    since = datetime.now(UTC) - timedelta(hours=1)
    if submission_rows.count_since(site.ledger, owner["id"], since) >= site.settings.submissions_per_hour:
        raise HTTPException(429, f"at most {site.settings.submissions_per_hour} submissions an hour per owner",
                            headers={"Retry-After": "3600"})
    data = await upload.read(site.settings.max_upload_bytes + 1)
    if len(data) > site.settings.max_upload_bytes:
        raise HTTPException(413, f"the upload is larger than {site.settings.max_upload_bytes // 1024} KiB")
    try:
        checked = uploads.check(upload.filename or "", data, entry or None)
        bot_name = owner_tokens.check_name(bot or checked.entry_point.rsplit("/", 1)[-1].split(".")[0], "bot")
    except (uploads.UploadError, owner_tokens.BadName) as error:
        raise HTTPException(422, str(error)) from None
    try:
        submission = submission_rows.add(site.ledger, ladder["id"], owner["id"], bot_name, checked.filename,
                               checked.entry_point, data, description or None)
    except owner_rows.NameTaken as error:
        raise HTTPException(403, str(error)) from None
    return submission_rows.get(site.ledger, submission)


def own_bot(ledger: Ledger, owner: dict[str, Any], bot: str) -> None:
    """Nothing if ``bot`` is the owner's; 404 if there is no such bot to be seen (no version stored: a name nobody
    holds, or one only claimed by another owner, which stays theirs alone as on its page); else 403, another's."""
    if bot in owner_rows.bots_of(ledger, owner["id"]):
        return
    if not game_rows.versions(ledger, bot):
        raise HTTPException(404, f"no bot {bot!r}")
    raise HTTPException(403, f"only the owner of {bot!r} may retire it")


def retire_bot(ledger: Ledger, owner: dict[str, Any], ladder_name: str, bot: str) -> schemas.Retired:
    """Retire the owner's bot from a ladder (the API's and the account page's): 404 if there is no such bot, 403 if
    it is not theirs, 404 if it has no active version there."""
    ladder_rows.get(ledger, ladder_name)
    own_bot(ledger, owner, bot)
    try:
        version = league.retire(ledger, ladder_name, bot, f"retired by its owner {owner['name']}")
    except (league.LadderError, ladder_rows.LedgerError) as error:
        raise HTTPException(404, str(error)) from None
    return schemas.Retired(ladder=ladder_name, bot=bot, version=version)


def owned_submission(ledger: Ledger, owner: dict[str, Any], submission_id: int) -> dict[str, Any]:
    """One of the owner's submissions; 404 for another's as for none (nobody learns which ids exist)."""
    try:
        row = submission_rows.get(ledger, submission_id) if 0 < submission_id < 2**62 else None
    except submission_rows.UnknownSubmission:
        row = None
    if row is None or row["owner_id"] != owner["id"]:
        raise HTTPException(404, f"you have no submission {submission_id}")
    return row


@api.post("/ladders/{name}/submissions", status_code=202, response_model=schemas.Submission,
          dependencies=[WritableDep], summary="Submit a bot (a file or a zip) to a ladder",
          responses={**AUTH, 403: {"description": "read-only server, or the name is another's"},
                     404: {"description": "no such ladder"}, 413: {"description": "upload too large"},
                     422: {"description": "not a bot upload"}})
async def submit(
    name: str,
    request: Request,
    site: SiteDep,
    owner: OwnerDep,
    file: Annotated[UploadFile, File(description="A Python bot file (.py), a program starting with #!, a compiled "
                                                 "program (an ELF executable), or a zip of a bot's files: never "
                                                 "empty.", json_schema_extra=NOT_EMPTY)],
    bot: Annotated[str | None, Form(description="The bot's name on the ladder (default: the file name's stem).")]
    = None,
    entry: Annotated[str | None, Form(description="In a zip, the file to start (default: its only .bot.json, "
                                                  "else its only .py, at the top).")] = None,
    description: Described = None,
) -> JSONResponse:
    row = await accept(site, owner, name, file, bot, entry, description)
    # A path, not a URL: behind a TLS proxy this server may not know its public scheme and host.
    return JSONResponse(shown(row).model_dump(), status_code=202,
                        headers={"Location": request.app.url_path_for("get_submission", submission_id=row["id"])})


@api.get("/submissions/{submission_id}", response_model=schemas.Submission, responses=AUTH,
         summary="What became of one of your submissions")
def get_submission(submission_id: SubmissionId, owner: OwnerDep, ledger: LedgerDep) -> schemas.Submission:
    row = owned_submission(ledger, owner, submission_id)
    return shown({**row, "diagnosis": owner_tokens.submission_diagnosis(ledger, owner, submission_id),
                  "validation_diagnosis": owner_tokens.validation_diagnosis(ledger, owner, submission_id),
                  "validation_games": submission_rows.validation_games(ledger, submission_id, owner["id"])})


def validation_log(ledger: Ledger, owner: dict[str, Any], submission_id: int, number: int
                   ) -> tuple[str, dict[str, Any]]:
    """(its game id, the log from the submitted bot's seat) of one validation game of the owner's submission;
    404 for another's as for none."""
    found = submission_rows.validation_log(ledger, submission_id, owner["id"],
                                           number) if 0 < submission_id < 2**62 else None
    if found is None:
        raise HTTPException(404, f"you have no validation game {number} of submission {submission_id}")
    seat, log = found
    full = orjson.loads(log)
    return full["game_id"], logfmt.redact(full, f"seat:{seat}")


@api.get("/submissions/{submission_id}/validation/{number}/log", responses=AUTH,
         summary="One of your submission's validation games: its JSON log from your bot's seat")
def get_validation_log(submission_id: SubmissionId, number: ValidationNumber, owner: OwnerDep,
                       ledger: LedgerDep) -> Response:
    game_id, log = validation_log(ledger, owner, submission_id, number)
    name = f"validation-{submission_id}-{number}-{game_id}-{log['view'].replace(':', '')}.json"
    return Response(logfmt.dumps(log), media_type="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


@api.get("/me", response_model=schemas.Owner, responses=AUTH, summary="The owner of the token, and their bots")
def me(owner: OwnerDep, ledger: LedgerDep) -> schemas.Owner:
    return schemas.Owner(name=owner["name"], created_at=owner["created_at"],
                        bots=owner_rows.bots_of(ledger, owner["id"]))


@api.get("/me/submissions", response_model=schemas.Page[schemas.Submission], responses=AUTH,
         summary="Your submissions, newest first")
def my_submissions(owner: OwnerDep, ledger: LedgerDep, paging: PagingDep) -> schemas.Page[schemas.Submission]:
    found, total = submission_rows.of_owner(ledger, owner["id"], paging.limit, paging.offset)
    return schemas.Page[schemas.Submission].of([shown(row) for row in found], total, paging.offset, paging.limit)


@api.post("/ladders/{name}/bots/{bot}/retire", response_model=schemas.Retired, dependencies=[WritableDep],
          responses={**AUTH, 403: {"description": "not your bot"},
                     404: {"description": "no such ladder or bot, or no active version of it there"}},
          summary="Retire your bot from a ladder: it plays no more; its games and rating stay")
def retire(name: str, bot: str, owner: OwnerDep, ledger: LedgerDep) -> schemas.Retired:
    return retire_bot(ledger, owner, name, bot)
