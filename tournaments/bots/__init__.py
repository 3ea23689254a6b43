"""Bots: what a bot is (spec), finding them (discovery), running them in process (inprocess),
as programs speaking JSON lines (protocol), and a Python bot as such a program (pyhost).

Imports engines only; nothing of tournaments/ above it.
"""
