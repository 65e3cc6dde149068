"""``python -m grove_env.web``: the same as ``grove-web``."""

import sys

from grove_env.web.cli import main

if __name__ == "__main__":
    sys.exit(main())
