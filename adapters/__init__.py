"""Adapters: the three games for reinforcement-learning libraries (PettingZoo, OpenSpiel).

They import engines only (docs/architecture.md) and need the ``tourney[rl]`` extra (numpy,
gymnasium, pettingzoo, open-spiel). actions.py enumerates each game's actions once, by index;
observations.py encodes a seat's view as a fixed-size vector; pettingzoo.py and openspiel.py
are the environments and games; docs/rl.md says how to train and enter a trained agent.
"""
