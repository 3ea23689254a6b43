"""`tourney serve`: the league in a browser and over an HTTP API (the web/ package, run by uvicorn).

The command line never imports web/ (nothing does: docs/architecture.md): it checks what a
user can get wrong (the web extra, the database, the key, the port), hands the settings to the
application through its environment (the variables of web/settings.py, so the same application
runs under any ASGI server), and starts uvicorn on the application factory.
"""

from __future__ import annotations

import importlib
import os
import socket
from pathlib import Path
from typing import Annotated

import typer

from tournaments.cli.options import Db, reading, whole_option, writing

APPLICATION = "web.app:create_app"
PROTOCOL = "web.server:Protocol"
"""uvicorn's HTTP/1.1 protocol with deadlines for a request's headers and body (named, never imported here)."""
WEB_MODULES = ("fastapi", "uvicorn", "jinja2", "python_multipart")
EXTRA = "web"


class WebMissing(RuntimeError):
    """The web extra is not installed."""


def serve(
    host: Annotated[str, typer.Option("--host", help="Address to listen on (behind a reverse proxy: keep "
                                                     "127.0.0.1).")] = "127.0.0.1",
    port: Annotated[int, whole_option("--port", "Port to listen on.", 1, 65535, "port")] = 8000,
    submissions: Annotated[bool, typer.Option(
        "--submissions", help="Accept bots through the API (POST /api/ladders/NAME/submissions); opens the "
        "database for writing. Without it the server only reads.")] = False,
    sign: Annotated[Path | None, typer.Option(
        "--sign", help="Ed25519 private key (tourney keys new) to offer signed log downloads with.")] = None,
    tournament_logs: Annotated[str, typer.Option(
        "--tournament-logs", help="What tournament games show: spectator, or full (every hand) once over.")]
    = "spectator",
    max_upload_kb: Annotated[int, whole_option("--max-upload-kb", "Largest bot upload accepted.", 1, 1_048_576,
                                               "KiB")] = 1024,
    submissions_per_hour: Annotated[int, whole_option(
        "--submissions-per-hour", "Submissions one owner may make per hour.", 1, 100_000, "submissions")] = 10,
    requests_per_minute: Annotated[int, whole_option(
        "--requests-per-minute", "API requests one token may make per minute.", 1, 1_000_000, "requests")] = 120,
    header_timeout: Annotated[int, whole_option(
        "--header-timeout", "Seconds a request's headers may take to arrive; then 408 and the connection closes.",
        1, 3600, "seconds")] = 10,
    body_timeout: Annotated[int, whole_option(
        "--body-timeout", "Seconds a request's body may take to arrive after its headers; then 408.", 1, 3600,
        "seconds")] = 60,
    keep_alive: Annotated[int, whole_option(
        "--keep-alive", "Seconds an idle connection is kept open after a response.", 1, 3600, "seconds")] = 5,
    max_connections: Annotated[int, whole_option(
        "--max-connections", "Open connections from which a request on a new one is answered 503.", 2, 1_000_000,
        "connections")] = 1000,
    db: Db = None,
) -> None:
    """Serve the league: leaderboards, tournaments, bots and replays in a browser, the same over a JSON API.

    Read-only unless --submissions; bots submitted are validated and played by `tourney ladder work`,
    never by the server. Needs the web extra (in a clone: pip install '.[web]'); docs/web.md runs it in public.

    \b
    Example: tourney serve --db league.db --submissions --port 8000
    """
    missing = [module for module in WEB_MODULES if not _importable(module)]
    if missing:
        raise WebMissing(f"tourney serve needs the web extra ({', '.join(missing)} missing): "
                         f"{install_command(source_folder(), Path.cwd())}")
    if tournament_logs not in ("spectator", "full"):
        raise typer.BadParameter(f"{tournament_logs!r} is not spectator or full", param_hint="'--tournament-logs'")
    from replays import signing

    ledger = writing(db) if submissions else reading(db)
    url = ledger.url
    ledger.close()
    if sign is not None:
        signing.load_private(sign)
    _check_port(host, port)
    os.environ.update({
        "TOURNEY_DB": url,
        "TOURNEY_SUBMISSIONS": "1" if submissions else "0",
        "TOURNEY_SIGNING_KEY": str(sign.resolve()) if sign is not None else "",
        "TOURNEY_TOURNAMENT_LOGS": tournament_logs,
        "TOURNEY_MAX_UPLOAD_KB": str(max_upload_kb),
        "TOURNEY_SUBMISSIONS_PER_HOUR": str(submissions_per_hour),
        "TOURNEY_REQUESTS_PER_MINUTE": str(requests_per_minute),
        "TOURNEY_HEADER_SECONDS": str(header_timeout),
        "TOURNEY_BODY_SECONDS": str(body_timeout),
    })
    import uvicorn

    typer.echo(f"serving {url} on http://{host}:{port}/ ({'submissions open' if submissions else 'read-only'}); "
               "Ctrl-C stops")
    # X-Forwarded-Proto and -For are believed from a proxy on this machine only (uvicorn's default), so
    # that pages behind a TLS proxy show https URLs. PROTOCOL adds the header and body deadlines uvicorn lacks.
    uvicorn.run(APPLICATION, factory=True, host=host, port=port, log_level="warning", server_header=False,
                proxy_headers=True, forwarded_allow_ips="127.0.0.1", http=PROTOCOL, timeout_keep_alive=keep_alive,
                limit_concurrency=max_connections)
    typer.echo("stopped")  # uvicorn takes Ctrl-C itself: the normal way to stop a server, not an error


def install_command(source: Path | None, here: Path) -> str:
    """How to add the web extra: from the clone tourney was installed from (``.[web]`` inside it), else by name."""
    if source is None:
        return f"pip install 'tourney[{EXTRA}]'"
    if source.resolve() == here.resolve():
        return f"pip install '.[{EXTRA}]'"
    return f"pip install '{source}[{EXTRA}]'"


def source_folder() -> Path | None:
    """The folder (a clone) tourney was installed from: pip's record of a local install (PEP 610), or the
    checkout an editable install runs from; None for an install by name from an index."""
    import json
    from importlib import metadata
    from urllib.parse import unquote, urlparse

    import tournaments

    try:
        recorded = metadata.distribution("tourney").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        recorded = None
    if recorded:
        url = urlparse(json.loads(recorded).get("url", ""))
        if url.scheme == "file":
            return Path(unquote(url.path))
    checkout = Path(tournaments.__file__).resolve().parent.parent
    return checkout if (checkout / "pyproject.toml").is_file() else None


def _check_port(host: str, port: int) -> None:
    """One line, not uvicorn's log, when the address cannot be listened on."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise OSError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            raise OSError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None


def _importable(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True
