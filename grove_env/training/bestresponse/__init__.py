"""A learned best response: PPO against a frozen policy, a lower bound on its NashConv.

Where the exact NashConv is out of reach (the whole game beyond three players, one round
beyond four), the field's answer is to train a best response against the frozen policy
and measure what it gains: each seat's gain is a lower bound on that seat's exact gain
(the best response is one response among all), so their sum is a lower bound on the
NashConv. The front door trains it (:func:`grove_env.training.front.train`: a run
directory like any run's, with the policy under test as ``opponents.agents``).

=====================  ===============================================================
:mod:`.plan`           what is asked (the table, the policy, the budget) checked, and
                       the training config of the best response
:mod:`.evaluate`       each seat's value in fresh games: the best response against the
                       policy, and the policy against itself, with their intervals
:mod:`.report`         the gains, their sum, the exact figure beside it; JSON and text
:mod:`.cli`            ``python -m grove_env.training.bestresponse``
=====================  ===============================================================

One network learns every seat (``learner_seat: rotate``: the observation puts the
observer first, so a seat's information sets are its own) and is then evaluated seat by
seat. Sits above :mod:`grove_env.training.front` and may import every part of the
training package; nothing in it imports this.
"""
