"""Bots: what a bot is (spec), finding them (discovery), running them in process (inprocess),
as programs speaking JSON lines (protocol), a Python bot as such a program (pyhost), and why a
bot failed (diagnosis).

Imports engines; protocol alone also starts bot processes through tournaments.sandbox (its
supervisor). Nothing of tournaments/ above it.
"""
