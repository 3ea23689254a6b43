"""The home page: the ladders and the recent tournaments."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from web.deps import LedgerDep
from web.pages import render
from web.routes import ladders, tournaments

pages = APIRouter(tags=["pages"])
RECENT = 20


@pages.get("/", response_class=HTMLResponse, summary="The home page")
def home(request: Request, ledger: LedgerDep):
    return render(request, "home.html", {"ladders": ladders.summaries(ledger),
                                         "tournaments": tournaments.summaries(ledger, 0, RECENT).items})
