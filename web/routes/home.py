"""The home page: the ladders and the recent tournaments."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from web.deps import SiteDep
from web.pages import render
from web.routes import ladders, tournaments

pages = APIRouter(tags=["pages"])
RECENT = 20


@pages.get("/", response_class=HTMLResponse, summary="The home page")
def home(request: Request, site: SiteDep):
    return render(request, "home.html", {"ladders": ladders.summaries(site.ledger),
                                         "tournaments": tournaments.summaries(site, 0, RECENT).items})
