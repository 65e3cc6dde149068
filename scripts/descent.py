"""Moved: exploitability descent is a training method of ``train.py`` / ``grove-train``.

A config's ``descent:`` section (:mod:`grove_env.training.config.descent`) makes a run a
descent run, with a run directory, a lock, ``run.json`` and ``--resume``::

    grove-train --config configs/descent/revised_2p.yaml [--set run_dir=OUT]

This shim keeps the old command working for one release: ``--config C --out OUT`` runs
``grove-train --config C --set run_dir=OUT`` (and each ``--set`` passed on), after saying so.
"""

from __future__ import annotations

import argparse
import sys

from grove_env.training.cli import main as train_main


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", required=True, help="a config with a descent: section")
    p.add_argument("--out", required=True, help="the run directory (a new folder)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    args = p.parse_args(argv)
    sets = [word for item in [*args.overrides, f"run_dir={args.out}"] for word in ("--set", item)]
    print(
        f"scripts/descent.py moved: grove-train --config {args.config} {' '.join(sets)}",
        file=sys.stderr,
    )
    return train_main(["--config", args.config, *sets])


if __name__ == "__main__":
    sys.exit(main())
