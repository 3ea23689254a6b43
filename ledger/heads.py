"""The ledger key and the heads it signs: the key checked against the public key the database
holds (made the first time a ledger needs it), and the heads of games stored before ledger keys
signed by `tourney db sign`.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.engine import Connection

from ledger import dialect, signing_keys
from ledger.errors import LedgerError
from ledger.opening import Opened, now


class HeadSigning(Opened):
    """The ledger's key and its signatures (a mixin of ledger.store.Ledger, over its connections)."""

    def public_key(self, connection: Connection | None = None) -> bytes | None:
        """The ledger's public key as stored in the database (None: written before ledger keys)."""
        found = self.key_row(connection)
        return None if found is None else found[0]

    def key_row(self, connection: Connection | None = None) -> tuple[bytes, int] | None:
        """(the ledger's public key, the first store_seq it signed), or None before ledger keys."""
        if connection is None:
            with self.read() as connection:
                return self.key_row(connection)
        rows = connection.execute(text("SELECT public_key, signs_from FROM ledger_keys ORDER BY id")).fetchall()
        if len(rows) > 1:
            raise LedgerError(f"database {self.where} names {len(rows)} ledger keys; a ledger has one")
        return (bytes.fromhex(rows[0][0]), rows[0][1]) if rows else None

    def signing_key(self, connection: Connection | None = None) -> signing_keys.LedgerKey:
        """The ledger's private key, checked against the public key the database holds.

        The first time a ledger needs it, the key is made at ``key_path`` (or the file found
        there is adopted) and its public half stored. LedgerError, before anything is written,
        if there is no place for a key, or the file there is not this ledger's. Writers call it
        once before they store anything; inside a caller's transaction (``connection``) the
        check is not remembered, since that transaction may yet roll back.
        """
        if self._key is not None:
            return self._key
        if connection is not None:
            return self._checked_key(connection)
        with self.write() as connection:
            key = self._checked_key(connection)
        self._key = key
        return key

    def _checked_key(self, connection: Connection) -> signing_keys.LedgerKey:
        self._writable()
        if self.key_path is None:
            raise LedgerError(f"database {self.where} is not a file, so it has no default ledger key: give "
                              f"--ledger-key PATH (or ${signing_keys.ENV_VAR})")
        stored = self.public_key(connection)
        if stored is not None and not self.key_path.exists():
            raise LedgerError(f"the ledger key of {self.where} (fingerprint {signing_keys.fingerprint(stored)}) is not "
                              f"at {self.key_path}: give its path with --ledger-key (or ${signing_keys.ENV_VAR})")
        try:
            key, _made = signing_keys.open_or_create(self.key_path)
        except signing_keys.KeyFileError as error:
            raise LedgerError(f"ledger key: {error}") from None
        if stored is None:
            connection.execute(text(
                "INSERT INTO ledger_keys (public_key, signs_from, created_at) "
                f"VALUES (:public_key, {dialect.NEXT_STORE_SEQ}, :created_at)"),
                {"public_key": key.public.hex(), "created_at": now()})
        elif stored != key.public:
            raise LedgerError(f"the ledger key at {self.key_path} (fingerprint {key.fingerprint}) is not the key of "
                              f"{self.where} (fingerprint {signing_keys.fingerprint(stored)})")
        return key

    def sign_stored_heads(self) -> int:
        """Sign the head of every finished game that has no signature (written before ledger keys); how many.

        Only `tourney db sign` calls it, after verifying every game: a signature vouches for a
        game as it is when signed.
        """
        key = self.signing_key()
        with self.write() as connection:
            unsigned = connection.execute(text(
                "SELECT id, head FROM games WHERE status = 'finished' AND signature IS NULL")).fetchall()
            if unsigned:
                connection.execute(text("UPDATE games SET signature = :signature WHERE id = :id"),
                                   [{"signature": key.sign(signing_keys.log_message(game_id, head)), "id": game_id}
                                    for game_id, head in unsigned])
        return len(unsigned)
