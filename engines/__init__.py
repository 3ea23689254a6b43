"""Pure game rules: one module per game, folded from events (see engines.base)."""
