"""``grove-sweep``: tune a training config's settings for exact NashConv, resumably.

    grove-sweep configs/sweeps/revised_2p.yaml              # the trials still missing
    grove-sweep configs/sweeps/revised_2p.yaml --trials 5   # at most 5 of them now
    grove-sweep configs/sweeps/revised_2p.yaml --fresh      # then the best on fresh seeds
    grove-sweep configs/sweeps/revised_2p.yaml --trials 0   # only the table
    grove-sweep configs/sweeps/revised_2p.yaml --trials 0 \
        --from-record docs/results/data/sweeps/revised-2p.json  # a lost study, from its record

Every run of the command trains the trials the study still lacks (``trials`` in the
sweep file), then writes ``<folder>/sweep.md`` (the ranked table and what mattered),
``<folder>/best-<rank>.yaml`` (the best settings as training configs) and, with
``--json``, the whole result (:func:`~grove_env.training.sweep.report.sweep_result`).
``--fresh`` re-runs the ``top`` best settings on ``fresh_seeds`` (with ``fresh_set``)
and adds their curves (``<folder>/fresh.png``, and ``--png``: NashConv against steps
and wall time, median and range over the seeds). Ctrl-C stops it with a
checkpoint; the same command goes on from there. The study lives under ``runs/``; where
it was lost (a new machine, a clean checkout), ``--from-record`` rebuilds it from the
sweep's recorded result before anything else, so the command goes on with the trials
the record lacks (the trials' run directories are not in the record: a re-run of
``--fresh`` trains the fresh seeds again).

Exit codes: 0 done; 1 a run error; 2 a bad sweep file or command line; 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from grove_env.agents.cli.command_line import Parser
from grove_env.training.config import ConfigError, ConfigFileError
from grove_env.training.run.directory import RunDirError, atomic_write_text
from grove_env.training.sweep.spec import Sweep, load_sweep

try:  # Optuna is the sweep extra: without it the command says so in one line
    from grove_env.training.sweep.report import (
        best_configs,
        plot_fresh,
        sweep_result,
        sweep_table,
    )
    from grove_env.training.sweep.study import (
        TrialError,
        TrialInterrupted,
        fresh_runs,
        open_study,
        restore,
        run_sweep,
    )

    MISSING = None
except ModuleNotFoundError as e:
    if e.name != "optuna":
        raise
    MISSING = e.name

EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 1, 2, 130


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = Parser(prog="grove-sweep", description=__doc__.split("\n\n")[0].strip("`"),
                    label="usage error")  # fmt: skip
    parser.add_argument("sweep", help="sweep file (configs/sweeps/*.yaml)")
    parser.add_argument(
        "--trials",
        type=int,
        default=None,
        help="train at most this many of the missing trials now (0: none)",
    )
    parser.add_argument(
        "--fresh", action="store_true", help="re-run the best settings on the sweep's fresh seeds"
    )
    parser.add_argument(
        "--from-record",
        default=None,
        metavar="JSON",
        help="first rebuild an empty study from a recorded result (a --json file, or its "
        "record in docs/results/data/sweeps): its completed trials, under their numbers",
    )
    parser.add_argument("--json", default=None, help="write the whole result here")
    parser.add_argument("--png", default=None, help="also draw the fresh seeds' curves here")
    args = parser.parse_args(argv)
    if args.trials is not None and args.trials < 0:
        parser.error("--trials is 0 or more")
    return args


def main(argv: list[str] | None = None) -> int:
    try:
        args = parse_args(argv)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else EXIT_USAGE
    if MISSING:
        print(f"error: grove-sweep needs {MISSING} (pip install 'grove-env[sweep]')",
              file=sys.stderr)  # fmt: skip
        return EXIT_ERROR
    try:
        sweep = load_sweep(args.sweep)
        if args.from_record:
            from_record(sweep, args.from_record)
        study = run_sweep(sweep, args.trials)
        fresh = fresh_runs(sweep, study) if args.fresh else None
        result = sweep_result(sweep, study, fresh)
        atomic_write_text(sweep.folder / "sweep.md", sweep_table(result))
        for path in best_configs(sweep, study):
            print(f"wrote {path}")
        for png in [sweep.folder / "fresh.png", *([args.png] if args.png else [])]:
            if fresh:
                plot_fresh(fresh, Path(png), f"sweep {sweep.spec.name}: fresh seeds")
        if args.json:
            atomic_write_text(args.json, json.dumps(result, indent=1) + "\n")
        print(sweep_table(result), end="")
        return 0
    except (ConfigFileError, RunDirError, OSError, TrialError) as e:
        return _fail(e, EXIT_ERROR)
    except ConfigError as e:
        return _fail(e, EXIT_USAGE)
    except (TrialInterrupted, KeyboardInterrupt):
        print("interrupted: run the same command to go on", file=sys.stderr)
        return EXIT_INTERRUPTED


def from_record(sweep: Sweep, path: str) -> None:
    """Rebuild the sweep's study from the record at ``path`` if the study is empty; one that
    holds trials already (the same command run again) is left as it is, and says so."""
    study = open_study(sweep)
    held = len(study.get_trials(deepcopy=False))
    if held:
        print(f"--from-record: the study already holds {held} trials; {path} is not read "
              "into it", file=sys.stderr)  # fmt: skip
        return
    restored = restore(sweep, study, read_record(path))
    print(f"restored {restored} trials from {path}", flush=True)


def read_record(path: str) -> dict:
    """The sweep result in a JSON file (a ``--json`` file, or a record that keeps it as its
    ``result``; plain JSON, nothing else is loaded), or a one-line error."""
    try:
        data = json.loads(Path(path).read_text())
    except json.JSONDecodeError as e:
        raise ConfigError(
            f"--from-record: {path!r} is not JSON ({e.msg}, line {e.lineno})"
        ) from None
    result = data.get("result", data) if isinstance(data, dict) else None
    if not isinstance(result, dict):
        raise ConfigError(f"--from-record: {path!r} holds no sweep result")
    return result


def _fail(e: Exception, code: int) -> int:
    kind = "config error" if code == EXIT_USAGE else "error"
    print(f"{kind}: {' '.join(str(e).split())}", file=sys.stderr)
    return code
