"""The OpenSpiel registration played through the PettingZoo API with Shimmy.

    pip install "grove-env[openspiel]"
    python examples/openspiel_shimmy.py --games 20

Importing :mod:`grove_env.openspiel` registers ``python_grove`` with ``pyspiel``.
Shimmy's ``OpenSpielCompatibilityV0`` turns an OpenSpiel game into a PettingZoo AEC
env: chance nodes (the deals) are sampled inside it, the observation is OpenSpiel's
observation tensor and the legal moves arrive as ``info["action_mask"]``. Its
``reset()`` loads the game again by its short name with ``config``, so a game's
parameters must go through ``config=`` (a game passed as ``env=`` would come back with
the defaults, two players, on the first reset). The script plays random legal moves
and prints each game's returns, which sum to zero over the seats.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import pyspiel
from shimmy import OpenSpielCompatibilityV0

import grove_env.openspiel  # noqa: F401 - registers python_grove with pyspiel


def make_env(spec: str) -> OpenSpielCompatibilityV0:
    """The PettingZoo env of an OpenSpiel game string such as ``python_grove(players=3)``."""
    game = pyspiel.load_game(spec)
    return OpenSpielCompatibilityV0(
        game_name=game.get_type().short_name, config=game.get_parameters()
    )


def play_game(env: OpenSpielCompatibilityV0, seed: int) -> dict[str, float]:
    """One game of masked random moves; each seat's return.

    At the end a seat's return is read from ``env.rewards`` (the last step's rewards),
    not from ``last()``: Shimmy 2.0.1 adds the final rewards into the cumulative reward
    again each time a finished seat is removed, so ``last()`` would count them twice
    for the second seat, three times for the third. OpenSpiel's ``returns()`` checks it.
    """
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        _, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            returns[agent] += env.rewards[agent]
            env.step(None)
            continue
        returns[agent] += reward
        env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    spiel_returns = env.game_state.returns()
    assert np.allclose(list(returns.values()), spiel_returns), (returns, spiel_returns)
    return returns


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="python_grove(players=3,rules=revised)")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    env = make_env(args.game)
    print(f"{args.game}: {len(env.possible_agents)} seats, config {env.config}")
    worst = 0.0
    for game in range(args.games):
        returns = play_game(env, args.seed + game)
        total = sum(returns.values())
        worst = max(worst, abs(total))
        shown = " ".join(f"{r:+.2f}" for r in returns.values())
        print(f"game {game}: returns {shown}, sum {total:+.2g}")
    print(f"{args.games} games; largest |sum over seats| {worst:.2g} (zero-sum)")
    env.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
