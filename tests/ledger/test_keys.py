"""The ledger key: outside the database, mode 0600, its public half stored; signs every stored game's head.

The tests that use the ``ledger`` fixture run on every backend (tests/backends.py); on PostgreSQL the key is
where $TOURNEY_LEDGER_KEY says.
"""

from __future__ import annotations

import stat

import pytest

from ledger import signing_keys
from ledger.chain import Chain
from ledger.store import Ledger, LedgerError, SeatRow
from tests.backends import opened_ledger


@pytest.fixture
def ledger(backend):
    yield from opened_ledger(backend)


def stored_game(ledger: Ledger, game_id: str = "g1") -> str:
    chain = Chain(game_id)
    records = [chain.seal("game_started", {"n": 1}), chain.seal("game_ended", {"ranking": [1]})]
    bot = ledger.ensure_bot("bot", "0" * 64, "python")
    return ledger.store_game({"id": game_id, "game": "toy", "engine_version": 1, "config": "{}",
                              "seed_commitment": "c"}, records, "s", "finished", [SeatRow(0, bot, 1, None)])


def test_the_first_stored_game_makes_the_key_where_it_belongs(ledger, backend):
    """Storing a game makes the key (mode 0600: <db>.key beside an SQLite file) and its .pub, stores the public
    key, and signs the head."""
    head = stored_game(ledger)
    assert stat.S_IMODE(backend.key.stat().st_mode) == 0o600
    assert signing_keys.load_public(backend.key.with_suffix(".pub")) == ledger.public_key()
    signature = ledger.game("g1")["signature"]
    assert signing_keys.signature_holds(ledger.public_key(), signature, signing_keys.log_message("g1", head))
    assert not signing_keys.signature_holds(ledger.public_key(), signature, signing_keys.log_message("g1", "0" * 64))
    assert ledger.key_path == backend.key
    if backend.path is not None:  # the private key's bytes are nowhere in the database file
        assert backend.key.read_bytes() not in backend.path.read_bytes()


def test_a_ledger_key_given_by_path_or_environment(tmp_path, monkeypatch):
    """--ledger-key (or TOURNEY_LEDGER_KEY) puts the key elsewhere; a database that is not a file needs one."""
    explicit = Ledger(str(tmp_path / "a.db"), ledger_key=tmp_path / "elsewhere.key")
    assert explicit.signing_key().path == tmp_path / "elsewhere.key" and (tmp_path / "elsewhere.pub").exists()
    monkeypatch.setenv(signing_keys.ENV_VAR, str(tmp_path / "from-env.key"))
    assert Ledger(str(tmp_path / "b.db")).key_path == tmp_path / "from-env.key"
    monkeypatch.delenv(signing_keys.ENV_VAR)
    with pytest.raises(LedgerError, match="is not a file, so it has no default ledger key"):
        Ledger("sqlite://").signing_key()


def test_a_missing_or_foreign_key_file_is_refused_before_anything_is_written(ledger, backend, tmp_path):
    """Once a ledger has a key, writing without its file, or with another key's, is refused naming both."""
    stored_game(ledger)
    fingerprint = signing_keys.fingerprint(ledger.public_key())
    ledger.close()
    backend.key.rename(tmp_path / "moved.key")
    with pytest.raises(LedgerError, match=f"fingerprint {fingerprint}.* is not at"):
        Ledger(backend.url).signing_key()
    signing_keys.new_keys(backend.key, tmp_path / "other.pub")
    with pytest.raises(LedgerError, match=f"is not the key of .*{fingerprint}"):
        Ledger(backend.url).signing_key()
    moved = Ledger(backend.url, ledger_key=tmp_path / "moved.key")
    assert stored_game(moved, "g2") and moved.signing_key().fingerprint == fingerprint


def test_signatures_of_heads_and_checkpoints_are_domain_separated(tmp_path):
    """A head's signature never passes for a checkpoint's, nor one game's for another's."""
    key, _ = signing_keys.open_or_create(tmp_path / "l.key")
    head = key.sign(signing_keys.log_message("g", "ab"))
    assert signing_keys.signature_holds(key.public, head, signing_keys.log_message("g", "ab"))
    assert not signing_keys.signature_holds(key.public, head, signing_keys.log_message("h", "ab"))
    assert not signing_keys.signature_holds(key.public, head, signing_keys.checkpoint_message("tournament", "g", 1,
                                                                                              "ab", "open"))
    assert not signing_keys.signature_holds(key.public, None, signing_keys.log_message("g", "ab"))


def test_secrets_depend_on_the_key_and_the_nonce_only(tmp_path):
    """The same key and nonce give the same 256-bit secret; another nonce or another key, another."""
    one, _ = signing_keys.open_or_create(tmp_path / "one.key")
    again, made = signing_keys.open_or_create(tmp_path / "one.key")
    other, _ = signing_keys.open_or_create(tmp_path / "other.key")
    assert not made
    secret = one.secret("label", b"n" * 32)
    assert len(secret) == 64 and secret == again.secret("label", b"n" * 32)
    assert secret not in (one.secret("label", b"m" * 32), other.secret("label", b"n" * 32),
                          one.secret("other label", b"n" * 32))


def test_the_ledger_key_only_signs_from_where_it_was_made(ledger):
    """signs_from records the first game number the key signed: earlier games may be unsigned, later ones not."""
    stored_game(ledger, "g1")
    assert ledger.key_row()[1] == 1
    assert ledger.game("g1")["store_seq"] == 1 and stored_game(ledger, "g2")
    assert ledger.game("g2")["store_seq"] == 2
