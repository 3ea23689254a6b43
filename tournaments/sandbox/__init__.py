"""How a bot is contained: the bubblewrap sandbox (sandbox), a cgroup per sandbox per game
(cgroups), the seccomp filter (seccomp), warm sandboxes (warm, and zygote inside them), what a
game's bot gets inside (inside), Ctrl-C held while a process starts (interrupts).

Imports tournaments.bots.spec (what a bot's limits are), the hosts the sandbox runs inside it
(tournaments.bots.inprocess, tournaments.bots.pyhost) and engines (its folder is bound into the
sandbox); nothing of play/ or ladder/. This file imports nothing: the zygote imports a module of
this package inside every warm sandbox.
"""
