"""The manifest an export of a whole tournament or ladder carries: its games, its checkpoint, its seed.

A log proves one game; it cannot prove that the folder holds every game of its tournament, nor
that the deals came from a seed fixed before play. ``replay export --tournament`` (or
``--ladder``) therefore also writes ``tournament.manifest`` (``ladder.manifest``), JSON:

    {"format": "tourney-manifest", "format_version": 1, "kind": "tournament" or "ladder",
     "name", "game",
     "seed": {"origin", "commitment", "seed"}                     (a tournament's; seed null while secret)
     "deals": [seed, ...]                                         (a tournament played from a deal book)
     "sessions": [{"id", "origin", "commitment", "seed"}, ...]     (a ladder's `ladder play` sessions)
     "games": [{"game_id", "key", "head"}, ...]                    (finished games, in checkpoint order)
     "playing": [game id, ...]                                     (games not over when exported)
     "checkpoint": {"games", "root", "state", "public_key", "signature"} or null}

`replay verify FOLDER` checks each manifest it finds there against the logs beside it, offline:
the checkpoint's signature (against ``--key`` if given; an export ``--sign``ed with a key of its
own has the checkpoint signed by that key, ``signed``) over its root, the root recomputed
from the listed games (ledger.checkpoints), every listed game's log present with that head
and no other log, one log per game and every log of the folder verified, a revealed seed against
its commitment, and every game's seed derived from it and the game's key
(tournaments.play.schedule.deal_seed), or for a tournament played from a deal book, the book's seed of
the game's deal.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from ledger import checkpoints, closing, seeds, signing_keys
from ledger.canonical import loads
from ledger.rows import ladder_rows, tournament_rows
from ledger.store import Ledger
from replays import log as logfmt
from tournaments.play.schedule import deal_seed

FORMAT = "tourney-manifest"
FORMAT_VERSION = 1
SUFFIX = ".manifest"
TOURNAMENT_KEY = re.compile(r"t(\d+)-d(\d+)-r(\d+)")
SESSION_KEY = re.compile(r"s(\d+)-d(\d+)-r(\d+)")
BOOK_KEY = re.compile(r"(?:s\d+-)?t\d+-d(\d+)-r\d+")
"""A tournament's key (a Swiss round's too), for its deal: a deal book's games are dealt from the book by deal."""


def _seed_json(committed: seeds.Committed | None, seed: str | None) -> dict[str, Any]:
    return {"origin": None if committed is None else committed.origin,
            "commitment": None if committed is None else committed.commitment, "seed": seed}


def build(ledger: Ledger, scope: checkpoints.Scope, game: str) -> dict[str, Any]:
    """The manifest of a tournament or ladder as the ledger holds it now."""
    with ledger.read() as connection:
        members = checkpoints.members(connection, scope)
        stored = checkpoints.stored(connection, scope)
        playing = sorted(g.game_id for g in closing.of_scope(connection, scope) if g.game["store_seq"] is None)
        public = ledger.public_key(connection)
    latest = stored[-1] if stored else None
    out: dict[str, Any] = {
        "format": FORMAT, "format_version": FORMAT_VERSION, "kind": scope.kind, "name": scope.name, "game": game,
        "games": [{"game_id": m.game_id, "key": m.key, "head": m.head} for m in members], "playing": playing,
        "checkpoint": None if latest is None or public is None else {
            "games": latest.games, "root": latest.root, "state": latest.state, "public_key": public.hex(),
            "signature": latest.signature},
    }
    if scope.kind == checkpoints.TOURNAMENT:
        row = tournament_rows.get(ledger, str(scope.id))
        out["seed"] = _seed_json(tournament_rows.committed(row), tournament_rows.revealed(row))
        book = loads(row["spec"]).get("deals") if row.get("spec") else None
        if book is not None:  # played from a deal book: each game's seed is the book's its key names
            out["deals"] = book
    else:
        out["sessions"] = [{"id": s["id"], **_seed_json(seeds.Committed(s["origin"], s["commitment"]), s["seed"])}
                           for s in ladder_rows.sessions(ledger, scope.id)]
    return out


def signed(manifest: dict[str, Any], key: Any) -> dict[str, Any]:
    """The manifest with its checkpoint signed by ``key`` (an Ed25519 private key) instead of the ledger's.

    ``replay export --sign KEY`` signs each log's head with KEY in place of the ledger's signature;
    it signs the checkpoint the same way (the same message, the same games, root and state), so
    that `replay verify FOLDER --key KEY.pub` holds the logs and the set of games to one key.
    """
    checkpoint = manifest["checkpoint"]
    if checkpoint is None:
        return manifest
    message = signing_keys.checkpoint_message(manifest["kind"], manifest["name"], checkpoint["games"],
                                              checkpoint["root"],
                                      checkpoint["state"])
    return {**manifest, "checkpoint": {**checkpoint, "public_key": signing_keys.raw_public(key.public_key()).hex(),
                                       "signature": key.sign(message).hex()}}


def write(folder: Path, manifest: dict[str, Any]) -> Path:
    """Write ``manifest`` into an export folder; LogError if the folder holds another scope's manifest."""
    path = folder / f"{manifest['kind']}{SUFFIX}"
    if path.exists():
        try:
            before = orjson.loads(path.read_bytes())
        except orjson.JSONDecodeError:
            before = {}
        if before.get("name") != manifest["name"]:
            raise logfmt.LogError(f"{path} is the manifest of {before.get('kind')} {before.get('name')!r}: export "
                                  f"{manifest['kind']} {manifest['name']!r} to another folder")
    path.write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")
    return path


def refuse_other(folder: Path, manifest: dict[str, Any] | None, games: list[str]) -> None:
    """LogError if an export folder holds a manifest the export does not belong beside: another tournament's or
    ladder's than ``manifest`` (the export's own), or, for single games (``manifest`` None), one that does not list
    them. Their logs would make the folder fail verification, so `replay export` asks before writing anything."""
    if not folder.is_dir():
        return
    for path in sorted(folder.glob(f"*{SUFFIX}")):
        try:
            before = read(path)
            scope = (before["kind"], before["name"])
            listed = {entry["game_id"] for entry in before["games"]} | set(before["playing"])
        except (logfmt.LogError, KeyError, TypeError):
            raise logfmt.LogError(f"{path}: a manifest this tourney cannot read is there: export to another "
                                  "folder") from None
        if manifest is not None and scope != (manifest["kind"], manifest["name"]):
            raise logfmt.LogError(f"{path} is the manifest of {scope[0]} {scope[1]!r}: export {manifest['kind']} "
                                  f"{manifest['name']!r} to another folder")
        unlisted = [game for game in games if game not in listed]
        if manifest is None and unlisted:
            raise logfmt.LogError(f"{path} is the manifest of {scope[0]} {scope[1]!r}, which does not list game "
                                  f"{unlisted[0]}: export it to another folder")


def read(path: Path) -> dict[str, Any]:
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise logfmt.LogError(f"{path}: not a readable manifest ({error.strerror or error})") from None
    manifest = logfmt.loads_strictly(raw, str(path))  # a repeated key refused, as in a log
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise logfmt.LogError(f"{path}: not a tourney manifest")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise logfmt.LogError(f"{path}: manifest format version {manifest.get('format_version')!r} is not one this "
                              "tourney reads (1)")
    return manifest


def check(manifest: dict[str, Any], files: list[dict[str, Any]], trusted: bytes | None) -> list[str]:
    """What is wrong with a manifest and the log files of its folder ({"file", "game_id", "head", "seed", "ok"}
    each: its name, what it says, and whether it verified); [] if nothing.

    The logs themselves are verified one by one elsewhere; this checks what they say together. The manifest
    holds only if every file of its folder verified, each listed game has one file, and every file of a listed
    game has the listed head.
    """
    try:
        return _files(files) + _check(manifest, _logs(files), trusted) + _heads(manifest, files)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        return [f"malformed manifest ({type(error).__name__}: {error})"]


def _check(manifest: dict[str, Any], logs: dict[str, dict[str, Any]], trusted: bytes | None) -> list[str]:
    problems: list[str] = []
    games = manifest["games"]
    members = [checkpoints.Member(i, g["game_id"], g["key"], g["head"], None) for i, g in enumerate(games)]
    checkpoint = manifest["checkpoint"]
    if checkpoint is None:
        problems += ["no signed checkpoint: the set of games is vouched for by nobody"] if trusted else []
    else:
        public = bytes.fromhex(checkpoint["public_key"])
        message = signing_keys.checkpoint_message(manifest["kind"], manifest["name"], checkpoint["games"],
                                                  checkpoint["root"],
                                          checkpoint["state"])
        if trusted is not None and public != trusted:
            problems.append(f"the checkpoint is signed by key {signing_keys.fingerprint(public)}, not the given key "
                            f"{signing_keys.fingerprint(trusted)}")
        if not signing_keys.signature_holds(public, checkpoint["signature"], message):
            problems.append("the checkpoint's signature does not hold")
        if checkpoints.extend(None, members[:checkpoint["games"]]) != checkpoint["root"]:
            problems.append(f"the first {checkpoint['games']} listed games do not give the checkpoint's root: a game "
                            "was removed, added, replaced or reordered")
        if checkpoint["state"] == checkpoints.COMPLETE and len(games) != checkpoint["games"]:
            problems.append(f"the checkpoint says the {manifest['kind']} is complete with {checkpoint['games']} "
                            f"games; {len(games)} are listed")
    listed = {g["game_id"]: g for g in games}
    for game_id in listed:
        if game_id not in logs:
            problems.append(f"game {game_id} is listed but its log is not in the folder")
    for game_id in sorted(set(logs) - set(listed) - set(manifest["playing"])):
        problems.append(f"game {game_id}: its log is in the folder but not in the manifest")
    problems += _seeds(manifest, logs)
    return problems


def _logs(files: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Game id -> the first file of that game (a second one is a problem of its own: ``_files``)."""
    logs: dict[str, dict[str, Any]] = {}
    for entry in files:
        if entry["game_id"] is not None:
            logs.setdefault(entry["game_id"], entry)
    return logs


def _files(files: list[dict[str, Any]]) -> list[str]:
    """Every file verified, and one file per game: a forged copy beside the real log (or a second copy of it)
    is never passed over because another file holds that game id."""
    failed = [entry["file"] for entry in files if not entry["ok"]]
    problems = [f"{len(failed)} of the folder's logs failed to verify (each named above): {_some(failed)}"
                if len(failed) > 1 else f"{failed[0]} failed to verify"] if failed else []
    by_game: dict[str, list[str]] = {}
    for entry in files:
        if entry["game_id"] is not None:
            by_game.setdefault(entry["game_id"], []).append(entry["file"])
    for game_id, names in by_game.items():
        if len(names) > 1:
            problems.append(f"game {game_id} is in {len(names)} files ({_some(names)}): a folder holds one log "
                            "per game")
    return problems


def _heads(manifest: dict[str, Any], files: list[dict[str, Any]]) -> list[str]:
    """Every file of a listed game with the head the manifest lists for it."""
    listed = {g["game_id"]: g["head"] for g in manifest["games"]}
    return [f"game {entry['game_id']}: {entry['file']}: its head is not the listed one" for entry in files
            if entry["game_id"] in listed and entry["head"] != listed[entry["game_id"]]]


def _some(names: list[str], limit: int = 5) -> str:
    shown = ", ".join(names[:limit])
    return shown if len(names) <= limit else f"{shown} and {len(names) - limit} more"


def _seeds(manifest: dict[str, Any], logs: dict[str, dict[str, Any]]) -> list[str]:
    """Each revealed seed against its commitment, and each game's seed against the one its key derives."""
    problems: list[str] = []
    if manifest["kind"] == checkpoints.TOURNAMENT:
        known = {None: _revealed(problems, "the tournament's seed", manifest["seed"])}
        if manifest.get("deals") is not None:
            return problems + _book_seeds(manifest, logs)
        pattern = TOURNAMENT_KEY
    else:
        known = {s["id"]: _revealed(problems, f"session {s['id']}'s seed", s) for s in manifest["sessions"]}
        pattern = SESSION_KEY
    for entry in manifest["games"]:
        match = pattern.fullmatch(entry["key"] or "")
        log = logs.get(entry["game_id"])
        if match is None or log is None:
            continue
        session = None if pattern is TOURNAMENT_KEY else int(match[1])
        table = int(match[1]) if pattern is TOURNAMENT_KEY else 0
        seed = known.get(session)
        if seed is not None and log.get("seed") != deal_seed(seed, table, int(match[2])):
            problems.append(f"game {entry['game_id']}: its seed is not the one its key {entry['key']} derives from "
                            "the revealed seed")
    return problems


def _book_seeds(manifest: dict[str, Any], logs: dict[str, dict[str, Any]]) -> list[str]:
    """Each game of a tournament played from a deal book against the book's seed its key's deal names."""
    problems = []
    book = manifest["deals"]
    for entry in manifest["games"]:
        match = BOOK_KEY.fullmatch(entry["key"] or "")
        log = logs.get(entry["game_id"])
        if match is None or log is None:
            continue
        deal = int(match[1])
        if deal >= len(book) or log.get("seed") != book[deal]:
            problems.append(f"game {entry['game_id']}: its seed is not the deal book's seed its key {entry['key']} "
                            "names")
    return problems


def _revealed(problems: list[str], what: str, seed: dict[str, Any]) -> str | None:
    value = seed.get("seed")
    if value is None:
        return None
    if seeds.commitment(value) != seed.get("commitment"):
        problems.append(f"{what} does not match its commitment")
        return None
    return value
