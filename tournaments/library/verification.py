"""``verify``: JSON logs, text records, or the games stored in a ledger, verified as one call (docs/library.md).

It lives here, above replays/, because verifying a ledger checks each tournament and ladder as a whole
(tournaments.play.tournament_audit, tournaments.ladder.ladder_audit) and a folder of logs its manifest
(tournaments.play.manifest); one log alone is ``replays.verify.verify_log``. Nothing here prints: each game's verdict
is told to ``on_game`` as it is found (in the games' order, however many workers verify them), and what the whole found
is returned. A ledger's games are streamed from it, never all held at once (replays.game_audit).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ledger.rows import game_rows, ladder_rows, tournament_rows
from ledger.store import Ledger
from replays import game_audit, signing
from replays import log as logfmt
from replays.text_record import SUFFIX as RECORD_SUFFIX
from replays.verify_many import Pool, Summary, clock, verified_files
from tournaments.ladder import ladder_audit
from tournaments.play import defaults, manifest, tournament_audit
from tournaments.play.dispatch import cpu_count
from tournaments.play.executors import choice


@dataclass(slots=True)
class Verification:
    """What one ``verify`` found. ``failures`` counts every failure: games, scopes, manifests, the key file."""

    summary: Summary = field(default_factory=Summary)
    still_playing: int = 0
    """Games of a ledger still being played (verified as far as they go)."""
    withheld: int = 0
    """Decisions of redacted logs whose private part is withheld (folded unchecked)."""
    scopes: list[tournament_audit.Verdict] = field(default_factory=list)
    """Each tournament and ladder checked as a whole (its name, games, problems and notes)."""
    manifests: list[tuple[Path, list[str]]] = field(default_factory=list)
    """Each manifest checked, with its problems (none: it passed)."""
    key_problems: list[str] = field(default_factory=list)
    public_key: bytes | None = None
    """The ledger's public key (None: logs, or a ledger written before ledger keys)."""
    trusted: bytes | None = None

    @property
    def failures(self) -> int:
        return self.summary.failures + sum(1 for _path, problems in self.manifests if problems)

    @property
    def ok(self) -> bool:
        return self.failures == 0


def verify(paths: Sequence[str | Path] = (), *, db: str | Ledger | None = None, tournament: str | None = None,
           ladder: str | None = None, key: bytes | str | Path | None = None, jobs: int | None = None,
           executor: str = defaults.LOCAL, ray_address: str | None = None, pool: Pool | None = None,
           on_game: Callable[[Any], None] | None = None) -> Verification:
    """Verify ``paths`` (log files, text records, folders of them and their manifests), or with ``db`` (or
    ``tournament``, ``ladder``) the games stored in a ledger and each tournament and ladder as a whole.

    ``key``: the Ed25519 public key (raw bytes, or a key file) every log must be signed by. The games are verified
    on ``pool`` (default: ``jobs`` local workers, None: the CPU count, 0: here; or Ray). ``on_game`` is told each
    game's verdict as it is found: a replays.verify_many.FileVerdict for a file (``report`` None: failed, with
    ``failure``), a replays.game_audit.Verdict for a stored game (``state`` ok, open or FAIL, with ``line``).
    """
    trusted = signing.load_public(Path(key)) if isinstance(key, str | Path) else key
    tell = on_game or (lambda _verdict: None)
    opened = None
    if pool is None:
        choice.check(executor, ray_address, jobs)
        pool = opened = choice.open_executor(executor, cpu_count() if jobs is None else jobs, ray_address,
                                                quiet_stdout=False)
        opened.__enter__()
    try:
        if db is not None or tournament is not None or ladder is not None:
            if paths:
                raise logfmt.LogError("give log files, or --db (with --tournament or --ladder), not both")
            ledger = (db if db is not None and not isinstance(db, str | Path)
                      else Ledger(None if db is None else str(db), read_only=True))
            here = opened is not None and jobs == 0  # no pool given, jobs=0: every game verified on this connection
            return verify_ledger(ledger, tournament, ladder, trusted, None if here else pool, tell)
        if not paths:
            raise logfmt.LogError("name log files or directories, or --db")
        return verify_paths([Path(path) for path in paths], trusted, pool, tell)
    finally:
        if opened is not None:
            opened.__exit__(None, None, None)


def verify_paths(paths: list[Path], trusted: bytes | None, pool: Pool, tell: Callable[[Any], None]) -> Verification:
    """Log files and text records (folders expanded), then the manifests named or found in their folders."""
    found = Verification(trusted=trusted)
    summary = found.summary
    began = clock()
    manifests = manifest_files(paths)
    seen: dict[Path, list[dict[str, Any]]] = {}  # each folder's log files, as its manifest checks them
    # A manifest named alone is checked with the logs of its folder, which are verified too.
    files = log_files(list(dict.fromkeys(p.parent if p.suffix == manifest.SUFFIX else p for p in paths)), records=True)
    verdicts = verified_files([(str(path), str(path.resolve())) for path in files], trusted, pool)
    for path, verdict in zip(files, verdicts, strict=True):
        summary.games += 1
        seen.setdefault(path.parent, []).append({"file": verdict.name, "game_id": verdict.game_id,
                                                 "head": verdict.head, "seed": verdict.seed,
                                                 "ok": verdict.report is not None})
        if verdict.report is None:
            summary.failures += 1
        else:
            summary.events += verdict.report.events
            found.withheld += verdict.report.hidden_decisions
        tell(verdict)
    for path in manifests:
        found.manifests.append((path, manifest.check(manifest.read(path), seen.get(path.parent, []), trusted)))
    summary.seconds = clock() - began
    return found


def manifest_files(paths: list[Path]) -> list[Path]:
    """The manifests named, or found in the folders named (tournament.manifest, ladder.manifest)."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out += sorted(path.glob(f"*{manifest.SUFFIX}"))
        elif path.suffix == manifest.SUFFIX:
            out.append(path)
    return out


def log_files(paths: list[Path], records: bool = False) -> list[Path]:
    """The .json files named (with ``records``, .record text records too), directories expanded (sorted);
    LogError for a missing path or for nothing to read at all (an empty folder is a mistake, not a success)."""
    suffixes = (".json", RECORD_SUFFIX) if records else (".json",)
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.suffix in suffixes)
            if not found:
                what = f"no .json logs or {RECORD_SUFFIX} text records" if records else "no .json logs"
                raise logfmt.LogError(f"{path}: {what} in this folder")
            out.extend(found)
        elif path.exists():
            out.append(path)
        else:
            raise logfmt.LogError(f"{path}: no such file or directory")
    return out


def verify_ledger(ledger: Ledger, tournament: str | None, ladder: str | None, trusted: bytes | None,
                  pool: Pool | None, tell: Callable[[Any], None]) -> Verification:
    """Every game of the scope (streamed from the ledger, verified on ``pool``; None: here), then each tournament and
    ladder as a whole, then the key file beside the database."""
    if tournament is not None and ladder is not None:
        raise logfmt.LogError("give --tournament or --ladder, not both")
    if tournament is not None:
        tournaments = [tournament_rows.get(ledger, tournament)]
        ladders: list[dict] = []
        ids = game_rows.ids_in_order(ledger, tournament_id=tournaments[0]["id"])
    elif ladder is not None:
        tournaments, ladders = [], [ladder_rows.get(ledger, ladder)]
        ids = game_rows.ids_in_order(ledger, ladder_id=ladders[0]["id"])
    else:
        tournaments = [tournament_rows.get(ledger, str(row["id"])) for row in tournament_rows.all_tournaments(ledger)]
        ladders = [ladder_rows.get(ledger, row["name"]) for row in ladder_rows.all_ladders(ledger)]
        ids = game_rows.ids_in_order(ledger)
    first = next(ids, None)
    if first is None:
        raise logfmt.LogError(f"no games to verify: {'it holds' if tournament or ladder else 'the database holds'} "
                              "none")
    found = Verification(public_key=ledger.public_key(), trusted=trusted)
    summary, began = found.summary, clock()
    for verdict in game_audit.stored_games(ledger, _chained(first, ids), trusted, pool):
        summary.games += 1
        if verdict.state == game_audit.FAIL:
            summary.failures += 1
        else:
            summary.events += verdict.report.events
            found.still_playing += verdict.state == game_audit.OPEN
        tell(verdict)
    public = found.public_key
    found.scopes = [tournament_audit.tournament(ledger, row, trusted or public) for row in tournaments]
    found.scopes += [ladder_audit.ladder(ledger, row, trusted or public) for row in ladders]
    summary.failures += sum(len(scope.problems) for scope in found.scopes)
    found.key_problems = key_file_problems(ledger, public)
    summary.failures += len(found.key_problems)
    summary.seconds = clock() - began
    return found


def _chained(first: str, rest: Any) -> Any:
    yield first
    yield from rest


def key_file_problems(ledger: Ledger, public: bytes | None) -> list[str]:
    """On the operator's machine, the private key beside the database must be the one the database names."""
    if ledger.key_path is None or not ledger.key_path.is_file() or not os.access(ledger.key_path, os.R_OK):
        return []
    try:
        found = signing.raw_public(signing.load_private(ledger.key_path).public_key())
    except signing.SignatureError as error:
        return [str(error)]
    if public is not None and found != public:
        return [f"the key at {ledger.key_path} is {signing.fingerprint(found)}, but the database names "
                f"{signing.fingerprint(public)}"]
    return []
