"""Deal books: a file of deal seeds that every table plays, from every seat rotation (fastchess's -openings).

    [Format "tourney-deals"]
    [FormatVersion 1]
    [Game "lemur-tails"]

    9f2c1a…
    3b7e40…

Tag lines (replays.tags), an empty line, then one deal seed a line. Deal d of every table (of
every Swiss round, of a match) is the book's d-th seed, so every pairing plays exactly the
book's deals, each once from every rotation of its seats (ALL-1). A seed, not the dealt
cards: a game's every chance outcome, the deal and every later draw, is drawn from its seed
(ruling ALL-2), which is what lets verification check each one. The book is kept in the
tournament's spec: a resume plays it again without the file, and refuses another.
docs/tournaments.md ("Deal books") has the format.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from ledger import dialect
from ledger.canonical import loads
from ledger.rows import tournament_rows
from ledger.store import Ledger
from replays.tags import Tag, TextError, after_first_line, check_version, is_tag, parse_tag, read_text, shown, tag_line
from tournaments.play.runner import TournamentError

FORMAT = "tourney-deals"
FORMAT_VERSION = 1
SUFFIX = ".deals"
FIRST_LINE = tag_line("Format", FORMAT)
MAX_SEED = 256
_SEED = re.compile(rf"[!-~]{{1,{MAX_SEED}}}")
"""A deal seed: printable ASCII without spaces (what `--seed` and a drawn seed's hex digits are)."""
_TAGS = ("FormatVersion", "Game")


class DealsError(TournamentError):
    """A deal book that cannot be read or used; the message names the file (and the line) in one line."""


@dataclass(frozen=True, slots=True)
class Book:
    """A deal book: its game, its seeds in order, and where it came from (for messages)."""

    game: str
    seeds: tuple[str, ...]
    source: str


def new(count: int, game: str, seed: str | None = None) -> Book:
    """A book of ``count`` deals: seeds drawn at random (256 bits each), or derived from ``seed`` (reproducible)."""
    if count < 1:
        raise DealsError(f"a deal book holds at least 1 deal, not {count}")
    if seed is None:
        seeds = tuple(secrets.token_hex(32) for _ in range(count))
    else:
        seeds = tuple(hashlib.sha256(f"tourney-deals-v1/{seed}/{deal}".encode()).hexdigest() for deal in range(count))
    return Book(game, seeds, "a new deal book")


def default_path(book: Book) -> Path:
    return Path(f"{book.game}-{len(book.seeds)}{SUFFIX}")


def text(book: Book) -> str:
    return "\n".join([FIRST_LINE, tag_line("FormatVersion", FORMAT_VERSION), tag_line("Game", book.game), "",
                      *book.seeds]) + "\n"


def write(book: Book, path: Path) -> None:
    """Write ``book`` to a new file; DealsError if one is there already (it is never overwritten) or it cannot be
    written."""
    try:
        with path.open("x", encoding="utf-8") as file:
            file.write(text(book))
    except FileExistsError:
        raise DealsError(f"{path} exists: give another --out (or remove it)") from None
    except OSError as error:
        raise DealsError(f"{path}: cannot write: {error.strerror or error}") from None


def read(path: Path, game: str) -> Book:
    """The book in ``path``, for ``game``; DealsError naming the file and the line if it is missing, unreadable,
    of another game, or holds a line that is not of the format."""
    name = str(path)
    try:
        return parse(read_text(path), name, game)
    except TextError as error:
        raise DealsError(str(error)) from None


def parse(content: str, name: str, game: str) -> Book:
    numbered = after_first_line(content, name, FIRST_LINE, "a deal book")
    tags: dict[str, Tag] = {}
    seeds: list[str] = []
    seen: dict[str, int] = {}
    number = 1
    for number, line in numbered:
        if line == "":
            continue
        if is_tag(line):
            if seeds:
                raise TextError(name, number, "a tag after the seeds: the tags come first")
            parse_tag(name, number, line, tags)
            _check_tag(name, number, line[1:].split(" ", 1)[0], tags, game)
        elif _SEED.fullmatch(line):
            if line in seen:
                raise TextError(name, number, f"this seed is on line {seen[line]} too: a book holds each deal once")
            seen[line] = number
            seeds.append(line)
        else:
            raise TextError(name, number, f"expected a deal seed (printable characters without spaces, at most "
                            f"{MAX_SEED}), found {shown(line)}")
    for key in _TAGS:
        if key not in tags:
            raise TextError(name, None, f"tag {key} missing: a deal book names its format version and game")
    if not seeds:
        raise TextError(name, number + 1, "no deal seeds: a deal book holds at least one")
    return Book(game, tuple(seeds), name)


def _check_tag(name: str, number: int, key: str, tags: dict[str, Tag], game: str) -> None:
    value = tags[key].value
    if key == "FormatVersion":
        check_version(name, tags[key], FORMAT_VERSION, "deal book")
    elif key == "Game":
        if value != game:
            raise TextError(name, number, f"a deal book of {shown(str(value))}, not {game} (make one with "
                            f"`tourney deals new N --game {game}`)")
    else:
        raise TextError(name, number, f"unknown tag {key} (a deal book has {', '.join(('Format', *_TAGS))})")


def for_run(ledger: Ledger, resumed: str | None, path: Path | None, game: str) -> Book | None:
    """The book a run plays: the file given (``--deals``), else the one the resumed tournament ``resumed`` keeps,
    else None (its deals come from its seed)."""
    if path is not None:
        what = dialect.database_file(path, ledger.path)  # the ledger is open: only SQLite opens its files
        if what is not None:
            raise DealsError(f"{path}: {what}, not a deal book: only SQLite opens it")
        return read(path, game)
    row = tournament_rows.find(ledger, resumed) if resumed is not None else None
    kept = None if row is None else loads(row["spec"]).get("deals")
    return None if kept is None else Book(game, tuple(kept), f"the deal book of {resumed!r}")


def deals_to_play(book: Book | None, games: int | None, default: int | None) -> int | None:
    """Deals per table: ``--games`` (``games``; None if not given), at most the book's; without it, the whole book,
    or ``default`` where there is no book."""
    if book is None:
        return games if games is not None else default
    if games is None:
        return len(book.seeds)
    if games > len(book.seeds):
        raise DealsError(f"{book.source} holds {len(book.seeds)} deals: --games {games} asks for more")
    return games
