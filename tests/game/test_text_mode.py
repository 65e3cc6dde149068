"""The text observation mode: the JSON holds the seat's information state and nothing
more, every move's name parses back to its action, the wrapper, and the ``text`` agent."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from pettingzoo.test import api_test
from positions import TABLES
from test_observation import known_deal_indices, observe_after, random_round_actions

from grove_env import grove_v1
from grove_env.actions import NUM_ACTIONS, action_name
from grove_env.agents.arena.gauntlet import run_gauntlet
from grove_env.agents.arena.match import decision_positions
from grove_env.core import Game
from grove_env.text_mode import VERSION, parse_move, seat_json, seat_prose, vector_of
from grove_env.wrappers import TextObservations

MASK = np.ones(NUM_ACTIONS, dtype=np.int8)


def view_after(rules: str, n: int, deals: list, actions: list[int], seat: int) -> str:
    obs, _ = observe_after(rules, n, deals, actions, seat)
    return json.dumps(seat_json(obs, MASK), sort_keys=True)


@pytest.mark.parametrize(("rules", "n"), TABLES)
@pytest.mark.parametrize("seed", range(6))
def test_redealing_what_a_seat_cannot_know_leaves_its_json_unchanged(
    rules: str, n: int, seed: int
) -> None:
    """The re-deal test of ``test_observation`` on the JSON: unknown tiles re-dealt, the
    same JSON; a known tile exchanged with an unknown one, a different JSON."""
    rng = random.Random(f"{rules}/{n}/{seed}")
    tiles = list(Game(rules, n).rules.tiles(n))
    deal = rng.sample(tiles, len(tiles))
    actions = random_round_actions(rules, n, rng)[:-1]
    for cut in range(len(actions) + 1):
        for seat in range(n):
            view = view_after(rules, n, [deal], actions[:cut], seat)
            known = known_deal_indices(rules, n, 0, actions[:cut], seat)
            unknown = [i for i in range(len(deal)) if i not in known]
            values = [deal[i] for i in unknown]
            k = rng.randrange(1, len(values)) if len(values) > 1 else 0
            other = list(deal)
            for i, v in zip(unknown, values[k:] + values[:k]):
                other[i] = v
            assert view_after(rules, n, [other], actions[:cut], seat) == view
            pairs = [(i, j) for i in known for j in unknown if deal[i] != deal[j]]
            if pairs:
                i, j = rng.choice(pairs)
                other = list(deal)
                other[i], other[j] = other[j], other[i]
                assert view_after(rules, n, [other], actions[:cut], seat) != view


@pytest.mark.parametrize(("rules", "n"), TABLES)
def test_every_legal_move_round_trips_and_the_json_loses_nothing(rules: str, n: int) -> None:
    rows, masks = decision_positions(rules, n, 300, seed=1)
    for obs, mask in zip(rows, masks):
        view = seat_json(obs, mask)
        assert view["version"] == VERSION and view["rules"]["name"] == rules
        legal = [parse_move(name, mask) for name in view["legal_moves"]]
        assert legal == np.flatnonzero(mask).tolist()
        for action in range(NUM_ACTIONS):
            if mask[action]:
                assert parse_move(action_name(action), mask) == action
            else:
                with pytest.raises(ValueError, match="not legal now"):
                    parse_move(action_name(action), mask)
        np.testing.assert_array_equal(vector_of(json.loads(json.dumps(view))), obs)
        assert seat_prose(obs, mask).endswith(view["legal_moves"][-1])


@pytest.mark.parametrize("text", ["", "accuse", "accuse slot 3", "7", None, "keep\nkeep"])
def test_anything_but_a_move_name_is_one_line(text: object) -> None:
    with pytest.raises(ValueError) as caught:
        parse_move(text)  # type: ignore[arg-type]
    assert "\n" not in str(caught.value)


@pytest.mark.filterwarnings("ignore::UserWarning")  # api_test's notes on Dict observations
@pytest.mark.parametrize(("rules", "n"), [TABLES[0], TABLES[-1]])
def test_the_wrapper_passes_pettingzoos_api_test(rules: str, n: int) -> None:
    api_test(TextObservations(grove_v1.env(num_players=n, rules=rules)), num_cycles=200)


def test_the_wrapper_serves_the_text_mode_and_takes_moves_by_name() -> None:
    env = TextObservations(grove_v1.env(num_players=4, rules="revised"))
    env.reset(seed=3)
    steps = 0
    for agent in env.agent_iter():
        seen, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        assert env.observation_space(agent).contains(seen)
        view = json.loads(seen["json"])
        assert view["phase"] in seen["text"] and view["to_act"] == 0
        env.step(view["legal_moves"][-1])
        steps += 1
    assert steps > 4
    env.reset(seed=3)
    with pytest.raises(ValueError, match="not legal now"):
        env.step("keep")  # the first decision is a look


def test_the_text_agent_plays_the_heuristics_games() -> None:
    """Read through JSON and names only, the heuristic's rule plays the same games."""
    kwargs = {"rules": "classic", "num_players": 4, "games": 8, "opponents": ["random", "piler"]}
    text, heuristic = run_gauntlet("text", **kwargs), run_gauntlet("heuristic", **kwargs)  # type: ignore[arg-type]
    assert [c.win_share for c in text.cells] == [c.win_share for c in heuristic.cells]
    assert [c.mean_score for c in text.cells] == [c.mean_score for c in heuristic.cells]
