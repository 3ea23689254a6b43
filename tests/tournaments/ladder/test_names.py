"""Names are claimed by what they read as (ledger.rows.owner_rows.name_form): an owner name or a bot name that reads as
another owner's (or the operator's) is refused, naming the name it reads as, through the library, the CLI and
the upload queue the web API uses; on SQLite and PostgreSQL. Revision 0010 gives existing rows their form."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from ledger.rows import ladder_rows, owner_rows, submission_rows
from ledger.rows.owner_rows import NameTaken, name_form
from ledger.store import Ledger, LedgerError
from tests import cli
from tests.tournaments.play.test_protocol import SHIPPED
from tournaments.ladder import league as ladder
from tournaments.ladder import owner_tokens


@pytest.mark.parametrize(("name", "form"), [
    ("Alice-Lemur", "alicelemur"), ("LEMUR-PRO", "lemurpro"), ("lemur_pro", "lemurpro"), ("Lemur.Pro", "lemurpro"),
    ("lemur pro", "lemurpro"), ("\uff2c\uff25\uff2d\uff35\uff32\u3000pro", "lemurpro"),  # full-width letters, space
    ("lemur\u200bpro", "lemurpro"), ("\ufb01le", "file"), ("Stra\u00dfe", "strasse"), ("K\u212a", "kk"),  # Kelvin
])
def test_a_names_form_is_nfkc_casefolded_without_separators(name, form):
    """NFKC, case folding, and no '-', '_', '.', white space or invisible format characters."""
    assert name_form(name) == form


@pytest.fixture
def ledger(backend):
    """A ledger on each backend with a two-seat ladder and two owners, alice (1) and bob (2)."""
    store = Ledger(backend.url)
    ladder_rows.create(store, "spring", "lemur-tails", 2)
    for name in ("alice", "bob"):
        owner_rows.add(store, name, owner_tokens.token_hash(owner_tokens.new_token()))
    yield store
    store.close()


def claim(ledger: Ledger, owner: int, name: str) -> int:
    """Queue an upload under ``name`` for the owner, as the web API does (claiming the name)."""
    return submission_rows.add(ledger, 1, owner, name, f"{name}.py", f"{name}.py", b"x")


@pytest.mark.parametrize("lookalike", ["Alice-Lemur", "ALICE_LEMUR", "alice.lemur"])
def test_a_bot_name_reading_as_another_owners_is_refused_naming_it(ledger, lookalike):
    """Attack: bob claims a name that reads as alice's `alice-lemur`; refused, naming it; nothing is queued."""
    claim(ledger, 1, "alice-lemur")
    with pytest.raises(NameTaken, match=f"^the bot name '{lookalike}' reads as 'alice-lemur', another owner's"):
        claim(ledger, 2, lookalike)
    assert [row["name"] for row in submission_rows.of_owner(ledger, 2, 10, 0)[0]] == []


@pytest.mark.parametrize("lookalike", ["LEMUR-PRO", "lemur_pro"])
def test_look_alikes_of_an_owners_name_are_refused_to_everyone_else_and_to_the_owner_too(ledger, lookalike):
    """`LEMUR-PRO` and `lemur_pro` beside alice's `lemur-pro`: bob is refused; alice is told to use her own
    spelling (two of her bots reading alike would mislead as much); `lemur-pro` itself stays hers."""
    claim(ledger, 1, "lemur-pro")
    with pytest.raises(NameTaken, match="reads as 'lemur-pro', another owner's"):
        claim(ledger, 2, lookalike)
    with pytest.raises(NameTaken, match="reads as 'lemur-pro', which is yours: submit under that name"):
        claim(ledger, 1, lookalike)
    assert claim(ledger, 1, "lemur-pro") and owner_rows.bots_of(ledger, 1) == ["lemur-pro"]


def test_a_bot_name_reading_as_the_operators_is_refused(ledger, tmp_path):
    """A name the league runs itself (a bot the operator listed or played) cannot be claimed in any spelling."""
    ledger.ensure_bot("random_bot", "0" * 64, "python")
    for lookalike in ("Random-Bot", "RANDOM.BOT", "random bot"):
        with pytest.raises(NameTaken, match=f"'{lookalike}' reads as 'random_bot', a bot this league runs itself"):
            claim(ledger, 2, lookalike)
    with pytest.raises(NameTaken, match="'random_bot' is taken by a bot this league runs itself"):
        claim(ledger, 2, "random_bot")


def test_an_owner_name_reading_as_another_owners_is_refused_naming_it(ledger):
    """`Alice`, `ALICE.` beside the owner alice: refused, naming alice; alice itself says it exists already."""
    for lookalike in ("Alice", "ALICE.", "a_lice"):
        with pytest.raises(LedgerError, match=f"^the owner name '{lookalike}' reads as 'alice', an owner already"):
            owner_tokens.add(ledger, lookalike)
    with pytest.raises(LedgerError, match="an owner named 'alice' already exists"):
        owner_tokens.add(ledger, "alice")


def test_the_operator_cannot_list_a_bot_under_an_owners_name_in_any_spelling(ledger):
    """`ladder submit --as` a name that is, or reads as, an owner's bot name is refused before any validation game
    (only the owner's uploads list it); the name the worker lists for its owner goes through."""
    claim(ledger, 1, "lemur-pro")
    for name in ("lemur-pro", "Lemur_Pro"):
        with pytest.raises(NameTaken, match="'lemur-pro'"):
            ladder.submit(ledger, "spring", SHIPPED / "random_bot.py", name, ladder.Limits())
    with pytest.raises(NameTaken):  # the listing itself checks too, in its own transaction
        ladder_rows.submit(ledger, 1, "LEMUR.PRO", "1" * 64, "python", "x.py", b"")
    assert ladder_rows.submit(ledger, 1, "lemur-pro", "1" * 64, "python", "x.py", b"", owner_id=1).new


def test_the_cli_refuses_look_alike_names_in_one_line(tmp_path):
    """`tourney users add` and `tourney ladder submit --as` refuse a look-alike with one line naming the name
    it reads as, and exit 1."""
    db = str(tmp_path / "league.db")
    assert cli.invoke("users", "add", "alice-lemur", "--db", db).exit_code == 0
    refused = cli.invoke("users", "add", "Alice.Lemur", "--db", db)
    assert refused.exit_code == 1
    assert refused.output == "error: the owner name 'Alice.Lemur' reads as 'alice-lemur', an owner already: pick " \
                             "another name\n"
    store = Ledger(db)
    ladder_rows.create(store, "spring", "lemur-tails", 2)
    claim(store, 1, "lemur-pro")
    store.close()
    listed = cli.invoke("ladder", "submit", "spring", str(SHIPPED / "random_bot.py"), "--as", "LEMUR-PRO", "--db", db)
    assert listed.exit_code == 1 and listed.output == (
        "error: the bot name 'LEMUR-PRO' reads as 'lemur-pro', the owner 'alice-lemur''s: pick another name\n")


def test_revision_0010_gives_existing_names_their_form_first_claimed_first(backend):
    """Upgrading a database of revision 0009 whose owners and bot names already read alike: the first claimed
    holds the form, a later look-alike keeps working under its exact spelling, and a new look-alike is refused."""
    store = Ledger(backend.url)
    store.downgrade("0009")
    with store.engine.begin() as connection:
        for name in ("bob", "Bob"):
            connection.execute(text("INSERT INTO owners (name, token_hash, created_at) VALUES (:name, :hash, :at)"),
                               {"name": name, "hash": f"hash-{name}", "at": "2026-01-01T00:00:00+00:00"})
        for name, claimed in (("lemur-pro", "01"), ("Lemur_Pro", "02")):
            connection.execute(text("INSERT INTO bot_owners (name, owner_id, claimed_at) VALUES (:name, 1, :at)"),
                               {"name": name, "at": f"2026-01-{claimed}T00:00:00+00:00"})
    store.upgrade()
    with store.read() as connection:
        forms = dict(connection.exec_driver_sql("SELECT name, name_form FROM bot_owners").all())
        owner_forms = dict(connection.exec_driver_sql("SELECT name, name_form FROM owners").all())
    assert forms == {"lemur-pro": "lemurpro", "Lemur_Pro": None}
    assert owner_forms == {"bob": "bob", "Bob": None}
    ladder_rows.create(store, "spring", "lemur-tails", 2)
    assert claim(store, 1, "Lemur_Pro")  # still its owner's, under its own spelling
    with pytest.raises(NameTaken, match="reads as 'lemur-pro'"):
        claim(store, 2, "LEMUR-PRO")
    with pytest.raises(LedgerError, match="reads as 'bob'"):
        owner_tokens.add(store, "BOB")
    store.close()
