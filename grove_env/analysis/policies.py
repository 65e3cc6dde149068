"""Any agent as a policy: action probabilities for a batch of observations.

A :data:`Policy` maps ``observations[K, 125]`` and ``masks[K, 10]`` to probabilities
``float64[K, 10]`` that are zero on illegal actions and sum to one per row.
:func:`policy_of` makes one from an agent or an agent spec, asking the agent the way
play does, so a policy's input features (``advice``) are made by the agent's own code:

- an agent with ``action_probabilities(observations, masks)`` gives them itself:
  ``random`` (uniform), ``cfr``, and ``ppo:`` (the masked softmax its ``act`` samples
  from, or a one-hot on its ``act_batch`` choice when deterministic, as it plays);
- any other agent is taken to be deterministic (``greedy``, ``heuristic``): a one-hot
  on the action it picks, in one ``act_batch`` call per batch where the agent says it is
  deterministic (``act_batch`` equals ``act`` row by row), else one ``act`` per row.

The tree calls the policy once per distinct observation, never per history. An
``action_probabilities`` that reads the action mask alone may say so with a true
``mask_only`` attribute (``random``'s does, :func:`reads_mask_only`): the whole game then
asks it once per round tree instead of at every public state. An agent with a true
``fork_safe`` attribute (the row agents: NumPy alone) gives a policy that says so too: the
whole game may then ask it from forked worker processes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from grove_env.agents.base import make_agent
from grove_env.agents.scripted.random_agent import uniform

from .round_tree import RoundTree

Policy = Callable[[np.ndarray, np.ndarray], np.ndarray]

ROW_BATCH = 4096
"""Rows per call to a deterministic agent's ``act_batch`` (its ``batch`` attribute): the
heuristic takes 38% more time per row in batches of 32,768 (measured at revised 3p)."""

__all__ = [
    "Policy",
    "branch_probabilities",
    "branches_of",
    "policy_of",
    "reads_mask_only",
    "spiel_policy",
    "uniform",
]


def reads_mask_only(policy: Policy) -> bool:
    """Whether ``policy`` says that its answer depends on the action mask alone, with a
    true ``mask_only`` attribute (:func:`uniform` and ``random``'s ``action_probabilities``
    do): the whole game then asks it once per round tree, not once per public state."""
    return bool(getattr(policy, "mask_only", False))


def policy_of(agent: Any, seed: int | None = 0) -> Policy:
    """The policy of an agent or agent spec (see the module docstring)."""
    if isinstance(agent, str):
        agent = make_agent(agent, seed=seed)
    if hasattr(agent, "action_probabilities"):
        return agent.action_probabilities  # type: ignore[no-any-return]

    batched = bool(getattr(agent, "deterministic", False)) and hasattr(agent, "act_batch")

    def deterministic(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if batched:
            actions = np.asarray(agent.act_batch(observations, masks), dtype=np.int64)
        else:
            actions = np.array(
                [
                    int(agent.act({"observation": o, "action_mask": m}))
                    for o, m in zip(observations, masks)
                ],
                dtype=np.int64,
            )
        rows = np.arange(len(actions))
        if not masks[rows, actions].all():
            bad = int(actions[~masks[rows, actions].astype(bool)][0])
            raise ValueError(f"agent {agent.name!r} chose illegal action {bad}")
        probs = np.zeros(masks.shape, dtype=np.float64)
        probs[rows, actions] = 1.0
        return probs

    # A row agent's arrays are rows x deals x styles: it is fastest in small batches.
    deterministic.batch = ROW_BATCH  # type: ignore[attr-defined]
    deterministic.fork_safe = bool(getattr(agent, "fork_safe", False))  # type: ignore[attr-defined]
    return deterministic


def branch_probabilities(tree: RoundTree, policies: list[Policy], batch: int = 4096) -> list:
    """Per depth, ``float64[infosets, 3]``: probability of each branch (sorted legal action)."""
    return [legal_branches(policies[d.seat], d.observations, d.masks, batch) for d in tree.depths]


def legal_branches(
    policy: Policy, observations: np.ndarray, masks: np.ndarray, batch: int = 4096
) -> np.ndarray:
    """``float64[K, 3]``: ``policy``'s probability of each of a row's three legal actions,
    asked ``batch`` rows at a time and checked."""
    rows = []
    for lo in range(0, len(observations), batch):
        obs = observations[lo : lo + batch]
        part = masks[lo : lo + batch]
        probs = np.asarray(policy(obs, part), dtype=np.float64)
        if probs.shape != part.shape:
            raise ValueError(f"a policy returns shape {part.shape}, got {probs.shape}")
        if (probs[part == 0] > 1e-12).any():
            raise ValueError("a policy gave probability to an illegal action")
        legal = probs[part.astype(bool)].reshape(len(part), 3)
        rows.append(legal / legal.sum(axis=1, keepdims=True))
    return np.concatenate(rows)


def branches_of(tree: RoundTree, agent: Any, seed: int | None = 0) -> list:
    """:func:`branch_probabilities` of ``agent`` (an agent or a spec, :func:`policy_of`)
    playing every seat of ``tree``."""
    return branch_probabilities(tree, [policy_of(agent, seed=seed)] * tree.num_players)


def spiel_policy(game: Any, probabilities: Policy) -> Any:
    """An OpenSpiel ``Policy`` of a game registered by :mod:`grove_env.openspiel`.

    The policy sees each seat's observation tensor, as an agent in the env does, and is
    asked once per distinct observation.
    """
    from open_spiel.python import policy as spiel  # part of the open_spiel wheel

    seen: dict[bytes, dict[int, float]] = {}

    class ObservationPolicy(spiel.Policy):
        def action_probabilities(self, state: Any, player_id: Any = None) -> dict[int, float]:
            seat = state.current_player() if player_id is None else player_id
            obs = np.asarray(state.observation_tensor(seat), np.float32)[None]
            mask = np.asarray(state.legal_actions_mask(seat), np.int8)[None]
            key = obs.tobytes() + mask.tobytes()
            if key not in seen:
                probs = probabilities(obs, mask)[0]
                seen[key] = {int(a): float(probs[a]) for a in np.flatnonzero(mask[0])}
            return seen[key]

    return ObservationPolicy(game, list(range(game.num_players())))
