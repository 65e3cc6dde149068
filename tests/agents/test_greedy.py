"""The exact culprit posterior (grove_env.odds, read by the agents) and the greedy agent.

Posteriors are checked against values worked out by hand on forced deals: a deal lists
the tiles dealt to seats 0..n-1, then suspect slots 0, 1, 2, the victim and (revised,
two players) the face-up spare. Culprit rule: with a 5 among the suspects the lowest
number is guilty, otherwise the highest; a blank/X (0) never is.
"""

from __future__ import annotations

import numpy as np
import pytest
from positions import TABLES, count_legal_decisions, observe, play

from grove_env import Game, decode
from grove_env.actions import ACCUSE_0, KEEP, LEAVE_0
from grove_env.agents.base import make_agent
from grove_env.agents.scripted.greedy import GreedyAgent
from grove_env.agents.trust.posterior import culprit_of, posterior, remove_tiles, suspect_deals
from grove_env.odds import view_odds


def assert_probs(got, expected) -> None:
    assert got == pytest.approx(expected, abs=1e-12)


# --------------------------------------------------------------------- posteriors
def test_first_player_after_look_classic_4p():
    # Seat 0 peeked 2 and 3, leaves slot 0 unseen and sees 7 and 8. Unknown tiles
    # {0,2..8} - {2,3} - {7,8} = {0,4,5,6}, one of them in slot 0: only a 5 there makes
    # slot 0 guilty (5 is then the lowest), otherwise the 8 is. P = (1/4, 0, 3/4).
    g = play(Game("classic", 4, deals=[(2, 3, 4, 6, 5, 7, 8, 0)]), LEAVE_0)
    assert_probs(posterior(decode(observe(g, 0)["observation"])), (1 / 4, 0, 3 / 4))


def test_later_seat_classic_4p():
    # Seat 0 keeps and accuses slot 2, so seat 1 sees slots 0 and 1: 5 and 7. It peeked
    # 3 (own) and 4 (seat 2's). Unknown {0,2,4..8} - {3,4} - {5,7} = {0,2,6,8} for slot 2.
    # With the 5 showing, slot 2 is guilty only if it is lower than 5: the 2. So
    # P = (3/4, 0, 1/4).
    g = play(Game("classic", 4, deals=[(2, 3, 4, 6, 5, 7, 8, 0)]), LEAVE_0, KEEP, ACCUSE_0 + 2)
    d = decode(observe(g, 1)["observation"])
    assert d.seen == (5, 7, None)
    assert_probs(posterior(d), (3 / 4, 0, 1 / 4))


def test_first_player_after_swap_two_unknown_slots():
    # Seat 0 sees 7 (slot 1) and 8 (slot 2), swaps the victim into slot 1: it now knows
    # the victim is the 7, and slots 0 and 1 hold two of {0,4,5,6} (12 ordered pairs).
    # Without a 5 (6 pairs) the 8 is guilty. With a 5 the lowest number is: (5,0) slot 0,
    # (5,4) slot 1, (5,6) slot 0, (0,5) slot 1, (4,5) slot 0, (6,5) slot 1.
    # P = (3/12, 3/12, 6/12).
    g = play(Game("classic", 4, deals=[(2, 3, 4, 6, 5, 7, 8, 0)]), LEAVE_0, 5)
    d = decode(observe(g, 0)["observation"])
    assert d.seen == (None, None, 8) and d.victim == 7
    assert_probs(posterior(d), (1 / 4, 1 / 4, 1 / 2))


def test_revised_two_players_face_up_spare():
    # Seats peeked 3 and 6 (both seats know both), the spare 4 is face up; seat 0 sees
    # 7 and 8. Unknown {2..8} - {3,6} - {4} - {7,8} = {2,5}: a 2 in slot 0 leaves the 8
    # guilty, a 5 is itself guilty. P = (1/2, 0, 1/2).
    g = play(Game("revised", 2, deals=[(3, 6, 5, 7, 8, 2, 4)]), LEAVE_0)
    assert_probs(posterior(decode(observe(g, 0)["observation"])), (1 / 2, 0, 1 / 2))


def test_revised_five_players_two_x():
    # Tiles {X,X,2..8}. Seat 0 peeked 2 and 3 and sees 7 and 5. Unknown
    # {X,X,4,6,8} for slot 0: with the 5 showing, only the 4 (1 in 5) is lower than 5;
    # an X is never guilty. P = (1/5, 0, 4/5).
    g = play(Game("revised", 5, deals=[(2, 3, 4, 6, 8, 0, 7, 5, 0)]), LEAVE_0)
    assert_probs(posterior(decode(observe(g, 0)["observation"])), (1 / 5, 0, 4 / 5))


def test_before_the_look_every_slot_is_alike():
    # Nothing seen: three of the four unknown tiles {0,5,6,7} fill the slots at random,
    # and the slots are exchangeable, so each is guilty with probability 1/3.
    g = Game("classic", 2, deals=[(3, 4, 5, 6, 7, 0)])
    assert_probs(posterior(decode(observe(g, 0)["observation"])), (1 / 3, 1 / 3, 1 / 3))


def test_suspect_deals_and_remove_tiles():
    # Two 4s and a blank for one slot: the 4 twice as likely as the blank.
    assert suspect_deals((0, 4, 4), (None, 5, 7)) == (
        ((0, 5, 7), pytest.approx(1 / 3)),
        ((4, 5, 7), pytest.approx(2 / 3)),
    )
    assert view_odds((0, 4, 4), (None, 5, 7)) == pytest.approx((2 / 3, 1 / 3, 0))
    assert remove_tiles((0, 0, 2, 3), (0, None, 3)) == (0, 2)
    with pytest.raises(ValueError, match="known more often"):
        remove_tiles((2, 3), (4,))


@pytest.mark.parametrize("unknown", [(0,), (1, 2), (0, 2), (0, 1, 2)])
def test_view_odds_equal_the_listed_deals(unknown: tuple[int, ...]) -> None:
    # grove_env.odds.view_odds counts fillings; suspect_deals lists ordered draws one by
    # one: the same posterior for every pool (repeated tiles included) and hidden slots,
    # all three slots unknown too (view_odds fills slot 0, then counts the rest).
    rng = np.random.default_rng(len(unknown))
    values = (0, 2, 3, 4, 5, 6, 7, 8)
    for _ in range(40):
        tiles = [int(v) for v in rng.choice(values[1:], size=9)]
        tiles[rng.integers(9)] = 0  # one blank: three blank suspects is no deal
        slots = tuple(None if s in unknown else tiles[s] for s in range(3))
        pool = tuple(sorted(tiles[3:]))
        listed = [0.0, 0.0, 0.0]
        for triple, p in suspect_deals(pool, slots):
            listed[culprit_of(triple)] += p
        assert_probs(view_odds(pool, slots), listed)


# --------------------------------------------------------------------- greedy agent
def test_greedy_accuses_the_likeliest_culprit_and_plays_trivially():
    agent = make_agent("greedy")
    g = Game("classic", 4, deals=[(2, 3, 4, 6, 5, 7, 8, 0)])
    assert agent.act(observe(g, 0)) == LEAVE_0
    play(g, LEAVE_0)
    assert agent.act(observe(g, 0)) == KEEP
    play(g, KEEP)
    assert agent.act(observe(g, 0)) == ACCUSE_0 + 2  # P = (1/4, 0, 3/4)
    play(g, ACCUSE_0 + 2)
    assert agent.act(observe(g, 1)) == ACCUSE_0 + 0  # P = (3/4, 0, 1/4)


def test_greedy_respects_a_narrower_mask():
    g = play(Game("classic", 4, deals=[(2, 3, 4, 6, 5, 7, 8, 0)]), LEAVE_0, KEEP)
    obs = observe(g, 0)
    obs["action_mask"][ACCUSE_0 + 2] = 0  # the likeliest slot is masked: next best
    assert GreedyAgent().act(obs) == ACCUSE_0 + 0
    with pytest.raises(ValueError, match="all-zero"):
        GreedyAgent().act({"observation": obs["observation"], "action_mask": np.zeros(10)})


def test_greedy_factory_rejects_arguments():
    with pytest.raises(ValueError, match="no argument"):
        make_agent("greedy:x")


@pytest.mark.parametrize("rules,n", TABLES)
def test_greedy_never_picks_a_masked_action(rules, n):
    """Greedy in every seat but one (random), ~2000 decisions per table."""
    decisions = count_legal_decisions(make_agent("greedy"), rules, n, 0, 2000)
    assert decisions >= 2000
