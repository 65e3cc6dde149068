"""``grove_env/SelfPlay-v0``: a standard gymnasium ``VectorEnv`` over the self-play core."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium import VectorizeMode
from gymnasium.utils.passive_env_checker import check_obs
from gymnasium.vector import AutoresetMode

from grove_env.training.selfplay.gym_env import ENV_ID, SelfPlayVectorEnv


def masked_random(obs: dict, rng: np.random.Generator) -> np.ndarray:
    mask = obs["action_mask"].astype(bool)
    mask[~mask.any(axis=1)] = True  # a finished game's slot: any action is ignored
    return np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)


def rollout(envs: gymnasium.vector.VectorEnv, steps: int, seed: int) -> list[tuple]:
    rng = np.random.default_rng(seed)
    obs, _ = envs.reset(seed=seed)
    out = []
    for _ in range(steps):
        obs, rewards, terminations, truncations, infos = envs.step(masked_random(obs, rng))
        out.append((obs["observation"].copy(), rewards, terminations, truncations))
    return out


def test_make_vec_builds_it_through_the_vector_entry_point() -> None:
    envs = gymnasium.make_vec(
        ENV_ID, num_envs=6, opponents=["random", "greedy"], num_players=3, seed=0
    )
    assert isinstance(envs.unwrapped, SelfPlayVectorEnv)
    assert envs.spec is not None and envs.spec.kwargs["vectorization_mode"] == (
        VectorizeMode.VECTOR_ENTRY_POINT.value
    )
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert envs.num_envs == 6 and envs.single_action_space == gymnasium.spaces.Discrete(10)
    assert envs.observation_space["observation"].shape == (6, 125)
    assert envs.action_space.shape == (6,)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("rules", "n", "reward"),
    [("classic", 4, "outcome"), ("revised", 5, "win"), ("classic", 2, "markers")],
)
def test_observations_fit_the_spaces_and_games_restart_next_step(
    rules: str, n: int, reward: str
) -> None:
    envs = SelfPlayVectorEnv(
        8, ["random", "heuristic"], rules, n, reward, max_rounds=6, opponent_sampling="seat"
    )
    rng = np.random.default_rng(1)
    obs, infos = envs.reset(seed=1)
    check_obs(obs, envs.observation_space, "reset")
    assert infos == {} and obs["action_mask"].any(axis=1).all()
    returns = np.zeros(8)
    ended = 0
    pending = np.zeros(8, dtype=bool)
    for _ in range(300):
        obs, rewards, terminations, truncations, infos = envs.step(masked_random(obs, rng))
        check_obs(obs, envs.observation_space, "step")
        done = terminations | truncations
        assert not (terminations & truncations).any()
        # The step after a game's end shows the new game: no reward, not done, live mask.
        assert (rewards[pending] == 0).all() and not done[pending].any()
        assert obs["action_mask"][pending].any(axis=1).all()
        returns += rewards
        if done.any():
            assert not obs["action_mask"][done].any()  # the last observation: nobody acts
            np.testing.assert_array_equal(infos["_episode"], done)
            np.testing.assert_allclose(infos["episode"]["r"][done], returns[done], atol=1e-5)
            assert set(infos["opponents"][done]) <= {"random", "heuristic", "mixed"}
            assert ((infos["rank"][done] >= 1) & (infos["rank"][done] <= n)).all()
            returns[done] = 0.0
            ended += int(done.sum())
        pending = done
    assert ended > 8
    envs.close()


def test_same_seed_same_rollout() -> None:
    def run() -> list[tuple]:
        return rollout(SelfPlayVectorEnv(4, "random", seed=3), 60, seed=3)

    for a, b in zip(run(), run()):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)


def test_returned_observations_are_not_reused() -> None:
    envs = SelfPlayVectorEnv(2, "random")
    first, _ = envs.reset(seed=0)
    second, *_ = envs.step(masked_random(first, np.random.default_rng(0)))
    assert first["observation"] is not second["observation"]
    assert not np.shares_memory(first["observation"], second["observation"])


@pytest.mark.parametrize(
    ("kwargs", "problem"),
    [
        ({"opponents": []}, "at least one agent spec"),
        ({"opponents": "nobody"}, "unknown agent 'nobody'"),
        ({"opponent_sampling": "table"}, "opponent_sampling"),
        ({"num_envs": 0}, "num_envs"),
        ({"reward": "gold"}, "reward must be one of"),
    ],
)
def test_bad_arguments_say_what_is_wrong(kwargs: dict, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        SelfPlayVectorEnv(**{"num_envs": 2, **kwargs})
