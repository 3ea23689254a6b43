"""Ratings and statistics from rankings: pure functions with visible defaults.

Imports nothing of the project.
"""
