"""Owners (who submits through the HTTP API) and the bot names they own.

A token is never stored: only its SHA-256 (``token_hash``), computed by the caller. A bot name
belongs to the owner who first submitted it through the API; a name the ledger already holds
without an owner (the operator's bots, tournament entrants) belongs to nobody who can claim it.

Names are claimed by their normal form (``name_form``: NFKC, casefolded, without ``-``, ``_``,
``.``, white space and invisible format characters), so ``Alice-Lemur``, ``LEMUR-PRO`` and
``lemur_pro`` are the names ``alice-lemur`` and ``lemur-pro`` already are: an owner name whose form
is another owner's, and a bot name whose form is another's (another owner's, or the operator's),
is refused, naming the name it reads as. Owner names and owned bot names keep their form in a
unique column (revision 0010); the operator's names are the ``bots`` table's, compared by form
when a name is claimed. Names claimed before that revision that already read alike keep working
under their exact spelling; the first one claimed holds the form.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Connection

from ledger.store import Ledger, LedgerError, now

IGNORED = frozenset("-_.")
"""Characters a name's form leaves out (besides white space and format characters)."""
FOLDS = 4
"""NFKC and case folding are repeated until the name no longer changes, at most this many times (a
bound: the names come from strangers)."""


def name_form(name: str) -> str:
    """What a name reads as: NFKC and case folding repeated until stable (as Unicode's NFKC_Casefold),
    then without ``-``, ``_``, ``.``, white space and format characters (zero-width spaces, joiners)."""
    form = name
    for _ in range(FOLDS):
        folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", form).casefold())
        if folded == form:
            break
        form = folded
    return "".join(c for c in form if c not in IGNORED and not c.isspace() and unicodedata.category(c) != "Cf")


class UnknownOwner(LedgerError):
    """No owner with that name."""


class NameTaken(LedgerError):
    """A bot name that belongs to someone else (another owner, or the operator)."""


def add(ledger: Ledger, name: str, token_hash: str) -> int:
    """Store a new owner; LedgerError if the name, or one that reads as it (``name_form``), is taken."""
    form = name_form(name)
    with ledger.write() as connection:
        found = connection.execute(text(
            "SELECT name FROM owners WHERE name = :name OR name_form = :form ORDER BY name = :name DESC LIMIT 1"),
            {"name": name, "form": form}).scalar()
        if found == name:
            raise LedgerError(f"an owner named {name!r} already exists (a new token: `tourney users token {name}`)")
        if found is not None:
            raise LedgerError(f"the owner name {name!r} reads as {found!r}, an owner already: pick another name")
        return connection.execute(text(
            "INSERT INTO owners (name, name_form, token_hash, created_at) "
            "VALUES (:name, :name_form, :token_hash, :created_at) RETURNING id"),
            {"name": name, "name_form": form, "token_hash": token_hash, "created_at": now()}).scalar_one()


def replace_token(ledger: Ledger, name: str, token_hash: str) -> None:
    """Give an owner a new token hash (the old token stops working at once)."""
    with ledger.write() as connection:
        if connection.execute(text("UPDATE owners SET token_hash = :token_hash WHERE name = :name"),
                              {"token_hash": token_hash, "name": name}).rowcount == 0:
            raise UnknownOwner(f"no owner {name!r} (add one with `tourney users add {name}`)")


def by_token_hash(ledger: Ledger, token_hash: str) -> dict[str, Any] | None:
    with ledger.read() as connection:
        row = connection.execute(text("SELECT id, name, created_at FROM owners WHERE token_hash = :token_hash"),
                                 {"token_hash": token_hash}).first()
    return None if row is None else {"id": row[0], "name": row[1], "created_at": row[2]}


def all_owners(ledger: Ledger) -> list[dict[str, Any]]:
    """Every owner with the bot names they own, oldest first."""
    with ledger.read() as connection:
        rows = connection.execute(text("SELECT id, name, created_at FROM owners ORDER BY id")).all()
        names = connection.execute(text("SELECT owner_id, name FROM bot_owners ORDER BY name")).all()
    bots: dict[int, list[str]] = {}
    for owner_id, bot in names:
        bots.setdefault(owner_id, []).append(bot)
    return [{"id": id_, "name": name, "created_at": created, "bots": bots.get(id_, [])} for id_, name, created in rows]


def owners_of(ledger: Ledger, names: list[str] | None = None) -> dict[str, str]:
    """Bot name -> its owner's name (every owned name, or those of ``names``)."""
    with ledger.read() as connection:
        rows = connection.execute(text(
            "SELECT b.name, o.name FROM bot_owners b JOIN owners o ON o.id = b.owner_id")).all()
    wanted = None if names is None else set(names)
    return {bot: owner for bot, owner in rows if wanted is None or bot in wanted}


def bots_of(ledger: Ledger, owner_id: int) -> list[str]:
    with ledger.read() as connection:
        return [row[0] for row in connection.execute(text(
            "SELECT name FROM bot_owners WHERE owner_id = :owner_id ORDER BY name"), {"owner_id": owner_id})]


def claim(connection: Connection, name: str, owner_id: int) -> bool:
    """Make ``name`` the owner's (True if newly claimed, False if already theirs); NameTaken if it, or a
    name that reads as it, is another owner's or one the ledger holds from elsewhere (run by the
    operator, never claimable), or another of the owner's own names."""
    found = connection.execute(text("SELECT owner_id FROM bot_owners WHERE name = :name"), {"name": name}).scalar()
    if found == owner_id:
        return False
    if found is not None:
        raise NameTaken(f"the bot name {name!r} belongs to another owner: submit under a name of your own")
    form = name_form(name)
    alike = connection.execute(text("SELECT name, owner_id FROM bot_owners WHERE name_form = :form"),
                               {"form": form}).first()
    if alike is not None and alike[1] == owner_id:
        raise NameTaken(f"the bot name {name!r} reads as {alike[0]!r}, which is yours: submit under that name")
    if alike is not None:
        raise NameTaken(f"the bot name {name!r} reads as {alike[0]!r}, another owner's: submit under a name of "
                        "your own")
    operators = _operators_alike(connection, name, form)
    if operators == name:
        raise NameTaken(f"the bot name {name!r} is taken by a bot this league runs itself: pick another name")
    if operators is not None:
        raise NameTaken(f"the bot name {name!r} reads as {operators!r}, a bot this league runs itself: pick "
                        "another name")
    connection.execute(text("INSERT INTO bot_owners (name, name_form, owner_id, claimed_at) "
                            "VALUES (:name, :name_form, :owner_id, :claimed_at)"),
                       {"name": name, "name_form": form, "owner_id": owner_id, "claimed_at": now()})
    return True


def check_operators_name(connection: Connection, name: str) -> None:
    """NameTaken if the operator may not list a bot under ``name``: it, or a name that reads as it, is an
    owner's (an owner's bots are listed only from their own uploads), or it is new and reads as another bot's
    the ledger holds (``LEMUR-PRO`` beside ``lemur-pro``; a new version keeps its name's exact spelling)."""
    form = name_form(name)
    found = connection.execute(text(
        "SELECT b.name, o.name FROM bot_owners b JOIN owners o ON o.id = b.owner_id WHERE b.name = :name OR "
        "b.name_form = :form ORDER BY b.name = :name DESC LIMIT 1"), {"name": name, "form": form}).first()
    if found is not None and found[0] == name:
        raise NameTaken(f"the bot name {name!r} belongs to the owner {found[1]!r}: only their uploads list it")
    if found is not None:
        raise NameTaken(f"the bot name {name!r} reads as {found[0]!r}, the owner {found[1]!r}'s: pick another name")
    alike = _operators_alike(connection, name, form)
    if alike is not None and alike != name:
        raise NameTaken(f"the bot name {name!r} reads as {alike!r}, a bot this league runs already: submit "
                        f"under {alike!r} (a new version of it) or pick another name")


def _operators_alike(connection: Connection, name: str, form: str) -> str | None:
    """The ledger's own bot name (one no owner claimed) that is ``name``, else one that reads as it, else None.
    The bots table keeps no form (a tournament's entrants need none), so the names are compared here."""
    if connection.execute(text(
            "SELECT 1 FROM bots WHERE name = :name AND name NOT IN (SELECT name FROM bot_owners) LIMIT 1"),
            {"name": name}).first() is not None:
        return name
    rows = connection.execute(text(
        "SELECT DISTINCT name FROM bots WHERE name NOT IN (SELECT name FROM bot_owners) ORDER BY name"))
    return next((other for (other,) in rows if name_form(other) == form), None)
