"""The trusting heuristic (``heuristic-trust``): legal play, posteriors, score changes.

Positions are built on forced deals (seats' tiles, suspect slots 0, 1, 2, victim).
Culprit rule: with a 5 among the suspects the lowest number is guilty, otherwise the
highest. Classic score change of one marker: 0 on the culprit, 0 alone on an innocent
(its own marker comes back as a penalty), -1 when covered on an innocent, ``L - 1`` on
top of an innocent stack of ``L``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from positions import TABLES, count_legal_decisions, observe, play

from grove_env import Game, decode
from grove_env.actions import ACCUSE_0, KEEP, LEAVE_0
from grove_env.agents.arena.match import decision_positions
from grove_env.agents.base import make_agent
from grove_env.agents.scripted.greedy import GreedyAgent
from grove_env.agents.trust.agent import TrustAgent, TrustParams, parse_params
from grove_env.agents.trust.posterior import posterior

ROOT = Path(__file__).resolve().parents[2]
DEAL_4P = (2, 3, 4, 6, 5, 7, 8, 0)  # seats 2 3 4 6, suspects 5 7 8, victim blank


def values_of(agent: TrustAgent, game: Game, seat: int):
    obs = observe(game, seat)
    return decode(obs["observation"]), obs


# --------------------------------------------------------------------- posterior
def test_without_trust_the_posterior_is_the_exact_one():
    g = play(Game("classic", 4, deals=[DEAL_4P]), LEAVE_0, KEEP, ACCUSE_0 + 2)
    d, obs = values_of(TrustAgent(), g, 1)
    _, q = TrustAgent(TrustParams(trust=0.0)).accusation_values(d)
    assert q == pytest.approx(posterior(d))
    assert q == pytest.approx((3 / 4, 0, 1 / 4))


def test_trust_reads_the_first_players_accusation():
    # Classic, two players: seats hold 3 and 4 (both seats know both), suspects 6 7 5,
    # victim blank. Seat 0 leaves slot 0 unseen (sees 7, 5), keeps, accuses slot 2.
    # Seat 1 then sees 6 and 7; slot 2 is the blank or the 5 (exact: 1/2 each), so
    # the culprit is the 7 (slot 1) or the 5 (slot 2).
    # Model of seat 0 (greedy, noise e = 1/5), which knows tiles 3 and 4:
    #   slot 2 = blank: it saw 7 and blank, slot 0 is 6 (7 guilty) or 5 (5 guilty): a tie
    #     between slots 0 and 1, so P(accuse 2) = e/3 = 1/15;
    #   slot 2 = 5: it saw 7 and 5, and the 5 is guilty whatever slot 0 holds:
    #     P(accuse 2) = (1 - e) + e/3 = 13/15.
    # P(accusation | model table) = (1/15 + 13/15) / 2 = 7/15, at random 1/3; with prior
    # trust 4/5: P(model | acc.) = (4/5 * 7/15) / (4/5 * 7/15 + 1/5 * 1/3) = 28/33.
    # P(slot 2 = 5) = 28/33 * 13/14 + 5/33 * 1/2 = 19/22.
    g = play(Game("classic", 2, deals=[(3, 4, 6, 7, 5, 0)]), LEAVE_0, KEEP, ACCUSE_0 + 2)
    d, obs = values_of(TrustAgent(), g, 1)
    assert d.seen == (6, 7, None)
    agent = TrustAgent(TrustParams(trust=0.8, noise=0.2, caution=0.0))
    _, q = agent.accusation_values(d)
    assert q == pytest.approx((0, 3 / 22, 19 / 22))


# --------------------------------------------------------------------- score changes
def test_early_seat_prefers_a_likely_innocent_that_may_be_covered():
    # Classic 4p, seat 0 first: sees 7 (slot 1) and 8 (slot 2); P(culprit) =
    # (1/4, 0, 3/4). With trust 0 the three later seats accuse at random, so a marker
    # on an innocent is covered with probability 1 - (2/3)^3 = 19/27 (change -1) and
    # otherwise stays alone (change 0). Expected change per slot:
    #   slot 0: 3/4 * -19/27 = -57/108, slot 1: -19/27, slot 2: 1/4 * -19/27 = -19/108.
    # Greedy accuses the likely culprit (slot 2); the heuristic the sure innocent.
    g = play(Game("classic", 4, deals=[DEAL_4P]), LEAVE_0, KEEP)
    d, obs = values_of(TrustAgent(), g, 0)
    agent = TrustAgent(TrustParams(trust=0.0))
    assert agent.expected_score_change(d) == pytest.approx((-57 / 108, -19 / 27, -19 / 108))
    assert agent.act(obs) == ACCUSE_0 + 1
    assert GreedyAgent().act(obs) == ACCUSE_0 + 2


def test_last_seat_does_not_top_a_stack():
    # Classic 4p: seat 0 accuses slot 2, seat 1 slot 0, seat 2 slot 2. Seat 3 (last)
    # sees 5 and 7 (slot 2 was just accused) and peeked 6 and 2: slot 2 holds one of
    # {0,3,4,8}; a 3 or 4 there is guilty, else the 5: P = (1/2, 0, 1/2).
    # Stacks: slot 0 one marker, slot 2 two. Nobody comes after seat 3, so:
    #   slot 0: innocent half the time, on top of 2 -> +1: expected 1/2;
    #   slot 1: a sure innocent, alone -> 0;  slot 2: half the time on top of 3 -> +2: 1.
    # Greedy takes the first of the tied likeliest slots (0); the heuristic slot 1.
    g = play(
        Game("classic", 4, deals=[DEAL_4P]), LEAVE_0, KEEP, ACCUSE_0 + 2, ACCUSE_0, ACCUSE_0 + 2
    )
    d, obs = values_of(TrustAgent(), g, 3)
    assert posterior(d) == pytest.approx((1 / 2, 0, 1 / 2))
    for params in (TrustParams(trust=0.0), TrustParams()):
        agent = TrustAgent(params)
        assert agent.act(obs) == ACCUSE_0 + 1
    exact = TrustAgent(TrustParams(trust=0.0))
    assert exact.expected_score_change(d) == pytest.approx((1 / 2, 0, 1))
    assert GreedyAgent().act(obs) == ACCUSE_0


def test_revised_scores_only_penalties():
    # Revised 4p, same tiles (the blank is an X), seat 0 first with random later seats
    # (trust 0): a covered marker changes nothing (only penalty markers count) and a
    # lone innocent marker costs 1. On the sure innocent (slot 1) that is
    # P(no later seat covers) = (2/3)^3 = 8/27; on slot 2 (innocent 1/4) 2/27; on
    # slot 0 (innocent 3/4) 6/27.
    g = play(Game("revised", 4, deals=[DEAL_4P]), LEAVE_0)
    d, obs = values_of(TrustAgent(), g, 0)
    agent = TrustAgent(TrustParams(trust=0.0))
    assert agent.expected_score_change(d) == pytest.approx((6 / 27, 8 / 27, 2 / 27))
    assert agent.act(obs) == ACCUSE_0 + 2


# --------------------------------------------------------------------- look, swap, mask
def test_look_leaves_slot_0_and_swap_is_legal():
    g = Game("classic", 4, deals=[DEAL_4P])
    agent = make_agent("heuristic-trust")
    assert agent.act(observe(g, 0)) == LEAVE_0
    play(g, LEAVE_0)
    obs = observe(g, 0)
    assert obs["action_mask"][agent.act(obs)] == 1


def test_a_narrower_mask_is_respected_and_an_empty_one_refused():
    g = play(Game("classic", 4, deals=[DEAL_4P]), LEAVE_0, KEEP)
    obs = observe(g, 0)
    agent = TrustAgent(TrustParams(trust=0.0))
    obs["action_mask"][ACCUSE_0 + 1] = 0  # its first choice, see above
    assert agent.act(obs) == ACCUSE_0 + 0  # the next best: -57/108 beats -19/108
    with pytest.raises(ValueError, match="all-zero"):
        agent.act({"observation": obs["observation"], "action_mask": np.zeros(10)})


@pytest.mark.parametrize("rules,n", TABLES)
def test_heuristic_never_picks_a_masked_action(rules, n):
    """Heuristic in every seat but one (random), ~1500 decisions per table."""
    decisions = count_legal_decisions(make_agent("heuristic-trust"), rules, n, 1000, 1500)
    assert decisions >= 1500


def test_act_batch_matches_act():
    agent = make_agent("heuristic-trust")
    rows, masks = decision_positions("revised", 3, 40, seed=3)
    batch = agent.act_batch(rows, masks)
    single = [agent.act({"observation": o, "action_mask": m}) for o, m in zip(rows, masks)]
    assert batch.tolist() == single


# --------------------------------------------------------------------- factory, script
def test_params_from_spec():
    assert make_agent("heuristic-trust").params == TrustParams()
    agent = make_agent("heuristic-trust:trust=0.3, noise=0.1")
    assert (agent.params.trust, agent.params.noise) == (0.3, 0.1)
    assert parse_params(None) == TrustParams()
    with pytest.raises(ValueError, match="key=value"):
        make_agent("heuristic-trust:depth=3")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        TrustParams(trust=1.5)
