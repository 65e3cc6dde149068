"""The heuristic (``heuristic``): its model of each style is that style, its endings are
the rules', and it plays legally, the same in batches as one by one.

The differential tests rebuild, for every deal an observation allows, the whole round
in the core (:class:`grove_env.Game`) and let the real style agents play the other
seats: what they did must be what :mod:`grove_env.agents.heuristic.style_model` says they did, and
what they do next must be its paths; the marker counts the core reaches must be the
ones the heuristic prices.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from positions import TABLES, count_legal_decisions, observe, play

from grove_env import Game, decode
from grove_env.actions import ACCUSE_0, KEEP, LEAVE_0, SWAP_0, Phase
from grove_env.agents.arena.match import decision_positions
from grove_env.agents.base import make_agent
from grove_env.agents.heuristic.search import (
    HeuristicAgent,
    HeuristicParams,
    accusation_values,
    parse_params,
    round_changes,
    table_values,
)
from grove_env.agents.heuristic.style_model import STYLES, later_paths, likelihoods
from grove_env.agents.trust.posterior import posterior
from grove_env.agents.views.possible_deals import deals
from grove_env.agents.views.rows import Rows, tables
from grove_env.rules import TILE_VALUES, CulpritMarkers

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("rules,n", TABLES)
def test_never_picks_a_masked_action(rules, n):
    """The heuristic in every seat but one (random), ~300 decisions per table."""
    assert count_legal_decisions(make_agent("heuristic"), rules, n, 2000, 300) >= 300


@pytest.mark.parametrize("rules,n", TABLES)
def test_act_batch_matches_act_row_by_row(rules, n):
    rows, masks = decision_positions(rules, n, 60, seed=n)
    agent = make_agent("heuristic:noise=0.2,aim=0.3")
    batch = agent.act_batch(rows, masks)
    single = [agent.act({"observation": o, "action_mask": m}) for o, m in zip(rows, masks)]
    assert batch.tolist() == single
    assert all(m[a] for a, m in zip(batch, masks))


# --------------------------------------------------------------------- round-one positions
def round_one_positions(rules: str, n: int, count: int, seed: int) -> list[tuple[Game, list]]:
    """Games in round 1 at an accusation, with the actions that led there (random play
    with a bluffer first player, so that swaps occur)."""
    rng = np.random.default_rng(seed)
    bluffer = make_agent("bluffer")
    out = []
    while len(out) < count:
        g = Game(rules, n, seed=int(rng.integers(2**31)))
        actions = [LEAVE_0]
        g.apply_action(LEAVE_0)
        if g.phase is Phase.SWAP:
            a = bluffer.act(observe(g, 0)) if rng.random() < 0.5 else KEEP
            g.apply_action(a)
            actions.append(a)
        for _ in range(int(rng.integers(n))):
            a = int(rng.choice(g.legal_actions()))
            g.apply_action(a)
            actions.append(a)
        out.append((g, actions))
    return out


def absolute_deal(rows: Rows, d, j: int, seat: int, n: int) -> tuple[int, ...]:
    """Deal ``j`` of the observer at ``seat`` in the core's layout (tiles as dealt, suspects
    before any swap)."""
    tiles = [0] * n
    for r in range(n):
        tiles[(seat + r) % n] = TILE_VALUES[d.dealt[0, j, r]]
    suspects = [TILE_VALUES[t] for t in d.suspects[0, j]]
    victim = TILE_VALUES[d.victim[0, j]]
    t = int(rows.tampered[0])
    if t >= 0:  # undo the swap: the victim was in slot t
        suspects[t], victim = victim, suspects[t]
    spare = [] if rows.spare[0] < 0 else [TILE_VALUES[rows.spare[0]]]
    return (*tiles, *suspects, victim, *spare)


@pytest.mark.slow
@pytest.mark.parametrize("rules,n", TABLES)
def test_the_model_of_each_style_is_that_style(rules, n):
    for g, actions in round_one_positions(rules, n, 6, seed=n):
        seat = g.current_player
        rows = Rows.of(observe(g, seat)["observation"][None])
        d = deals(rows)
        like = likelihoods(rows, d, g.rules, noise=0.0)  # 1 where the style did all that
        paths = later_paths(rows, d, g.rules)
        for j, t in itertools.product(range(d.suspects.shape[1]), range(len(STYLES))):
            style = make_agent(STYLES[t])
            deal = absolute_deal(rows, d, j, seat, n)
            replay = Game(rules, n, deals=[deal])
            agrees = True
            for a in actions:  # the other seats' swap and accusations, as the style plays
                if replay.phase is not Phase.LOOK and replay.current_player != seat:
                    agrees &= style.act(observe(replay, replay.current_player)) == a
                replay.apply_action(a)
            assert like[0, t, j] == float(agrees), (STYLES[t], deal)
            assert replay.suspects == [TILE_VALUES[x] for x in d.suspects[0, j]]
            for own in range(3):  # the later seats after each own accusation
                after = play(Game(rules, n, deals=[deal]), *actions, ACCUSE_0 + own)
                code, k = 0, 0
                while after.history == []:
                    slot = style.act(observe(after, after.current_player)) - ACCUSE_0
                    code += slot * 3**k
                    k += 1
                    after.apply_action(ACCUSE_0 + slot)
                assert paths[0, t, own, j] == code, (STYLES[t], deal, own)


@pytest.mark.parametrize("rules,n", TABLES)
def test_every_ending_moves_the_markers_as_the_core_does(rules, n):
    for g, actions in round_one_positions(rules, n, 3, seed=10 + n):
        seat = g.current_player
        rows = Rows.of(observe(g, seat)["observation"][None])
        position = int(rows.position[0])
        returned = g.rules.culprit_markers is CulpritMarkers.RETURN
        changes, index = round_changes(n, position, returned)
        prefix = int((rows.accused[0, :position] * 3 ** np.arange(position)).sum())
        deal = absolute_deal(rows, deals(rows), 0, seat, n)
        for own, seq in itertools.product(range(3), range(3 ** (n - 1 - position))):
            done = play(Game(rules, n, deals=[deal]), *actions, ACCUSE_0 + own)
            for k in range(n - 1 - position):
                done.apply_action(ACCUSE_0 + seq // 3**k % 3)
            record = done.history[0]
            counts = np.stack([rows.coloured[0], rows.penalty[0]])
            got = counts + changes[prefix, index[prefix, own, seq, record.culprit]]
            expected = [
                [record.coloured[(seat + r) % n] for r in range(n)],
                [record.penalty[(seat + r) % n] for r in range(n)],
            ]
            assert got.tolist() == expected


# --------------------------------------------------------------------- behaviour
def test_the_trusting_model_walks_onto_a_pilers_stack_and_this_one_does_not():
    # Classic 4p: seats hold 8 0 4 7, suspects 5 6 3, victim 2. Seat 0 (a piler) leaves
    # slot 0 unseen, keeps, and accuses the slot it holds least likely (slot 0); seat 1
    # (a piler) accuses slot 1. Seat 2 saw the 5 (slot 0) and the 3 (slot 2): with a 5
    # among the suspects the lowest tile is guilty, so slot 0 is a sure innocent
    # (exact posterior (0, 1/4, 3/4)). The trusting model reads the accusations as
    # evidence and expects the last seat to cover slot 0; it tops that stack. The
    # heuristic reads two pilers and accuses the likely culprit, slot 2.
    g = play(Game("classic", 4, deals=[(8, 0, 4, 7, 5, 6, 3, 2)]), LEAVE_0, KEEP)
    piler = make_agent("piler")
    for seat in (0, 1):
        play(g, piler.act(observe(g, seat)))
    obs = observe(g, 2)
    d = decode(obs["observation"])
    assert [slot for _, slot in d.accusations] == [0, 1]
    assert posterior(d) == pytest.approx((0.0, 0.25, 0.75))
    assert make_agent("heuristic-trust").act(obs) == ACCUSE_0
    assert make_agent("heuristic").act(obs) == ACCUSE_0 + 2


def test_a_last_seat_never_tops_an_innocent_stack_for_nothing():
    # Classic 2p, equal counts: the second seat only loses by covering the first seat's
    # marker on an innocent, so with the first seat's slot possibly innocent it goes
    # elsewhere, whatever the style of the first seat.
    positions = [
        (g, a)
        for g, a in round_one_positions("classic", 2, 40, seed=3)
        if g.current_player == 1 and len(g.accusations) == 1
    ]
    assert positions
    agent = make_agent("heuristic")
    for g, _ in positions:
        first = g.accusations[0][1]
        p = posterior(decode(observe(g, 1)["observation"]))
        if p[first] < 1.0:
            assert agent.act(observe(g, 1)) != ACCUSE_0 + first


@pytest.mark.parametrize("rules,n", TABLES)
def test_the_tables_mix_into_the_heuristics_value(rules, n):
    """The mixture taken apart (table_values) puts back together into its value."""
    obs, _ = decision_positions(rules, n, 80, seed=n)
    ((rule_set, _, _),) = tables(obs)
    rows = Rows.of(obs)
    rows = rows.take(np.flatnonzero(rows.phase == int(Phase.ACCUSE)))
    params = HeuristicParams(noise=0.2, random_prior=0.3)
    for position in np.unique(rows.position):
        part = rows.take(np.flatnonzero(rows.position == position))
        values, posterior = table_values(part, rule_set, params)
        assert values.shape == (len(part), len(STYLES) + 1, 3)
        np.testing.assert_allclose(posterior.sum(axis=1), 1.0)
        assert (posterior > 0).all()
        mixed = np.einsum("kt,ktc->kc", posterior, values)
        np.testing.assert_allclose(mixed, accusation_values(part, rule_set, params), atol=1e-12)
        # A heuristic that thinks every seat accuses at random values like the random table.
        alone = HeuristicParams(noise=0.2, random_prior=1.0)
        np.testing.assert_allclose(
            values[:, -1], accusation_values(part, rule_set, alone), atol=1e-12
        )
        if position == 0:  # nothing seen yet: the posterior is the prior
            np.testing.assert_allclose(posterior[:, -1], 0.3)


def test_swaps_are_valued_by_the_accusation_after_them():
    # The first player's swap choice: keep and each legal swap, valued by the best
    # accusation afterwards; here a swap is worth more than the margin.
    agent = HeuristicAgent()
    rows_obs, masks = decision_positions("classic", 4, 400, seed=1)
    swap_rows = np.flatnonzero(rows_obs[:, 90 + int(Phase.SWAP)] == 1)
    assert swap_rows.size
    actions = agent.act_batch(rows_obs[swap_rows], masks[swap_rows])
    assert set(actions.tolist()) <= {KEEP, SWAP_0, SWAP_0 + 1, SWAP_0 + 2}
    assert (actions != KEEP).any() and (actions == KEEP).any()
    never = HeuristicAgent(HeuristicParams(swap_margin=10.0))
    assert (never.act_batch(rows_obs[swap_rows], masks[swap_rows]) == KEEP).all()


def test_take_keeps_every_field():
    rows = Rows.of(decision_positions("revised", 3, 20, seed=0)[0])
    part = rows.take(np.array([3, 1]))
    assert part.num_players == 3 and len(part) == 2
    assert (part.seen == rows.seen[[3, 1]]).all() and (part.round == rows.round[[3, 1]]).all()


def test_params_from_spec_and_errors():
    assert make_agent("heuristic").params == HeuristicParams()
    assert parse_params("noise=0.3, aim=0.2") == HeuristicParams(noise=0.3, aim=0.2)
    with pytest.raises(ValueError, match="key=value"):
        make_agent("heuristic:depth=3")
    with pytest.raises(ValueError, match=r"noise must be in \[0, 1\]"):
        HeuristicParams(noise=1.5)
    with pytest.raises(ValueError, match="spread must be > 0"):
        HeuristicParams(spread=0)
    obs = observe(play(Game("classic", 4), LEAVE_0, KEEP), 0)
    with pytest.raises(ValueError, match="all-zero"):
        HeuristicAgent().act({"observation": obs["observation"], "action_mask": np.zeros(10)})


def test_the_benchmark_runs_at_a_tiny_size():
    script = ROOT / "benchmarks" / "heuristic_batch.py"
    args = ["--batch", "16", "--single", "4", "--repeats", "1", "--players", "3"]
    done = subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "single:" in done.stdout and "batch:" in done.stdout and "ratio:" in done.stdout
    assert "speed-up:" in done.stdout and "identical actions: yes" in done.stdout
