"""``python -m grove_env.training.sweep``: the same as ``grove-sweep``."""

import sys

from grove_env.training.sweep.cli import main

if __name__ == "__main__":
    sys.exit(main())
