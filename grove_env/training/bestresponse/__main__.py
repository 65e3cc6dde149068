"""``python -m grove_env.training.bestresponse``: a learned best response's lower bound."""

import sys

from grove_env.training.bestresponse.cli import main

if __name__ == "__main__":
    sys.exit(main())
