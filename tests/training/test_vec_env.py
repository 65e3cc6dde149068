"""The self-play VecEnv: credit assignment checked against the core game, move by move.

Each test plays the batched VecEnv and, beside it, a reference :class:`grove_env.core.Game`
with the same forced deals, the same learner moves and the same scripted opponent
moves. At every learner decision the VecEnv must return exactly the learner seat's
own observation of the reference position, and the reward of each step must be what
the learner's seat earned since its previous decision: the terminal outcome at its
last decision (also when an opponent's move ended the game), the round rewards in
``markers`` mode, nothing for a truncated game (which is flagged for bootstrapping
with the learner's final observation).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

from grove_env.core import Game
from grove_env.observation import OFF_TO_ACT, ObservationEncoder
from grove_env.rules import get_rules
from grove_env.training.sb3.vec_env import GroveSelfPlayVecEnv
from grove_env.training.selfplay.opponents import NO_OPPONENT, MemoisedAgent, Opponents

torch.set_num_threads(1)


def script(obs: np.ndarray, mask: np.ndarray, salt: int = 0) -> int:
    """A deterministic legal move that depends on the observation (so games vary)."""
    legal = np.flatnonzero(mask)
    return int(legal[(int(round(float(obs.sum()) * 10)) + salt) % legal.size])


class ScriptedOpponents:
    """Plays :func:`script` for every opponent seat; remembers what it was shown."""

    def __init__(self, kinds: int = 1) -> None:
        self.kinds = kinds
        self.seen: list[np.ndarray] = []
        self.calls: dict[int, int] = {}

    def sample(self, learner_seats: np.ndarray, num_players: int) -> np.ndarray:
        g = len(learner_seats)
        kinds = np.arange(g * num_players).reshape(g, num_players) % self.kinds
        kinds[np.arange(g), learner_seats] = NO_OPPONENT
        return kinds

    def act(self, kind: int, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        self.calls[kind] = self.calls.get(kind, 0) + 1
        self.seen.extend(observations.copy())
        return np.array([script(o, m) for o, m in zip(observations, masks)], dtype=np.int64)

    def label(self, kind: int) -> str:
        return f"scripted {kind}"


def random_deals(rules: str, n: int, rounds: int, seed: int) -> list[tuple[int, ...]]:
    rng = np.random.default_rng(seed)
    tiles = np.array(get_rules(rules).tiles(n))
    return [tuple(int(t) for t in rng.permutation(tiles)) for _ in range(rounds)]


class Referee:
    """Follows one slot of the VecEnv with core Games and checks every transition."""

    def __init__(self, rules: str, n: int, reward: str, max_rounds: int, deals: list) -> None:
        self.rules, self.n, self.reward, self.max_rounds = rules, n, reward, max_rounds
        self.encoder = ObservationEncoder(get_rules(rules), n)
        self.deals = list(deals)
        self.games = 0
        self.episodes: list[tuple[int, float, bool]] = []  # (seat, return, truncated)
        self._new_game()

    def _new_game(self) -> None:
        self.seat = self.games % self.n  # the VecEnv rotates the learner's seat
        self.games += 1
        self.game = Game(self.rules, self.n, deals=self.deals)
        self.round_start = np.array(self.game.scores())
        self.truncated = False
        self.ret = 0.0
        self._opponents_move()

    def _apply(self, action: int) -> float:
        """Play one move; the learner seat's reward for it."""
        record = self.game.apply_action(action)
        reward = 0.0
        if record is not None:
            self.deals = self.deals[1:]  # this round's deal is used up
            if self.reward == "markers":
                scores = np.array(self.game.scores())
                deltas = scores - self.round_start
                self.round_start = scores
                reward -= float(deltas[self.seat] - deltas.mean())
            if self.game.terminal:
                if self.reward == "outcome":
                    reward += self.game.returns()[self.seat]
                elif self.reward == "win":
                    ranks = self.game.standings()
                    winners = ranks.count(1)
                    reward += (1 / winners if ranks[self.seat] == 1 else 0.0) - 1 / self.n
            elif record.number >= self.max_rounds:
                self.truncated = True
        return reward

    def _over(self) -> bool:
        return self.game.terminal or self.truncated

    def _opponents_move(self) -> float:
        reward = 0.0
        while not self._over() and self.game.current_player != self.seat:
            obs = self.encoder.encode(self.game, self.game.current_player)
            mask = np.zeros(10, bool)
            mask[self.game.legal_actions()] = True
            reward += self._apply(script(obs, mask))
        return reward

    def observation(self) -> np.ndarray:
        assert self.game.current_player == self.seat
        return self.encoder.encode(self.game, self.seat)

    def check(self, action: int, reward: float, done: bool, info: dict, next_obs: np.ndarray):
        expected = self._apply(action) + self._opponents_move()
        self.ret += expected
        assert reward == pytest.approx(expected, abs=1e-6)
        assert done == self._over()
        if done:
            final = self.encoder.encode(self.game, self.seat)
            assert info["TimeLimit.truncated"] == self.truncated
            np.testing.assert_array_equal(info["terminal_observation"], final)
            assert info["episode"]["r"] == pytest.approx(self.ret, abs=1e-6)
            if not self.truncated:
                standings = self.game.standings()
                assert info["rank"] == standings[self.seat]
            self.episodes.append((self.seat, self.ret, self.truncated))
            # (a truncated game's next deal, already shown, opens the next game)
            self._new_game()
        np.testing.assert_array_equal(next_obs, self.observation())


def play(rules: str, n: int, reward: str, max_rounds: int, steps: int, seed: int) -> Referee:
    deals = random_deals(rules, n, 400, seed)
    opponents = ScriptedOpponents()
    env = GroveSelfPlayVecEnv(1, opponents, rules, n, reward, max_rounds, seed=seed)
    env.game.force_deals(np.array(deals)[None])
    obs = env.reset()
    ref = Referee(rules, n, reward, max_rounds, deals)
    np.testing.assert_array_equal(obs[0], ref.observation())
    for _ in range(steps):
        mask = env.action_masks()[0]
        action = script(obs[0], mask, salt=1)
        obs, rewards, dones, infos = env.step(np.array([action]))
        ref.check(action, float(rewards[0]), bool(dones[0]), infos[0], obs[0])
    # Opponents were only ever shown the position of the seat to act.
    assert all(o[OFF_TO_ACT] == 1 for o in opponents.seen)
    return ref


@pytest.mark.parametrize(
    "rules,n", [("classic", 4), ("classic", 3), ("classic", 2), ("revised", 5), ("revised", 2)]
)
@pytest.mark.parametrize("reward", ["outcome", "markers", "win"])
def test_credit_assignment_matches_core_game(rules: str, n: int, reward: str) -> None:
    ref = play(rules, n, reward, max_rounds=100, steps=150, seed=n)
    assert len(ref.episodes) >= 4, "the test should cover several games"
    # Every seat was the learner's; outcome returns are the seat's terminal reward.
    assert {seat for seat, _, _ in ref.episodes} == set(range(n))


def test_truncated_games_are_flagged_with_the_learners_final_observation() -> None:
    ref = play("classic", 4, "outcome", max_rounds=1, steps=60, seed=3)
    truncated = [e for e in ref.episodes if e[2]]
    assert truncated, "max_rounds=1 should cut games off"
    assert all(ret == 0.0 for _, ret, t in ref.episodes if t)


def test_terminal_reward_reaches_the_learners_last_decision() -> None:
    """The zero-sum outcome is paid on the learner's final step, losers included."""
    ref = play("classic", 4, "outcome", max_rounds=100, steps=300, seed=11)
    returns = [ret for _, ret, t in ref.episodes if not t]
    assert min(returns) < 0 < max(returns)
    assert all(-1.0 <= r <= 1.0 for r in returns)


def test_opponents_are_batched_one_call_per_kind_per_engine_step() -> None:
    opponents = ScriptedOpponents(kinds=3)
    env = GroveSelfPlayVecEnv(64, opponents, "classic", 4, seed=0)
    engine_steps = 0
    step = env.game.step

    def counting_step(*args, **kwargs):
        nonlocal engine_steps
        engine_steps += 1
        return step(*args, **kwargs)

    env.game.step = counting_step  # type: ignore[method-assign]
    obs = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(20):
        masks = env.action_masks()
        obs, _, _, _ = env.step(np.where(masks, rng.random(masks.shape), -1).argmax(1))
    assert all(calls <= engine_steps for calls in opponents.calls.values())
    assert len(opponents.calls) == 3


def test_learner_seat_rotates_and_masks_are_the_learners() -> None:
    env = GroveSelfPlayVecEnv(8, Opponents({"random": 1.0}, seed=0), "classic", 4, seed=0)
    obs = env.reset()
    np.testing.assert_array_equal(env.learner_seat, np.arange(8) % 4)
    np.testing.assert_array_equal(env.game.current_player, env.learner_seat)
    assert (obs[:, OFF_TO_ACT] == 1).all()  # relative seat 0 (the observer) is to act
    masks = env.env_method("action_masks")
    assert masks.shape == (8, 10) and masks.any(axis=1).all()
    assert env.has_attr("action_masks")


def test_rollout_buffer_holds_only_learner_observations() -> None:
    """MaskablePPO on the VecEnv: the buffer is exactly the learner seats' observations."""

    class LoggingEnv(GroveSelfPlayVecEnv):
        def reset(self):
            obs = super().reset()
            self.log = [(obs.copy(), self.learner_seat.copy())]
            return obs

        def step_wait(self):
            out = super().step_wait()
            self.log.append((out[0].copy(), self.learner_seat.copy()))
            return out

    env = LoggingEnv(4, ScriptedOpponents(), "classic", 4, seed=0)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=16,
        batch_size=32,
        n_epochs=1,
        seed=0,
        policy_kwargs={"net_arch": [8]},
    )
    model.learn(total_timesteps=64)
    # After the update SB3 keeps the buffer flattened env by env: [n_envs * n_steps, 125].
    buf = model.rollout_buffer.observations.reshape(4, 16, -1)
    logged = np.stack([o for o, _ in env.log[:16]], axis=1)
    np.testing.assert_array_equal(buf, logged)
    # ... and each of those is the observation of that slot's learner seat, to act.
    assert (buf[:, :, OFF_TO_ACT] == 1).all()


def test_memoised_agent_caches_and_audits() -> None:
    class CountBlind:
        def act_batch(self, obs, masks):
            return np.array([script(o[:100], m) for o, m in zip(obs, masks)], dtype=np.int64)

    class RoundAware:
        def act_batch(self, obs, masks):
            return np.array([script(o, m, salt=int(o[124] * 100)) for o, m in zip(obs, masks)])

    env = GroveSelfPlayVecEnv(64, Opponents({"random": 1.0}, seed=0), "classic", 4, seed=0)
    obs = env.reset()
    blind = MemoisedAgent(CountBlind(), audit=0.5, seed=0)
    aware = MemoisedAgent(RoundAware(), audit=1.0, seed=0)
    with pytest.warns(UserWarning, match="switched off"):
        for _ in range(60):
            masks = env.action_masks()
            a = blind.act_batch(obs, masks)
            np.testing.assert_array_equal(a, CountBlind().act_batch(obs, masks))
            expected = RoundAware().act_batch(obs, masks)
            np.testing.assert_array_equal(aware.act_batch(obs, masks), expected)
            obs, _, _, _ = env.step(a)
    assert blind.enabled and blind.hits > 0
    assert not aware.enabled
