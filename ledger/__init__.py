"""The event store: SQLModel tables, canonical JSON, the hash chain, append and read.

The ledger knows no game: it stores opaque canonical event payloads and checks their
chain. Nothing here imports engines/, tournaments/ or replays/.
"""
