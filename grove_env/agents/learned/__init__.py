"""Trained and solved policies, and the files they live in.

- :mod:`.actor`: the policy's actor as a plain torch module; masked action choice.
- :mod:`.policy_net`: the network rebuilt from a card, and its input features.
- :mod:`.safe_policy`: the safe policy format (weights without pickle, a JSON card).
- :mod:`.policy_files`: where a run keeps its policies; the error for a bad file.
- :mod:`.ppo`: ``ppo:RUN``, a policy trained by ``train.py`` (its run directory).
- :mod:`.sb3`: ``sb3:PATH``, a raw stable-baselines3 zip (loading it can run code).
- :mod:`.cfr_agent`: ``cfr``, a solved strategy read from plain arrays.

Imports: :mod:`grove_env.agents.base`, :mod:`~grove_env.agents.views`,
:mod:`~grove_env.agents.scripted`, :mod:`~grove_env.agents.heuristic` (the advice
features) and the game layer.
"""
