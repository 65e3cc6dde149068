"""Hypothesis profiles: ``default`` for the suite, ``soak`` for the long run on request.

``HYPOTHESIS_PROFILE=soak`` raises every property test to at least 100,000 examples
(:func:`examples`), which is the soak of ``tests/game/test_properties.py``: 100,000 random
games through the env, every invariant checked at every step. ``tests/conftest.py``
loads the profile before any test module is collected.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

SOAK_EXAMPLES = 100_000

settings.register_profile(
    "soak",
    max_examples=SOAK_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def examples(quick: int) -> int:
    """A test's example count: ``quick`` in the suite, the profile's count if higher."""
    return max(quick, settings.default.max_examples)
