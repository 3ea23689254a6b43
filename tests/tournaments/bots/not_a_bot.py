"""A helper module beside the bots: no GAMES, no Bot, so tourney skips it with a notice."""

ANSWER = 42
