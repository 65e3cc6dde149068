"""Train a policy by exploitability descent on the exact round tree (no samples, no imitation).

    python scripts/descent.py --config configs/zoo/revised_2p.yaml --out runs/descent-revised-2p
        [--iterations 2000] [--lr 0.003] [--lr-end 0.02] [--report-every 25] [--other-states]

The config gives the table (``rules``, ``num_players``: one table) and the network
(``net_arch``, ``activation``, ``features``, ``seed``); its PPO settings are not read.
:mod:`grove_env.training.descent` says what an iteration is. Written to ``--out`` (a new
folder):

- ``best_policy.json``/``.pt``: the lowest-NashConv weights, safe format, playing by
  sampling (``play: sample``); ``ppo:OUT`` plays them in tournaments, the gauntlet and
  the analysis;
- ``descent.csv``: ``iteration,nash_conv_round,seconds`` at every measurement;
- ``result.json``: the settings, the iteration kept, and the kept policy's exact NashConv
  as it plays (one round in markers; at two players the whole game in outcome units).

With ``--other-states`` each iteration also descends on the round at one later public
state of the game (drawn at random), so that the rounds after the first are trained too.
A bad config or an existing ``--out`` is one line on stderr (exit code 2).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

from grove_env.agents.learned.policy_files import BEST_POLICY
from grove_env.agents.learned.safe_policy import save_policy
from grove_env.analysis.measure import round_tree
from grove_env.rules import get_rules
from grove_env.training import checkpoint
from grove_env.training.batched.model import ActorCritic
from grove_env.training.config import ConfigError, load_config
from grove_env.training.descent import DescentReport, descend, lowest, other_states
from grove_env.training.evaluate import final_nash_conv, nash_conv_line


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", required=True, help="a training config: table and network")
    p.add_argument("--out", required=True, help="a new folder for the policy and its figures")
    p.add_argument("--iterations", type=int, default=2000)
    p.add_argument("--lr", type=float, default=0.003)
    p.add_argument("--lr-end", type=float, default=0.02, help="final step size, as a fraction")
    p.add_argument("--report-every", type=int, default=25, help="iterations per NashConv")
    p.add_argument(
        "--other-states",
        action="store_true",
        help="also descend on the round at the later public states (one drawn per iteration)",
    )
    args = p.parse_args(argv)
    out = Path(args.out)
    try:
        cfg = load_config(args.config).model_copy(update={"play": "sample"})
        tables = cfg.table_list()
        if len(tables) != 1:
            raise ConfigError(f"exploitability descent trains one table, the config has {tables}")
        if out.exists():
            raise ConfigError(f"{str(out)!r} already exists")
        ((rules, n),) = tables
        torch.manual_seed(cfg.seed)
        torch.set_num_threads(cfg.torch_threads)
        actor = ActorCritic(checkpoint.policy_card(cfg, 0)).actor
        tree = round_tree(get_rules(rules), n)
        descend(actor, tree, 0, args.lr, args.lr_end, args.report_every)  # checks the settings
    except (ConfigError, ValueError) as e:
        print(f"descent: {e}", file=sys.stderr)
        return 2
    out.mkdir(parents=True)
    began = time.perf_counter()
    log = (out / "descent.csv").open("w")
    log.write("iteration,nash_conv_round,seconds\n")

    def report(r: DescentReport) -> None:
        log.write(f"{r.iteration},{r.nash_conv:.6f},{r.seconds:.1f}\n")
        log.flush()
        line = f"iteration {r.iteration}: NashConv {r.nash_conv:.4f} ({r.seconds:.0f} s)"
        print(line, flush=True)

    also = other_states(actor, get_rules(rules), n, cfg.max_rounds) if args.other_states else []
    if also:
        print(f"{len(also)} later public states, one drawn per iteration", flush=True)
    reports = descend(
        actor,
        tree,
        args.iterations,
        args.lr,
        args.lr_end,
        args.report_every,
        on_report=report,
        also=also,
        seed=cfg.seed,
    )
    log.close()
    kept = lowest(reports)
    save_policy(actor, checkpoint.policy_card(cfg, kept.iteration), out / BEST_POLICY)
    measured = final_nash_conv(f"ppo:{out}", rules, n, cfg.max_rounds)
    result = {
        "config": args.config,
        "rules": rules,
        "num_players": n,
        "seed": cfg.seed,
        "iterations": args.iterations,
        "lr": args.lr,
        "lr_end": args.lr_end,
        "other_states": len(also),
        "kept_iteration": kept.iteration,
        "nash_conv": measured,
        "seconds": round(time.perf_counter() - began, 1),
    }
    (out / "result.json").write_text(json.dumps(result, indent=2) + "\n")
    print(f"kept iteration {kept.iteration}; " + nash_conv_line(measured), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
