"""``grove_v0`` is outdated: use :mod:`grove_env.grove_v1`.

Kept importable in PettingZoo's way for outdated versions
(``pettingzoo.utils.deprecated_module``): the module still imports, and its ``env``
and ``raw_env`` raise PettingZoo's :class:`~pettingzoo.utils.deprecated_module.DeprecatedEnv`
(an ``ImportError``) saying what changed.

>>> from grove_env import grove_v0
>>> try:
...     grove_v0.env(num_players=3)
... except ImportError as error:
...     print(type(error).__name__, str(error).split(":")[0])
DeprecatedEnv grove_v0 is outdated, use grove_env.grove_v1 (from grove_env import grove_v1)
"""

from __future__ import annotations

from typing import Any, NoReturn

from pettingzoo.utils.deprecated_module import DeprecatedEnv

MESSAGE = (
    "grove_v0 is outdated, use grove_env.grove_v1 (from grove_env import grove_v1): "
    "its infos are flat and fixed-shape (round_result, ended_by as seats and "
    "illegal_action_by as a name are gone) and the action mask is in the observation only"
)


def env(*args: Any, **kwargs: Any) -> NoReturn:
    """Raise :class:`DeprecatedEnv`: ``grove_v0`` is outdated."""
    raise DeprecatedEnv(MESSAGE)


raw_env = env
