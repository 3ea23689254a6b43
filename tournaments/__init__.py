"""Bots, the bot protocol, schedules, the tournament runner, ratings, ladders and the CLI."""
