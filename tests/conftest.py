"""Loads the hypothesis profile named by ``HYPOTHESIS_PROFILE`` (:mod:`profiles`)."""

import profiles  # noqa: F401  (registers and loads the profiles on import)
