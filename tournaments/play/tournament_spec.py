"""What defines a tournament (``Spec``, stored with it as JSON), and how a stored spec of an earlier release is read
beside a resuming command's: upcast by a named function per release that added keys, then compared key by key,
a refusal naming the options that differ."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ledger import seeds
from tournaments.bots.spec import WALL, BotSpec, Confinement, Limits, Resources
from tournaments.play.defaults import MATCH
from tournaments.play.formats import ROUND_ROBIN, Plan, RoundRobin


@dataclass(frozen=True, slots=True)
class Spec:
    """What defines a tournament (stored with it; a resume must match it)."""

    game: str
    players: int
    games: int
    seed: str | None
    """None until open_run draws one (no --seed); a worker always gets the seed itself."""
    move_time: float
    time_bank: float
    bots: tuple[BotSpec, ...]
    options: dict[str, Any] = field(default_factory=dict)
    format: Any = None
    """The format (tournaments.play.formats, or a match); None: round robin."""
    sandbox: bool = False
    """Whether every bot but tourney's builtin plays in its own sandbox (recorded with the tournament)."""
    resources: Resources = field(default_factory=Resources)
    clock: str = WALL
    """How moves are timed, ``cpu`` or ``wall`` (recorded; tournaments.bots.spec.Confinement)."""
    ponder: bool = True
    """Whether bots run between their turns (recorded; False: frozen, which needs cgroups)."""
    drawn: bool = False
    """The seed was drawn, not chosen: the stored spec keeps only its commitment (tournaments.play.seeding)."""
    deals: tuple[str, ...] | None = None
    """A deal book's seeds (tournaments.play.deal_books): deal d of every table is the d-th; None: deals from the
    seed."""
    increment: float | None = None
    """A game clock's increment (``--tc BASE+INC``): ``time_bank`` is then its BASE and ``move_time`` the increment
    (tournaments.bots.spec.Limits); None: move time and bank."""

    def limits(self) -> Limits:
        """A seat's time limits for one game (each seat its own)."""
        if self.increment is not None:
            return Limits.game_clock(self.time_bank, self.increment)
        return Limits(self.move_time, self.time_bank)

    @property
    def confinement(self) -> Confinement:
        return Confinement(self.sandbox, self.resources, self.clock, self.ponder)

    @property
    def bot_names(self) -> list[str]:
        return [bot.name for bot in self.bots]

    def plan(self) -> Plan:
        """The stages to play; ScheduleError if the format cannot seat these bots."""
        return (self.format or RoundRobin()).plan(self)

    def to_json(self) -> dict[str, Any]:
        # A drawn seed is stored as its commitment only (a spec stored before drawn seeds keeps its seed).
        seed = {"seed": None, "seed_commitment": seeds.commitment(self.seed)} if self.drawn else {"seed": self.seed}
        out = {
            "game": self.game, "players": self.players, "games": self.games, **seed,
            "move_time_ms": round(self.move_time * 1000), "time_bank_ms": round(self.time_bank * 1000),
            "options": self.options,
            "bots": [{"name": b.name, "hash": b.content_hash, "kind": b.kind} for b in self.bots],
            "sandbox": self.sandbox, "resources": self.resources.to_json(), "clock": self.clock,
            "ponder": self.ponder,
        }
        # Added only when not a round robin, so the stored spec of every earlier tournament
        # still equals its command's and resumes.
        described = self.format.to_json() if self.format is not None else None
        if described is not None:
            out["format"] = described
        if self.deals is not None:  # likewise only with a deal book: the book belongs to the tournament
            out["deals"] = list(self.deals)
        if self.increment is not None:  # likewise only with a game clock
            out["tc"] = {"base_ms": round(self.time_bank * 1000), "increment_ms": round(self.increment * 1000)}
        return out


def before_sandboxes(stored: dict[str, Any], wanted: dict[str, Any]) -> dict[str, Any]:
    """A spec stored before sandboxes and resource limits: it played with no sandbox, and had no limits to keep
    (the resuming command's are taken)."""
    stored.setdefault("sandbox", False)
    stored.setdefault("resources", wanted["resources"])
    return stored


def before_cgroups(stored: dict[str, Any]) -> dict[str, Any]:
    """A spec stored before cgroups: every move timed by the wall clock, bots never frozen."""
    stored.setdefault("clock", WALL)
    stored.setdefault("ponder", True)
    return stored


def upcast(stored: dict[str, Any], wanted: dict[str, Any]) -> dict[str, Any]:
    """A stored spec (its JSON) as this release writes it, each earlier release's missing keys given the values
    those releases played with; ``wanted`` is the resuming command's spec."""
    return before_cgroups(before_sandboxes(stored, wanted))


def resume_refusal(name: str, stored: dict[str, Any], wanted: dict[str, Any]) -> str | None:
    """Why a tournament stored with spec ``stored`` (upcast) cannot resume with ``wanted``, in one line; None: it
    can."""
    if stored.get("deals") != wanted.get("deals"):
        return book_changed(name, stored.get("deals"), wanted.get("deals"))
    if stored == wanted:
        return None
    changed = sorted(k for k in {*stored, *wanted} if stored.get(k) != wanted.get(k))
    if "tc" in changed:  # a game clock is stored as move time and bank too: name the clock alone
        changed = [key for key in changed if key not in ("move_time_ms", "time_bank_ms")]
    hint = (": to play without (or with changed) bots, start a new tournament with another --name"
            if "bots" in changed else "")
    told = [told for key in changed for told in _differences(key, stored.get(key), wanted.get(key), _match(wanted))]
    verb = "differs" if len(told) == 1 else "differ"
    return f"cannot resume {name!r}: its {_listed(told)} {verb} from this command's{hint}"


def book_changed(name: str, stored: list[str] | None, given: list[str] | None) -> str:
    """Why a resume with another deal book (or none where one was kept, or one where none was) is refused."""
    def told(book: list[str]) -> str:
        return f"{len(book)} deals, the first {book[0][:12]}…" if book else "no deals"

    if stored is None or given is None:
        return (f"cannot resume {name!r} with --deals: it was started without a deal book (its deals come from its "
                "seed); resume it without --deals")
    return (f"cannot resume {name!r} with this deal book ({told(given)}): it plays the one it was started with "
            f"({told(stored)}); resume it without --deals and it keeps its own")


SPEC_OPTIONS = {
    "games": "--games", "players": "--players", "move_time_ms": "--move-time", "time_bank_ms": "--time-bank",
    "sandbox": "--sandbox", "clock": "--clock", "ponder": "--ponder", "tc": "--tc",
    "memory_mb": "--memory-mb", "cpu_seconds": "--cpu-seconds", "max_processes": "--max-processes",
}
"""The option of `tourney run` and `tourney match` that sets each key of a stored spec (or of its resources), for the
message of a refused resume."""
FORMAT_OPTIONS = {"name": "--format", "candidate": "--candidate", "rounds": "--rounds"}
"""`tourney run`'s options that set each key of a stored format."""
MATCH_OPTIONS = {"sprt": "--sprt", "batch": "--batch", "candidate": "CANDIDATE", "baselines": "BASELINE",
                 "field": "--field"}
"""`tourney match`'s options (and arguments) that set each key of a stored match."""


def _match(spec: dict[str, Any]) -> bool:
    """Whether ``spec`` is a match's (`tourney match`), whose format is set by other options than run's."""
    return isinstance(spec.get("format"), dict) and spec["format"].get("name") == MATCH


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _differences(key: str, stored: Any, given: Any, match: bool) -> list[str]:
    """One changed key of a spec, as the option the user typed for the command they ran, with both values:
    ``--games (stored 10, given 4)``; a key of no option (``bots``) by its name."""
    if key == "resources":
        stored, given = stored or {}, given or {}
        return [_told(SPEC_OPTIONS.get(k, k), stored.get(k), given.get(k))
                for k in sorted({*stored, *given}) if stored.get(k) != given.get(k)]
    if key == "format":
        if match:
            stored, given = stored or {}, given or {}
            return [_told(MATCH_OPTIONS.get(k, k), _shown(stored.get(k)), _shown(given.get(k)))
                    for k in sorted({*stored, *given}) if stored.get(k) != given.get(k)]
        stored_name, given_name = ((form or {}).get("name", ROUND_ROBIN) for form in (stored, given))
        if stored_name != given_name:
            return [_told("--format", stored_name, given_name)]
        return [_told(FORMAT_OPTIONS.get(k, k), stored.get(k), given.get(k))
                for k in sorted({*stored, *given}) if stored.get(k) != given.get(k)]
    option = SPEC_OPTIONS.get(key)
    if option is None:
        return [key]
    if key == "tc":
        def clock(tc: Any) -> str:
            return "none" if tc is None else f"{tc['base_ms'] / 1000:g}+{tc['increment_ms'] / 1000:g}"

        return [_told(option, clock(stored), clock(given))]
    if key in ("move_time_ms", "time_bank_ms"):
        return [_told(option, *(f"{value / 1000:g} s" for value in (stored, given)))]
    return [_told(option, stored, given)]


def _shown(value: Any) -> Any:
    """A stored value as the user gave it: a list as its items, an SPRT as its parameters, nothing as none."""
    if value is None:
        return "none"
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "none"
    if isinstance(value, dict):
        return " ".join(f"{k}={v}" for k, v in value.items())
    return value


def _told(option: str, stored: Any, given: Any) -> str:
    if isinstance(stored, bool) or isinstance(given, bool):
        stored, given = ("on" if stored else "off"), ("on" if given else "off")
    return f"{option} (stored {stored}, given {given})"
