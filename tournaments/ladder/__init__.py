"""League ladders: submissions, matchmaking, play and the ratings folded from the ledger.

Imports engines, ledger, replays, tournaments.bots, tournaments.play and tournaments.ratings.
"""
