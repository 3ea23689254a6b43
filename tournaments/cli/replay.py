"""`tourney replay`: export, import, verify and show JSON game logs (and text records)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table
from rich.text import Text

import tournaments.cli.terminal as terminal
from tournaments.cli.options import (
    JOBS_PER_CPU,
    Db,
    LedgerKey,
    RayAddress,
    cpu_count,
    jobs_check,
    ladder_named,
    not_a_ladder,
    one_of,
    plural,
    reading,
    text_option,
    undone_on_failure,
    writing,
)
from tournaments.cli.replay_sources import check_view, log_named, resolve_game
from tournaments.play import defaults

if TYPE_CHECKING:  # the library is imported by the commands, never for --help
    from ledger.store import Ledger
    from replays import render
    from replays.verify_many import Pool

app = typer.Typer(help="JSON game logs and text records: export, import, verify, show, and HTML replays.",
                  no_args_is_help=True)

View = Annotated[str, typer.Option("--view", help="Who the log is for: full, spectator or seat:K.",
                                   callback=check_view)]
TournamentRef = Annotated[str | None, typer.Option("--tournament", help="A tournament's id or name.")]
LadderRef = Annotated[str | None, typer.Option("--ladder", help="A ladder's name (or the id `tourney list` shows): "
                                                                 "every game played on it.")]
check_verify_jobs = jobs_check("verify here")
"""verify's --jobs: 0 verifies in this process."""


VerifyJobs = Annotated[int | None, typer.Option(
    "--jobs", help=f"Worker processes that verify games (default: the CPU count; 0: verify here; at most "
    f"{JOBS_PER_CPU} per CPU).", callback=lambda value: None if value is None else check_verify_jobs(value),
    show_default=False)]
VerifyExecutor = Annotated[str, typer.Option(
    "--executor", help="Where games are verified: local (worker processes here, see --jobs) or ray (tasks on a Ray "
    "cluster; needs tourney[ray]; see docs/scaling.md).", callback=one_of(defaults.EXECUTORS))]


def log_files(paths: list[Path], records: bool = False) -> list[Path]:
    """The .json files named (with ``records``, .record text records too), directories expanded (sorted)."""
    from tournaments.library.verification import log_files as found

    return found(paths, records)


def stored_games(ledger: Ledger, game_id: str | None, tournament: str | None, ladder: str | None = None) -> list[str]:
    from ledger.rows import ladder_rows, tournament_rows
    from replays import log as logfmt

    if sum(choice is not None for choice in (game_id, tournament, ladder)) != 1:
        raise logfmt.LogError("name one GAME_ID, one --tournament or one --ladder")
    if game_id is not None:
        return [resolve_game(ledger, game_id)]
    if ladder is not None:
        return ladder_rows.game_ids(ledger, ladder_rows.get(ledger, ladder)["id"])
    not_a_ladder(ledger, tournament, "give --ladder {ref}")
    return tournament_rows.game_ids(ledger, tournament_rows.get(ledger, tournament)["id"])


def out_folder(out: Path) -> Path:
    """The folder exports go to, made if missing; LogError if it cannot be (a file there, no rights)."""
    from replays import log as logfmt
    from tournaments.play.store_loop import unwritable

    unusable = unwritable(out)
    if unusable:
        raise logfmt.LogError(f"--out {out}: {unusable}")
    return out


EXPORT_FORMATS = ("json", "text")


@app.command("export")
def export_(
    out: Annotated[Path, typer.Option("--out", help="Directory to write <game id>.json files into.")],
    game_id: Annotated[str | None, typer.Argument(help="Game id (or a unique prefix of it).")] = None,
    tournament: TournamentRef = None,
    ladder: LadderRef = None,
    view: View = "full",
    sign: Annotated[Path | None, typer.Option("--sign", help="Ed25519 private key file: sign each log's head.")]
    = None,
    form: Annotated[str, typer.Option(
        "--format", help="json (the JSON log) or text (the text record, <game id>.record: tags and a line per "
        "decision, full view only; see docs/replays.md).", callback=one_of(EXPORT_FORMATS))] = "json",
    db: Db = None,
) -> None:
    """Export stored games as self-contained JSON logs (or text records), one file per game (reads the database only).

    \b
    Example: tourney replay export --tournament bots-tails-on-fire-seed1 --out logs/ --view spectator
    Example: tourney replay export --tournament bots-tails-on-fire-seed1 --out records/ --format text
    """
    from ledger.rows import ladder_rows, tournament_rows
    from replays import archive, signing, text_record
    from replays import log as logfmt
    from tournaments.play import manifest

    text = form == "text"
    if text and view != "full":
        raise typer.BadParameter(f"--format text writes the full view only (a text record has every seat's "
                                 f"decisions, hidden ones too), not {view}: give --format json for a redacted log",
                                 param_hint="'--view'")
    ledger = reading(db)
    ladder = ladder_named(ledger, ladder) if ladder is not None else None
    key = signing.load_private(sign) if sign is not None else None
    made = not out.exists()
    out_folder(out)
    try:  # what can refuse the export is asked before a file is written: a refused export writes nothing
        games = stored_games(ledger, game_id, tournament, ladder)
        whole = None
        if tournament is not None:
            row = tournament_rows.get(ledger, tournament)
            whole = manifest.build(ledger, tournament_rows.scope(row), row["game"])
        elif ladder is not None:
            row = ladder_rows.get(ledger, ladder)
            whole = manifest.build(ledger, ladder_rows.scope(row), row["game"])
        manifest.refuse_other(out, whole, games)
        first = logfmt.redact(archive.export(ledger, games[0]), view) if games else None  # --view seat:5, refused
    except BaseException:
        if made:  # nor leaves the folder it made
            with contextlib.suppress(OSError):
                out.rmdir()
        raise
    for index, full_id in enumerate(games):
        log = first if index == 0 else logfmt.redact(archive.export(ledger, full_id), view)
        if key is not None:
            log = signing.sign(log, key)
        if text:
            record = text_record.write(log, archive.labels(ledger, full_id))
            (out / f"{full_id}{text_record.SUFFIX}").write_text(record, encoding="utf-8")
        else:
            (out / f"{full_id}.json").write_bytes(logfmt.dumps(log))
    if whole is not None and key is not None:
        whole = manifest.signed(whole, key)  # the set of games vouched for by the key the logs are signed with
    written = f" and {manifest.write(out, whole).name}" if whole is not None else ""
    what = "text record" if text else f"{view} log"
    typer.echo(f"wrote {plural(len(games), what)}{written} to {out}" + (" (signed)" if key is not None else ""))


@app.command("import")
def import_(
    paths: Annotated[list[Path], typer.Argument(help="Log files or text records, or directories of .json logs and "
                                                     ".record text records.")],
    tournament: Annotated[str | None, text_option(
        "--tournament", "Record the games as this tournament's (made if new; default: imported-<game>).",
        show_default=False)] = None,
    db: Db = None,
    ledger_key: LedgerKey = None,
    key: Annotated[Path | None, typer.Option(
        "--key", help="Ed25519 public key file every log must be signed by (as for `replay verify`); a log that is "
        "not is refused and not stored.", show_default=False)] = None,
) -> None:
    """Verify JSON logs (or text records) and store them in the ledger (the same game twice stores one game).

    Every file is tried; each one that fails is reported and stores nothing, and the command
    then exits 1. The games are recorded as members of a tournament (--tournament, or
    imported-<game>), so `tourney standings` works on imported games. An unsigned log proves
    only that it holds together: give --key to store only the games a key you trust signed.

    \b
    Example: tourney replay import logs/ --db league.db --key league.pub
    Example: tourney replay import records/3f2a.record --db league.db
    """
    from replays import signing
    from tournaments.play import naming
    from tournaments.play.play_errors import TournamentError

    if tournament is not None:  # a name that may be new: held to a new tournament's rule (run's --name), exit 2
        try:
            naming.check_new_name(tournament, "--tournament")
        except TournamentError as error:
            raise typer.BadParameter(str(error)) from None
    trusted = signing.load_public(key) if key is not None else None
    files = log_files(paths, records=True)
    ledger = writing(db, ledger_key)
    with undone_on_failure(ledger):  # a database it made is removed if it stores no game
        # Each game is signed as it is stored: a key that cannot be made, or is not the ledger's, refuses them all now.
        ledger.signing_key()
        _import_files(ledger, files, tournament, trusted)


def _import_files(ledger: Ledger, files: list[Path], tournament: str | None, trusted: bytes | None) -> None:
    """Store each log of ``files``, naming each one that fails; LogError at the end if any failed."""
    from ledger import checkpoints
    from ledger.rows import tournament_rows
    from ledger.store import LedgerError
    from replays import archive
    from replays import log as logfmt

    new = failed = 0
    imported: set[str] = set()
    for path in files:
        try:
            result = archive.import_file(ledger, path, tournament, trusted)
        except (logfmt.LogError, LedgerError) as error:
            failed += 1
            typer.echo(f"FAIL {error}" if str(error).startswith(str(path)) else f"FAIL {path}: {error}", err=True)
            continue
        new += result.new
        if result.new and result.tournament is not None:
            imported.add(result.tournament)  # its checkpoint is written again below
        where = f" in {result.place}" if result.place is not None else ""
        typer.echo(f"{path}: game {result.game_id} {'stored' if result.new else 'already stored'}{where}")
    for name in sorted(imported):
        checkpoints.write(ledger, tournament_rows.scope(tournament_rows.get(ledger, name)))
    every = " (every game was already stored)" if files and not new and not failed else ""
    typer.echo(f"{plural(len(files), 'log')} read, {plural(new, 'new game')} stored{every}")
    if failed:
        raise logfmt.LogError(f"{failed} of {plural(len(files), 'log')} failed (each named above) and stored nothing")


@app.command("verify")
def verify(
    ctx: typer.Context,
    paths: Annotated[list[Path] | None, typer.Argument(help="Log files or text records, or directories of .json "
                                                            "logs and .record text records.")] = None,
    key: Annotated[Path | None, typer.Option("--key", help="Ed25519 public key file every log must be signed by.")]
    = None,
    tournament: TournamentRef = None,
    ladder: LadderRef = None,
    db: Annotated[str | None, typer.Option("--db", help="Verify the games stored in this database instead of files.",
                                           show_default=False)] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only failures and the summary.")] = False,
    jobs: VerifyJobs = None,
    executor: VerifyExecutor = defaults.LOCAL,
    ray_address: RayAddress = None,
) -> None:
    """Re-derive every game of the logs (or text records) and check it: chain, seed, chance, moves, result, signature.

    With --db: every game stored there (or of --tournament, or --ladder), whatever its status,
    and every derived row against the events, the signatures, checkpoints, schedules and seeds.
    The games are verified on every core (--jobs) or on a Ray cluster (--executor ray), and
    reported in the same order, with the same lines, however many verify them.

    \b
    Example: tourney replay verify logs/ --key league.pub
    """
    from replays import log as logfmt
    from replays import signing
    from tournaments.library import verification
    from tournaments.play.executors import choice

    trusted = signing.load_public(key) if key is not None else None
    choice.check(executor, ray_address, jobs)
    pool = choice.open_executor(executor, cpu_count() if jobs is None else jobs, ray_address, quiet_stdout=False)
    if db is not None or tournament is not None or ladder is not None:
        if paths:
            raise logfmt.LogError("give log files, or --db (with --tournament or --ladder), not both")

        ledger = reading(db)
        if verify_ledger(ledger, tournament, ladder_named(ledger, ladder) if ladder else None, trusted, quiet,
                         ctx.with_resource(pool)):
            raise typer.Exit(1)
        return
    if not paths:
        raise logfmt.LogError("name log files or directories, or --db")
    found = verification.verify(paths, key=trusted, pool=ctx.with_resource(pool),
                                on_game=lambda verdict: _told_file(verdict, quiet))
    failed_manifests = []
    for path, problems in found.manifests:
        for problem in problems:
            typer.echo(f"FAIL {path}: {problem}", err=True)
        if problems:
            failed_manifests.append(f"{path} ({plural(len(problems), 'problem')})")
        elif not quiet:
            typer.echo(f"ok   {path}: every listed game's log is here, with its head; the checkpoint and seeds hold")
    withheld = found.withheld
    unchecked = (f" ({plural(withheld, 'decision')} with a withheld private part could not be checked)"
                 if withheld else "")
    # The summary counts the logs; a manifest that fails is named after it, so that it says what failed.
    manifests_line = f"; manifest FAILED: {', '.join(failed_manifests)}" if failed_manifests else (
        f"; {plural(len(found.manifests), 'manifest')} passed" if found.manifests else "")
    typer.echo(found.summary.line() + unchecked + manifests_line)
    if not found.ok:
        raise typer.Exit(1)


def _told_file(verdict, quiet: bool) -> None:
    """A log file's line: FAIL with why (stderr), or ok with what was checked (unless ``quiet``)."""
    if verdict.report is None:
        typer.echo(f"FAIL {verdict.name}: {verdict.failure}", err=True)
        return
    report = verdict.report
    if not quiet:
        extra = "; could not check: " + "; ".join(report.unchecked) if report.unchecked else ""
        typer.echo(f"ok   {verdict.name}: {report.events} events, {report.decisions} decisions, "
                   f"{report.chance_steps} chance steps, {report.signature}{extra}")


def verify_ledger(ledger: Ledger, tournament: str | None, ladder: str | None, trusted: bytes | None,
                  quiet: bool, pool: Pool | None = None) -> int:
    """`replay verify --db`: every game of the scope (on ``pool``, None: here), then each tournament and ladder as
    a whole (tournaments.library.verification); prints what it finds and returns how many failures (0: all
    passed)."""
    from replays import game_audit, signing
    from tournaments.library import verification

    def told(verdict: game_audit.Verdict) -> None:
        if verdict.state == game_audit.FAIL:
            typer.echo(f"FAIL {verdict.name}: {verdict.line}", err=True)
        elif verdict.state == game_audit.OPEN or not quiet:
            typer.echo(f"{verdict.state:<4} {verdict.name}: {verdict.line}")

    if tournament is not None:
        not_a_ladder(ledger, tournament, "give --ladder {ref}")
    found = verification.verify(db=ledger, tournament=tournament, ladder=ladder, key=trusted, pool=pool,
                                jobs=0 if pool is None else None, on_game=told)
    for scope in found.scopes:
        for problem in scope.problems:
            typer.echo(f"FAIL {scope.name}: {problem}", err=True)
        if scope.ok and not quiet:
            typer.echo(f"ok   {scope.name}: {plural(scope.games, 'game')}" +
                       "".join(f"; {note}" for note in scope.notes))
    for problem in found.key_problems:
        typer.echo(f"FAIL ledger key: {problem}", err=True)
    public = found.public_key
    extra = f"; {plural(found.still_playing, 'game')} still playing" if found.still_playing else ""
    key_note = (f"; ledger key {signing.fingerprint(public)} (compare it with the fingerprint the operator "
                "published, or give --key)" if public is not None and trusted is None else
                "; no ledger key (written before ledger keys)" if public is None else "")
    typer.echo(found.summary.line() + extra + key_note)
    return found.summary.failures


@app.command("show")
def show(
    source: Annotated[str, typer.Argument(help="A log file, or the id (or unique prefix) of a stored game.")],
    view: Annotated[str | None, typer.Option("--view", help="Who to show it as: full, spectator or seat:K (default: "
                                                            "the log's own view; a redacted log can only be shown as "
                                                            "its own view or the spectator's).",
                                             show_default=False, callback=check_view)] = None,
    step: Annotated[bool, typer.Option("--step", help="Wait for a key after each turn.")] = False,
    db: Db = None,
) -> None:
    """Show a game turn by turn as a viewer saw it: each event in the game's words, then the table.

    After each seat's turn the table is summed up as a player would see it (seats by colour, with
    their bots); a hand shows only where the view may see it (--view full: every hand). Colours only
    on a terminal (and not with NO_COLOR set).

    \b
    Example: tourney replay show logs/3f2a.json --view seat:1 --step
    """
    from engines.words import seat_name
    from replays import render

    log, name, _ = log_named(source, db)
    # Verified first, as `replay html` verifies a log (render.verified): nothing is printed of a log that does
    # not hold, and a seat:1 log is never shown as seat:2.
    view, frames = render.shown(log, view, name)
    # Everything printed comes from the log (bot names, values): never read as markup or emoji codes, its
    # control characters escaped; the console's own colours reach a terminal, and only a terminal.
    console = terminal.console()
    console.print(Text(f"{log['game']} game {log['game_id']} as seen by {view}: "
                       + ", ".join(f"seat {s['seat']} {seat_name(s['seat'])} {s['bot']}" for s in log["seats"]),
                       style="bold"))
    for frame in frames:
        console.rule(Text(f"step {frame.step}: {frame.actor}"))
        told = frame.lines + (frame.summary or []) if frame.turn_over else frame.lines
        # One line per sentence and per summary line, never broken by us: the terminal wraps them,
        # and a pipe (grep, a test) reads each whole.
        console.print("\n".join(f"  {line}" for line in told), soft_wrap=True)
        if frame.turn_over:
            if frame.summary is None:
                console.print(_table(frame))
            if step and console.is_terminal:
                typer.echo("(any key: next turn, q: quit)", nl=False)
                key = typer.getchar()
                typer.echo("")
                if key in ("q", "Q"):
                    return
    for line in result_lines(log):
        console.print(line)


def result_lines(log: dict) -> list[str]:
    """How the game ended: why, then each seat's bot with its rank (and score, where the game scores)."""
    from replays import render

    result = log.get("result")
    if not result:
        return ["result: the game did not end in this log"]
    forfeit = next((e["data"] for e in log["events"] if e["type"] == "seat_forfeited"), None)
    why = (f"seat {forfeit['seat']} forfeited ({forfeit['reason']})" if forfeit is not None
           else result.get("reason", "finished"))
    scores = render.final_scores(log)
    lines = [f"result: {why}"]
    for seat in sorted(log["seats"], key=lambda s: (result["ranking"][s["seat"]], s["seat"])):
        score = f", score {scores[seat['seat']]}" if scores is not None else ""
        lines.append(f"  rank {result['ranking'][seat['seat']]}: seat {seat['seat']} {seat['bot']}{score}")
    return lines


@app.command("html")
def html_(
    source: Annotated[str, typer.Argument(metavar="LOG_OR_GAME", help="A log file, a directory of .json logs, or the "
                                                                     "id (or unique prefix) of a stored game.")],
    view: Annotated[str | None, typer.Option("--view", help="Who the page is for: full, spectator or seat:K "
                                                            "(default: the log's own view; a redacted log can only be "
                                                            "shown as its own view or the spectator's).",
                                             show_default=False, callback=check_view)] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="The HTML file to write (default: the log's name, or "
                                                                 "the game id, with .html, here); for a directory of "
                                                                 "logs, the folder for the pages and index.html.")]
    = None,
    db: Db = None,
) -> None:
    """Write a game as one self-contained HTML page that replays it and checks its hash chain in the browser.

    The page needs no network: open it from disk in Chromium or Firefox. For a directory of
    logs, -o names a folder that gets one page per log and an index.html listing them.

    \b
    Example: tourney replay html logs/3f2a.json --view spectator -o 3f2a.html
    """
    from replays import html

    path = Path(source)
    if path.is_dir():
        if out is None:
            raise typer.BadParameter("a directory of logs needs -o OUTDIR for the pages", param_hint="'--out'")
        folder = html.write_folder([(str(p), p) for p in log_files([path])], out, view)
        for failure in folder.failures:
            typer.echo(f"FAIL {failure}", err=True)
        typer.echo(f"wrote {plural(len(folder.pages), 'page')} and index.html to {out}")
        if folder.failures:
            raise typer.Exit(1)
        return
    log, name, read = log_named(source, db)
    default = read.with_suffix(".html").name if read is not None else html.file_name(log["game_id"])
    target = out if out is not None else Path(default)
    if read is None:  # read from the database, open here: a page written over it (or its -wal) would end the ledger
        _not_the_database(target, db)
    data = html.write_page(log, target, view, name)
    typer.echo(f"wrote {target}: {data['title']} game {data['game_id']}, {len(data['steps'])} steps, "
               f"{data['view']} view")


def _not_the_database(target: Path, db: str | None) -> None:
    """LogError if ``target`` is the database ``db``, or a file SQLite keeps beside it (dialect.database_file)."""
    from ledger import dialect
    from ledger.store import default_path, resolve_url
    from replays import log as logfmt

    what = dialect.database_file(target, default_path(resolve_url(db)))
    if what is not None:
        raise logfmt.LogError(f"--out {target} is {what}, which the game is read from: no page is written over it")


def _table(frame: render.Frame) -> Table:
    """A game with no summary of its own: its view's fields, and each seat's own additions."""
    from engines.words import show_value
    from replays import render

    table = Table(show_header=False, box=None, padding=(0, 2))
    table.add_column(style="cyan")
    table.add_column()
    for key, value in frame.table.items():
        table.add_row(Text(render.label(key)), Text(show_value(value)))
    for seat, hidden in frame.hidden.items():
        for key, value in hidden.items():
            table.add_row(Text(f"seat {seat} {render.label(key)}"), Text(show_value(value)))
    return table
