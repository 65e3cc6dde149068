"""What made an artefact: the versions of Python and of the packages named, written once for
the policy cards, the run directories and the recorded results.

>>> sorted(versions(["grove-env"]))
['grove-env', 'python']
"""

from __future__ import annotations

import platform
from collections.abc import Sequence
from importlib import metadata

import grove_env

MISSING = "not installed"


def versions(
    packages: Sequence[str], *, with_platform: bool = False, skip_missing: bool = False
) -> dict[str, str]:
    """``python`` (and ``platform``), then each package's installed version: ``not
    installed`` where it is missing (or left out, with ``skip_missing``); ``grove-env``
    run from a source tree without installing is the source's version."""
    out = {"python": platform.python_version()}
    if with_platform:
        out["platform"] = platform.platform()
    for name in packages:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            if name == "grove-env":
                out[name] = grove_env.__version__
            elif not skip_missing:
                out[name] = MISSING
    return out
