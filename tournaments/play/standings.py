"""Standings of a tournament, computed from the ledger alone: from its read models (ledger.read_models: sums
per bot and per pair, kept as games are stored) and its kept Elo fit (ledger.read_fits: refitted from the pairs
only when a game was stored since), never refolded from the games."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from sqlalchemy import exc

from ledger import read_fits, read_models, read_pages
from ledger.canonical import loads
from ledger.rows import tournament_rows
from ledger.store import Ledger
from ledger.store import now as now_iso
from replays import facts, projections
from replays.facts import Trust
from replays.record import Recorded, forfeit_seat
from tournaments.play.defaults import BOOTSTRAP, CURVATURE
from tournaments.ratings import elo as ratings


@dataclass(frozen=True, slots=True)
class Row:
    rank: int
    bot: str
    games: int
    first: int
    mean_place: float
    score: float
    elo: float
    ci_low: float
    ci_high: float
    forfeits: int = 0
    bot_id: int | None = None
    """The bot's id in the ledger: the short id tables show, which commands take for its name."""


@dataclass(frozen=True, slots=True)
class Standings:
    tournament: str
    game: str
    games: int
    rows: list[Row]
    los: dict[str, dict[str, float | None]]
    head_to_head: dict[str, dict[str, tuple[int, int, int]]]
    """Row bot -> column bot -> (wins, draws, losses) of the row bot, counted per pair of seats."""
    sandboxed: bool = False
    """Whether the bots played in the sandbox (docs/security.md)."""
    trust: Trust = field(default_factory=Trust)
    """Who vouches for the games: the ledger key, by checkpoint (its fingerprint) or one by one."""
    seed: dict[str, Any] = field(default_factory=dict)
    """The tournament's seed as it may be shown (``seed_of``)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "tournament": self.tournament,
            "game": self.game,
            "games": self.games,
            "sandboxed": self.sandboxed,
            "standings": [
                {**asdict(row), "mean_place": round(row.mean_place, 3), "score": round(row.score, 2),
                 "elo": round(row.elo, 1), "ci_low": round(row.ci_low, 1), "ci_high": round(row.ci_high, 1)}
                for row in self.rows
            ],
            "los": {a: {b: None if v is None else round(v, 4) for b, v in row.items()} for a, row in self.los.items()},
            "head_to_head": {a: {b: {"wins": w, "draws": d, "losses": lost} for b, (w, d, lost) in row.items()}
                             for a, row in self.head_to_head.items()},
            "integrity": self.trust.to_json(),
            "seed": self.seed,
        }


Pairs = dict[tuple[str, str], tuple[int, int, int]]


def compute(name: str, game: str, games: list[list[tuple[str, int]]], forfeits: dict[str, int] | None = None,
            sandboxed: bool = False, interval: str = CURVATURE) -> Standings:
    """Standings from results: Elo (joint MLE) with its 95% interval, ordered best first."""
    summary = ratings.summary(games)
    spread = ratings.spread_of(games)
    forfeits = forfeits or {}
    bots = {bot: {"games": int(s["games"]), "firsts": int(s["first"]), "places": round(s["mean_place"] * s["games"]),
                  "forfeits": forfeits.get(bot, 0), "points2": spread[bot][1], "points2_sq": spread[bot][2]}
            for bot, s in summary.items()}
    ci = ratings.bootstrap_ci(games) if interval == BOOTSTRAP else None
    return of_counts(name, game, len(games), bots, ratings.head_to_head(games), sandboxed, ci)


def fit_of(bots: dict[str, dict[str, int]], pairs: Pairs, ci: dict[str, tuple[float, float]] | None = None,
           start: dict[str, float] | None = None) -> dict[str, read_fits.Fitted]:
    """Each bot's Elo fit from a tournament's sums (per bot: games, half points and their squares; per ordered
    pair: wins, draws, losses): (elo, ci_low, ci_high, score), the fit from ``start`` (a previous fit, to save
    iterations), the interval from its curvature unless ``ci`` is given. Reads every pair: what
    ``tournament_fits`` keeps."""
    elo = ratings.mle_elo_of_pairs(pairs, list(bots), start=start)
    if ci is None:
        ci = ratings.curvature_ci(elo, pairs, {bot: (b["games"], b["points2"], b["points2_sq"])
                                               for bot, b in bots.items()})
    points: dict[str, list[float]] = {bot: [0.0, 0] for bot in bots}
    for (bot, _opponent), (won, drawn, lost) in pairs.items():
        points[bot][0] += won + 0.5 * drawn
        points[bot][1] += won + drawn + lost
    out = {}
    for bot in bots:
        low, high = ci.get(bot, (elo[bot], elo[bot]))
        won, played = points[bot]
        out[bot] = (elo[bot], low, high, 100.0 * won / played if played else 50.0)
    return out


def of_counts(name: str, game: str, games: int, bots: dict[str, dict[str, int]], pairs: Pairs,
              sandboxed: bool = False, ci: dict[str, tuple[float, float]] | None = None,
              start: dict[str, float] | None = None) -> Standings:
    """Standings from the sums a tournament's read models keep (per bot: games, firsts, places, forfeits, half
    points and their squares; per ordered pair: wins, draws, losses): ``fit_of`` them, every pair's table."""
    return assembled(name, game, games, bots, fit_of(bots, pairs, ci, start), pairs, None, sandboxed)


def assembled(name: str, game: str, games: int, bots: dict[str, dict[str, int]], fit: dict[str, read_fits.Fitted],
              pairs: Pairs, rows: list[str] | None = None, sandboxed: bool = False) -> Standings:
    """Standings from a tournament's sums per bot, its fit, and the ``pairs`` of the bots ``rows`` (a page of the
    LOS and head-to-head tables, in rank order; None: every bot, and ``pairs`` is every pair)."""
    order = sorted(bots, key=lambda bot: (-fit[bot][0], bot))
    table_rows = [bot for bot in order if rows is None or bot in rows]
    listed = []
    for position, bot in enumerate(order, start=1):
        b = bots[bot]
        elo, low, high, score = fit[bot]
        listed.append(Row(position, bot, b["games"], b["firsts"], b["places"] / b["games"], score, elo, low, high,
                          b["forfeits"]))
    table = {a: {b: pairs[(a, b)] for b in order if (a, b) in pairs} for a in table_rows}
    los = {a: {b: (ratings.los(pairs[(a, b)][0], pairs[(a, b)][2]) if (a, b) in pairs else None)
               for b in sorted(bots) if b != a} for a in (sorted(table_rows) if rows is None else table_rows)}
    return Standings(name, game, games, listed, los, table, sandboxed)


def of_tournament(ledger: Ledger, ref: str, interval: str = CURVATURE, start: dict[str, float] | None = None,
                  vouched: bool = True, check: bool = False, rows: tuple[int, int] | None = None) -> Standings:
    """The standings of a stored tournament (by id or name), from its read models (no game is read), and who
    vouches for its games (``vouched``: the checkpoints and the signatures after them, facts.trust).

    The fit is the one kept (ledger.read_fits) while no game of the tournament was stored since; else it is
    refitted from every pair (from the stale fit, or ``start``), and stored if the ledger may be written.
    ``rows`` (offset, limit) gives the LOS and head-to-head of those bots only, in rank order, reading only
    their pairs (``table_page`` says which); None gives every pair (what `tourney standings` prints).

    With ``check`` every game's result is read from its hashed events too (its rows checked against
    them, as `replay verify --db` does without the refold) and the read models must be what they add
    up to (facts.Tampered naming the first row that is not); with ``interval`` BOOTSTRAP the interval
    resamples those results. Either reads every game, so its time grows with the tournament; the games are
    read a page at a time (facts.pages) and ``check`` keeps only the sums, so its memory does not. The
    bootstrap's does: it keeps each game's (bot, rank) per seat (``Resampled``), 100 to 150 bytes a game."""
    row = tournament_rows.get(ledger, ref)
    with ledger.read() as connection:
        read_models.require_current(connection)
        bots = read_pages.tournament_bots(connection, row["id"])
        now = read_fits.stamp(connection, row["id"])
        stored, kept = read_fits.read(connection, row["id"])
        fit = kept if stored == now and set(kept) == set(bots) and interval != BOOTSTRAP else None
        pairs = None if fit is not None else read_pages.tournament(connection, row["id"])[1]
        trust = facts.trust(ledger, tournament_rows.scope(row), connection) if vouched else Trust()
        resampled = Resampled() if interval == BOOTSTRAP else None
        if check or resampled is not None:
            vouching = Trust()
            results = _results(facts.pages(ledger, tournament_rows.scope(row), connection, trust=vouching),
                               resampled)
            if check:
                projections.check_tournament(connection, row["id"], results)
                trust = vouching
            else:
                deque(results, maxlen=0)  # every game read and checked, only what the bootstrap resamples kept
    ci = None if resampled is None else ratings.bootstrap_ci(resampled.games())
    if fit is None:
        fit = fit_of(bots, pairs, ci, start or {bot: values[0] for bot, values in kept.items() if bot in bots})
        if interval != BOOTSTRAP and not ledger.read_only:
            store_fit(ledger, row["id"], now, fit)
    order = sorted(bots, key=lambda bot: (-fit[bot][0], bot))
    page = None if rows is None else order[rows[0]:rows[0] + rows[1]]
    if page is not None or pairs is None:
        with ledger.read() as connection:
            pairs = read_fits.pairs_of(connection, row["id"], order if page is None else page)
    sandboxed = bool(loads(row["spec"]).get("sandbox", False))  # specs stored before the sandbox: without
    found = assembled(row["name"], row["game"], now.games, bots, fit, pairs, page, sandboxed)
    ids = tournament_rows.entrants(ledger, row["id"])
    return replace(found, rows=[replace(r, bot_id=ids.get(r.bot)) for r in found.rows], trust=trust,
                   seed=seed_of(row))


class Resampled:
    """What ``--interval bootstrap`` resamples, the one reading of a tournament that must keep every game: each
    game's (bot, rank) per seat, in the order of the games' schedule keys. Compact, not a game's Fact: a tuple of
    (bot, rank) pairs shared between games, and the game's key (a game without one: its id, first), 100 to 150 bytes
    a game (docs/tournaments.md, "95% CI")."""

    def __init__(self) -> None:
        self.keys: list[str] = []
        self.seats: list[tuple[tuple[str, int], ...]] = []
        self.shared: dict[tuple[str, int], tuple[str, int]] = {}

    def add(self, fact: facts.Fact) -> None:
        # Keys are unique in a tournament (uq_games_tournament_key) and hold no NUL: the order of (key or "", id).
        self.keys.append(fact.key or "\x00" + fact.game_id)
        pairs = [(seat.bot, seat.rank) for seat in fact.seats]
        self.seats.append(tuple(self.shared.setdefault(pair, pair) for pair in pairs))

    def games(self) -> list[tuple[tuple[str, int], ...]]:
        """The games in key order (the order the bootstrap's draws have always been made in)."""
        return [self.seats[i] for i in sorted(range(len(self.keys)), key=self.keys.__getitem__)]


def _results(pages: Iterator[list[tuple[int, facts.Fact]]], resampled: Resampled | None) -> Iterator[facts.Fact]:
    """The facts of ``pages``, one at a time (none kept but what ``resampled``, if any, keeps of each)."""
    for page in pages:
        for _order, fact in page:
            if resampled is not None:
                resampled.add(fact)
            yield fact
        del page  # let go before the next page is read


def store_fit(ledger: Ledger, tournament_id: int, now: read_fits.Stamp, fit: dict[str, read_fits.Fitted]) -> bool:
    """Keep ``fit`` of the tournament's games ``now`` (unless a newer one is kept already): True if stored. A
    writer keeping the same tournament's fit at the same moment (PostgreSQL: its rows inserted after this one
    read the stamp) wins: this one keeps nothing, its readers refit as before."""
    try:
        with ledger.write() as connection:
            return read_fits.write(connection, tournament_id, now, fit, now_iso())
    except exc.IntegrityError:
        return False


FIT_TOLERANCE = 0.01
"""How far a kept fit's figures may be from a refit of the same pairs (Elo points, score percent): the fit
converges to 1e-10 in strength; where it started from moves the last digits only."""


def fit_differences(ledger: Ledger, limit: int = 20) -> list[str]:
    """Each kept fit that counts its tournament's games now (a stale one is refitted by its readers, never shown)
    held against a refit of the tournament's pairs: the first ``limit`` rows that differ, named by tournament and
    bot (what `tourney db audit` adds to the read models' audit; `db audit --rebuild` forgets every fit)."""
    out: list[str] = []
    if limit <= 0:
        return out
    with ledger.read() as connection:
        ids = [row[0] for row in connection.execute(read_fits.KEPT).fetchall()]
    for tournament_id in ids:
        with ledger.read() as connection:
            now = read_fits.stamp(connection, tournament_id)
            stored, kept = read_fits.read(connection, tournament_id)
            if stored != now:
                continue
            bots, pairs = read_pages.tournament(connection, tournament_id)
        refit = fit_of(bots, pairs)
        for bot in sorted(set(kept) | set(refit)):
            have, want = kept.get(bot), refit.get(bot)
            if have is not None and want is not None and all(abs(a - b) <= FIT_TOLERANCE
                                                             for a, b in zip(have, want, strict=True)):
                continue
            out.append(f"tournament_fits (tournament_id={tournament_id}, bot={bot!r}): stored {_fitted(have)}; "
                       f"the pairs give {_fitted(want)}")
            if len(out) >= limit:
                return out
    return out


def _fitted(values: read_fits.Fitted | None) -> str:
    if values is None:
        return "absent"
    return ", ".join(f"{name}={value:.6g}" for name, value in zip(read_fits.COLUMNS, values, strict=True))


def refresh_fit(ledger: Ledger, tournament_id: int) -> bool:
    """Refit the tournament and keep the fit, unless the kept one counts its games already (what `tourney run`
    does at each checkpoint and at its end): True if it refitted."""
    with ledger.read() as connection:
        if read_models.position(connection) < read_models.newest(connection):
            return False  # behind (a ledger of an older tourney): the catch-up comes first, a later refit after it
        now = read_fits.stamp(connection, tournament_id)
        stored, kept = read_fits.read(connection, tournament_id)
        if stored == now or not now.games:
            return False
        bots, pairs = read_pages.tournament(connection, tournament_id)
    store_fit(ledger, tournament_id, now, fit_of(bots, pairs, start={bot: v[0] for bot, v in kept.items()}))
    return True


class Running:
    """A tournament's standings while `tourney run` plays it: its read models as the run began, plus each game
    the run stores, added up in memory as the ledger adds them (ledger.read_models.add_tournament_game), so a
    report counts exactly the games told so far. Memory holds sums per bot and per pair, never a game; each
    refit starts from the last one's ratings."""

    def __init__(self, ledger: Ledger, tournament: dict[str, Any]) -> None:
        self.tournament = tournament
        self.rows = read_models.empty()
        with ledger.read() as connection:
            for table in ("tournament_standings", "tournament_pairs"):
                self.rows[table] = {key: list(values) for key, values in read_models.table_rows(
                    connection, table, "WHERE tournament_id = :id", {"id": tournament["id"]}).items()}
            self.games = read_fits.stamp(connection, tournament["id"]).games
        self.fitted: dict[str, float] = {}

    def add(self, recorded: Recorded) -> None:
        """A game just stored."""
        seats = tuple(read_models.Seated(seat, 0, info.name, rank)
                      for seat, (info, rank) in enumerate(zip(recorded.seats, recorded.ranking, strict=True)))
        read_models.add_tournament_game(self.rows, read_models.Outcome(
            recorded.game_id, 0, self.tournament["id"], "", seats, forfeit_seat(recorded.records)))
        self.games += 1

    def standings(self) -> Standings:
        bots, pairs = read_models.tournament_of(self.rows, self.tournament["id"])
        found = of_counts(self.tournament["name"], self.tournament["game"], self.games, bots, pairs,
                          start=self.fitted or None)
        self.fitted = {row.bot: row.elo for row in found.rows}
        return found


def seed_of(row: dict[str, Any]) -> dict[str, Any]:
    """A tournament's seed as it may be shown: origin, commitment, and the seed once it may be known."""
    committed = tournament_rows.committed(row)
    return {"origin": None if committed is None else committed.origin,
            "commitment": None if committed is None else committed.commitment,
            "seed": tournament_rows.revealed(row)}
