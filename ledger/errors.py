"""The ledger's base error, in a module of its own so that every ledger module may raise it (ledger.store
re-exports it, where callers have always imported it from)."""


class LedgerError(Exception):
    """A ledger failure a user can act on; the message is one clear line."""
