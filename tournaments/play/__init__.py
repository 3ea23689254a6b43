"""Playing tournaments: the bot protocol's messages and agents (protocol.py), the schedule, the runner
(resume, storing), the local worker pool, and the standings read back from the ledger.

Imports engines, ledger, replays, tournaments.bots and tournaments.ratings.
"""
