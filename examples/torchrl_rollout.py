"""TorchRL's ``PettingZooWrapper`` over the AEC environment, with one masked policy for every seat.

    pip install "grove-env[suites]"
    python examples/torchrl_rollout.py --steps 2000

The wrapper puts the four seats in one group (``agents``) and turns the observation's
``action_mask`` into ``("agents", "action_mask")``; a small MLP gives logits for every
seat and TorchRL's ``MaskedCategorical`` samples only legal moves (in an AEC game the
wrapper plays the move of the seat to act). The infos (``grove_v1``'s fixed-shape
entries) arrive as ``("agents", "info", key)``. The script rolls the policy out and
checks what it collected: every move legal, and each finished game's rewards
summing to zero over the seats.
"""

from __future__ import annotations

import argparse
import sys
import warnings

import torch
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import MarlGroupMapType
from torchrl.modules import MaskedCategorical, ProbabilisticActor

from grove_env import OBS_SIZE, grove_v1


def make_env(players: int, seed: int) -> PettingZooWrapper:
    with warnings.catch_warnings():  # TorchRL warns about PettingZoo versions it did not test
        warnings.simplefilter("ignore", UserWarning)
        return PettingZooWrapper(
            grove_v1.env(num_players=players),
            use_mask=True,
            categorical_actions=True,
            group_map=MarlGroupMapType.ALL_IN_ONE_GROUP,
            seed=seed,
        )


def make_policy(env: PettingZooWrapper, hidden: int = 64) -> ProbabilisticActor:
    n_actions = env.full_action_spec["agents", "action"].space.n
    net = nn.Sequential(nn.Linear(OBS_SIZE, hidden), nn.Tanh(), nn.Linear(hidden, n_actions))
    module = TensorDictModule(
        net, in_keys=[("agents", "observation", "observation")], out_keys=[("agents", "logits")]
    )
    return ProbabilisticActor(
        module,
        in_keys={"logits": ("agents", "logits"), "mask": ("agents", "action_mask")},
        out_keys=[("agents", "action")],
        distribution_class=MaskedCategorical,
        spec=env.full_action_spec,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    env = make_env(args.players, args.seed)
    policy = make_policy(env)
    with torch.no_grad():
        rollout = env.rollout(args.steps, policy, break_when_any_done=False)
    actions = rollout["agents", "action"]
    masks = rollout["agents", "action_mask"]
    acting = rollout["agents", "mask"]  # the seat to act in each step
    legal = masks.gather(-1, actions.unsqueeze(-1)).squeeze(-1)
    assert legal[acting].all(), "a masked move was played"
    rewards = rollout["next", "agents", "reward"].squeeze(-1)
    done = rollout["next", "done"].squeeze(-1)
    game = torch.cumsum(done.long(), 0) - done.long()  # game index of each step
    totals = torch.zeros(int(game.max()) + 1, args.players).index_add_(0, game, rewards)
    finished = totals[: int(done.sum())]
    print(
        f"{args.steps} moves, {len(finished)} games finished; mean return per seat "
        f"{[round(float(x), 3) for x in finished.mean(0)]}; largest |sum over seats| "
        f"{float(finished.sum(1).abs().max()) if len(finished) else 0.0:.2g}; "
        f"longest game {int(rollout['next', 'agents', 'info', 'round'].max())} rounds"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
