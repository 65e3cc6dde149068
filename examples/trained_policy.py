"""A run that ``train.py`` wrote: its final gauntlet, and its policy as an agent.

    python examples/trained_policy.py runs/smoke-s0-<time>

A run directory holds the final gauntlet as JSON (``final_eval.json``) and the best
policy (``best_policy.json``), which the agent spec ``ppo:RUN`` plays. The agent acts
on the PettingZoo environment like any other: here it plays one game at every seat.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from grove_env import grove_v1
from grove_env.agents.base import make_agent


def main() -> None:
    parser = argparse.ArgumentParser(description="Read a training run and play its policy.")
    parser.add_argument("run", type=Path, help="the run directory train.py printed")
    args = parser.parse_args()

    final = json.loads((args.run / "final_eval.json").read_text())
    vs_random = final["vs_random"]["learner"]["win_share"]
    print(f"final gauntlet, vs 3 random: {vs_random:.3f} (fair 0.25)")

    agent = make_agent(f"ppo:{args.run}", seed=0)
    env = grove_v1.env(num_players=4, rules="classic")
    env.reset(seed=0)
    for name in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        env.step(None if terminated or truncated else agent.act(observation))
        if terminated or truncated:
            print(f"{name}: reward {reward:+.2f}, rank {info['standings']}")


if __name__ == "__main__":
    main()
