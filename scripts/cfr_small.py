"""Store a whole-game ``cfr`` strategy's probabilities out of 255 (``uint8``), not 65535.

    python scripts/cfr_small.py cfr_revised_3p_game.npz grove_env/data/cfr_revised_3p_game.npz

The file is about half the size (revised 3p: 64 to 31 MB): each triple is rounded by
largest remainders (:func:`grove_env.analysis.game_solver.rounded`), so it still sums
to the scale. The whole-game NashConv of the new file is then measured exactly, as the
``cfr`` agent plays it, and added to its note; the command prints it. ``solve
--whole-game --small`` stores a new solution this way from the start; this script is
for one already solved (the stages' time limits make a second solve differ).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from grove_env.agents.cli.command_line import CommandError, Parser, run_command
from grove_env.agents.learned.cfr_agent import PROB_SCALE, PROB_SCALE_SMALL
from grove_env.analysis import nash_conv
from grove_env.analysis.game_solver import rounded

PROG = "scripts/cfr_small.py"


def parser() -> Parser:
    p = Parser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("source", help="a whole-game strategy file (uint16 probabilities)")
    p.add_argument("out", help="the .npz to write (not the source)")
    return p


def read(source: str) -> dict[str, np.ndarray]:
    try:
        with np.load(source, allow_pickle=False) as files:
            arrays = {name: files[name] for name in files.files}
    except (OSError, ValueError) as exc:
        raise CommandError(f"cannot read {source!r}: {exc}") from None
    if "stage" not in arrays:
        raise CommandError(f"{source!r} is a round strategy, not a whole-game one")
    if arrays["probs"].dtype != np.uint16:
        raise CommandError(f"{source!r} stores {arrays['probs'].dtype}, not uint16")
    return arrays


def smaller(arrays: dict[str, np.ndarray]) -> np.ndarray:
    """The probabilities out of 255, stage strategy by stage strategy."""
    probs = arrays["probs"]
    out = np.empty(probs.shape, np.uint8)
    for u in range(len(probs)):
        out[u] = rounded([probs[u].astype(np.float64) / PROB_SCALE], PROB_SCALE_SMALL)[0]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)

    def body() -> int:
        out = Path(args.out)
        if out.suffix != ".npz" or out.resolve() == Path(args.source).resolve():
            raise CommandError(f"out names a new .npz file, got {args.out!r}")
        if not out.parent.is_dir():
            raise CommandError(f"the folder of {args.out!r} does not exist")
        arrays = read(args.source)
        rules, players = str(arrays["table"]).split()
        arrays["probs"] = smaller(arrays)
        np.savez_compressed(out, **arrays)
        start = time.perf_counter()
        measured = nash_conv(
            f"cfr:{out}", rules, int(players), whole_game=True, max_rounds=int(arrays["max_rounds"])
        ).nash_conv
        arrays["note"] = np.array(
            f"{arrays['note']}; probabilities stored x{PROB_SCALE_SMALL} by {PROG}: "
            f"NashConv {measured:.2e} outcome"
        )
        np.savez_compressed(out, **arrays)
        print(
            f"{rules} {players}p: {out} ({out.stat().st_size / 1e6:.1f} MB), probabilities "
            f"x{PROB_SCALE_SMALL}: whole-game NashConv {measured:.6f} outcome "
            f"(measured in {time.perf_counter() - start:.0f} s)"
        )
        return 0

    return run_command(PROG, body)


if __name__ == "__main__":
    sys.exit(main())
