"""The rule-based styles (grove_env.agents.scripted.styles): legal everywhere, true to their idea.

Forced deals list the tiles dealt to seats 0..n-1, then suspect slots 0, 1, 2 and the
victim. The classic four-player deal used below is ``(2, 3, 4, 6, 5, 7, 8, 0)``: the
suspects are 5, 7 and 8, and seat 0, leaving slot 0 unseen, sees the 7 and the 8, so its
posterior is (1/4, 0, 3/4) (tests/agents/test_greedy.py works it out).
"""

from __future__ import annotations

import numpy as np
import pytest
from command_lines import load_script
from positions import TABLES, count_legal_decisions, observe, play

from grove_env import Game, decode
from grove_env.actions import ACCUSE_0, KEEP, LEAVE_0, SWAP_0
from grove_env.agents.base import agent_names, make_agent
from grove_env.agents.scripted.greedy import GreedyAgent
from grove_env.agents.scripted.styles import (
    ACCUSERS,
    READ_STACKS,
    STYLE_NAMES,
    make_style,
    marker_cost,
)
from grove_env.agents.trust.posterior import culprit_of, knowledge, posterior, suspect_deals
from grove_env.agents.views.rows import Rows

DEAL = (2, 3, 4, 6, 5, 7, 8, 0)


def classic4(*actions: int) -> Game:
    return play(Game("classic", 4, deals=[DEAL]), *actions)


def act(name: str, game: Game) -> int:
    return make_agent(name, seed=0).act(observe(game, game.current_player))


# --------------------------------------------------------------------- every table
@pytest.mark.parametrize("name", STYLE_NAMES)
@pytest.mark.parametrize(("rules", "n"), TABLES)
def test_style_plays_legal_actions_on_every_table(name: str, rules: str, n: int) -> None:
    agent = make_agent(name, seed=n)
    assert count_legal_decisions(agent, rules, n, first_seed=100 * n, target=150) >= 150


@pytest.mark.parametrize("name", STYLE_NAMES)
def test_styles_are_registered_and_take_no_argument(name: str) -> None:
    assert name in agent_names()
    assert make_agent(name, seed=3).name == name
    with pytest.raises(ValueError, match="takes no argument"):
        make_agent(f"{name}:x")


def test_unknown_style_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown style 'nope'"):
        make_style("nope")


@pytest.mark.parametrize("name", STYLE_NAMES)
def test_style_is_deterministic_whatever_its_seed(name: str) -> None:
    # Two seeds, the same positions (the style in every seat): the same actions.
    a, b = make_agent(name, seed=1), make_agent(name, seed=2)
    for deal_seed in range(20):
        game = Game("classic", 3, seed=deal_seed)
        while not game.terminal and game.round <= 3:
            obs = observe(game, game.current_player)
            action = a.act(obs)
            assert b.act(obs) == action
            game.apply_action(action)


@pytest.mark.parametrize("name", STYLE_NAMES)
def test_first_player_leaves_slot_0_unseen(name: str) -> None:
    # Before anyone looks the slots are exchangeable: every style leaves slot 0 unseen.
    assert act(name, classic4()) == LEAVE_0


# --------------------------------------------------------------------- stack-avoider
def cost_of(game: Game, seat: int) -> list[float]:
    """The seat's expected marker cost per slot, from the style's integer form."""
    rows = Rows.of(observe(game, seat)["observation"][None])
    later = rows.num_players - 1 - rows.position
    fixed, per_marker = marker_cost(rows.counts, later, game.rules)
    scale = rows.counts.sum() * 3 ** int(later[0])
    return ((fixed + per_marker * rows.heights) / scale)[0].tolist()


def test_expected_marker_cost_classic_first_seat() -> None:
    # Three later seats accusing at random leave a marker uncovered with (2/3)^3 = 8/27.
    # On the sure innocent 7 (slot 1): taken back with the stack (0 net) if uncovered,
    # lost to a coverer (-1) otherwise: cost -(1 - 8/27). On slot 0 (guilty 1/4) the
    # same, weighted by 3/4, since a culprit marker comes back (0).
    costs = cost_of(classic4(LEAVE_0, KEEP), 0)
    assert costs == pytest.approx([-19 / 27 * 3 / 4, -19 / 27, -19 / 27 / 4])


def test_stack_avoider_first_seat_accuses_a_sure_innocent_at_classic() -> None:
    g = classic4(LEAVE_0, KEEP)
    assert act("greedy", g) == ACCUSE_0 + 2  # the 8, guilty with 3/4
    assert act("stack-avoider", g) == ACCUSE_0 + 1  # the 7: later seats will cover it


def last_seat_position() -> Game:
    # Seats 0 and 1 accuse slot 2, seat 2 slot 0; seat 3 then sees slots 1 and 2 (7, 8),
    # knows the 6 and the 2, and slot 0 is a 5 with 1/4: posterior (1/4, 0, 3/4).
    return classic4(LEAVE_0, KEEP, ACCUSE_0 + 2, ACCUSE_0 + 2, ACCUSE_0)


def test_stack_avoider_last_seat_does_not_top_a_stack() -> None:
    g = last_seat_position()
    d = decode(observe(g, 3)["observation"])
    assert posterior(d) == pytest.approx((1 / 4, 0, 3 / 4))
    assert [len(s) for s in d.stacks] == [1, 0, 2]
    # Classic, last seat: cost (1 - p) * height: 3/4, 0, 1/2. Greedy tops the 2-stack.
    assert act("greedy", g) == ACCUSE_0 + 2
    assert act("stack-avoider", g) == ACCUSE_0 + 1


def test_stack_avoider_revised_last_seat_takes_the_likeliest_culprit_on_empty_stacks() -> None:
    # Revised, penalty scoring: a culprit or covered marker costs nothing, an uncovered
    # innocent one costs the stack. Seat 1 of two is last and every stack but one empty.
    g = play(Game("revised", 2, deals=[(3, 6, 5, 7, 8, 2, 4)]), LEAVE_0, ACCUSE_0 + 1)
    d = decode(observe(g, 1)["observation"])
    p = posterior(d)
    costs = cost_of(g, 1)
    assert costs == pytest.approx([(1 - p[s]) * (len(d.stacks[s]) + 1) for s in range(3)])
    best = min(range(3), key=lambda s: (round(costs[s], 9), -p[s], s))
    assert act("stack-avoider", g) == ACCUSE_0 + best


# --------------------------------------------------------------------- piler
def test_piler_accuses_the_likeliest_innocent_while_seats_remain() -> None:
    # Seat 1 after seat 0 accused slot 2 sees 5 and 7: posterior (3/4, 0, 1/4).
    g = classic4(LEAVE_0, KEEP, ACCUSE_0 + 2)
    assert act("greedy", g) == ACCUSE_0
    assert act("piler", g) == ACCUSE_0 + 1


def test_piler_as_last_seat_accuses_the_likeliest_culprit() -> None:
    # Nobody is left to cover it, so it no longer piles on an innocent.
    assert act("piler", last_seat_position()) == ACCUSE_0 + 2


def test_piler_breaks_ties_towards_the_tallest_stack() -> None:
    # Deal: seat 1 peeks 5 and 8; suspects 4, blank, 7. Seat 0 accuses slot 1, so seat 1
    # sees the 4 and the 7, and with no 5 or 8 left unknown the 7 is surely guilty:
    # slots 0 and 1 are both sure innocents, and the piler joins the stack on slot 1.
    g = play(Game("classic", 4, deals=[(2, 5, 8, 3, 4, 0, 7, 6)]), LEAVE_0, KEEP, ACCUSE_0 + 1)
    d = decode(observe(g, 1)["observation"])
    assert posterior(d) == pytest.approx((0, 0, 1))
    assert act("piler", g) == ACCUSE_0 + 1
    assert act("greedy", g) == ACCUSE_0 + 2


# --------------------------------------------------------------------- follower
def test_follower_repeats_the_previous_accusation() -> None:
    # Seat 1 holds slot 0 likeliest (3/4) but follows seat 0 onto slot 2.
    g = classic4(LEAVE_0, KEEP, ACCUSE_0 + 2)
    assert act("follower", g) == ACCUSE_0 + 2
    g = classic4(LEAVE_0, KEEP, ACCUSE_0 + 1)
    assert act("follower", g) == ACCUSE_0 + 1


def test_follower_as_first_accuser_plays_greedy() -> None:
    assert act("follower", classic4(LEAVE_0, KEEP)) == ACCUSE_0 + 2


# --------------------------------------------------------------------- contrarian
def test_contrarian_accuses_where_nobody_has() -> None:
    # Seat 2 after slots 2 and 0 were accused sees 7 and 8: greedy takes the 8 (3/4);
    # the contrarian takes slot 1, the only one without a marker.
    g = classic4(LEAVE_0, KEEP, ACCUSE_0 + 2, ACCUSE_0)
    assert act("greedy", g) == ACCUSE_0 + 2
    assert act("contrarian", g) == ACCUSE_0 + 1


def test_contrarian_among_empty_slots_takes_the_likeliest_culprit() -> None:
    g = classic4(LEAVE_0, KEEP, ACCUSE_0 + 2)  # seat 1: (3/4, 0, 1/4), slot 2 taken
    assert act("contrarian", g) == ACCUSE_0


def test_contrarian_with_every_slot_taken_joins_the_shortest_stack() -> None:
    g = classic4(LEAVE_0, KEEP, ACCUSE_0 + 2, ACCUSE_0 + 1, ACCUSE_0)
    d = decode(observe(g, 3)["observation"])
    assert [len(s) for s in d.stacks] == [1, 1, 1]
    p = posterior(d)
    assert act("contrarian", g) == ACCUSE_0 + max(range(3), key=lambda s: (p[s], -s))


# --------------------------------------------------------------------- bluffer
def test_bluffer_swaps_away_the_likeliest_culprit() -> None:
    # Seat 0 sees 7 (slot 1) and 8 (slot 2). Either swap leaves its surest innocent at
    # 1/4 ((1/4, 1/4, 1/2) or (1/4, 1/2, 1/4)); the tie goes to removing the 8 itself.
    g = classic4(LEAVE_0)
    assert act("greedy", g) == KEEP
    assert act("bluffer", g) == SWAP_0 + 2


def test_bluffer_first_accusation_is_its_least_likely_culprit() -> None:
    g = classic4(LEAVE_0, SWAP_0 + 2)
    p = posterior(decode(observe(g, 0)["observation"]))
    assert p == pytest.approx((1 / 4, 1 / 2, 1 / 4))
    assert act("greedy", g) == ACCUSE_0 + 1
    assert act("bluffer", g) == ACCUSE_0  # least likely, ties to the lowest slot


def test_bluffer_in_revised_cannot_swap_but_still_lies() -> None:
    g = play(Game("revised", 4, deals=[(2, 3, 4, 6, 5, 7, 8, 0)]), LEAVE_0)
    assert act("bluffer", g) == ACCUSE_0 + 1  # the 7, a sure innocent
    assert act("greedy", g) == ACCUSE_0 + 2


def test_bluffer_as_later_seat_plays_greedy() -> None:
    g = classic4(LEAVE_0, KEEP, ACCUSE_0 + 2)
    assert act("bluffer", g) == GreedyAgent().act(observe(g, 1))


# --------------------------------------------------------------------- one rule, two uses
@pytest.mark.parametrize(("rules", "n"), TABLES)
def test_batch_and_single_decisions_agree(rules: str, n: int) -> None:
    from grove_env.agents.arena.match import decision_positions

    obs, masks = decision_positions(rules, n, 200, seed=3)
    for name in ACCUSERS:
        agent = make_style(name)
        single = [agent.act({"observation": o, "action_mask": m}) for o, m in zip(obs, masks)]
        assert agent.act_batch(obs, masks).tolist() == single


@pytest.mark.parametrize(("rules", "n"), TABLES)
def test_culprit_counts_are_the_exact_posterior(rules: str, n: int) -> None:
    # The integer odds over their total equal the posterior worked out by listing every
    # suspect triple the seat's view allows (trust.posterior.suspect_deals, ordered draws
    # one by one), the first player's two unknown slots after a swap included.
    from grove_env.agents.arena.match import decision_positions

    obs, _ = decision_positions(rules, n, 300, seed=5)
    rows = Rows.of(obs)
    accuse = np.flatnonzero(rows.phase == 2)
    counts = rows.counts[accuse]
    for row, c in zip(obs[accuse], counts):
        listed = [0.0, 0.0, 0.0]
        for triple, p in suspect_deals(*knowledge(decode(row))):
            listed[culprit_of(triple)] += p
        assert (c / c.sum()).tolist() == pytest.approx(listed)
        assert posterior(decode(row)) == pytest.approx(listed)


@pytest.mark.parametrize(
    ("copies", "tabled"),
    [((1,) * 8, True), ((2,) + (1,) * 7, True), ((5,) + (1,) * 7, True), ((2,) * 8, False)],
)
def test_culprit_counts_tables_equal_the_counting(copies: tuple[int, ...], tabled: bool) -> None:
    # culprit_counts reads tables filled by counted_fillings; every kind of view (none,
    # one, two or three slots unknown) must give what counting it gives. Pools of one
    # copy of each tile, two blanks (revised, 5 players) or more copies of one tile use
    # the tables; pools that would need too large a table (two of every tile) are counted.
    from grove_env.odds import count_tables, counted_fillings, culprit_counts

    rng = np.random.default_rng(len(copies) + sum(copies))
    pool = rng.integers(0, np.array(copies) + 1, size=(400, 6, 8))
    seen = rng.integers(-1, 8, size=(400, 6, 3))
    seen[:100, :, 0] = -1
    seen[:50, :, 1] = -1
    asked = count_tables.cache_info()
    got = culprit_counts(pool, seen)
    after = count_tables.cache_info()
    assert got.shape == (400, 6, 3)
    assert (got == counted_fillings(pool, seen)).all()
    assert (got.sum(axis=-1) > 0).any()
    assert (after.hits + after.misses > asked.hits + asked.misses) == tabled
    # One pool for several views broadcasts on either path.
    assert (culprit_counts(pool[:, :1], seen) == counted_fillings(pool[:, [0] * 6], seen)).all()


def test_styles_that_read_no_stacks_ignore_heights_and_later_seats() -> None:
    # The heuristic's model tables these styles' choices per previous slot only, which is
    # right only if neither the stacks nor the number of later seats changes them.
    from grove_env.agents.scripted.styles import accusation
    from grove_env.rules import get_rules

    rng = np.random.default_rng(0)
    counts = rng.integers(0, 7, size=(500, 3))
    previous = rng.integers(-1, 3, size=500)
    for rules in ("classic", "revised"):
        for name in sorted(set(ACCUSERS) - READ_STACKS):
            base = accusation(name, counts, np.zeros(3), previous, 0, None, get_rules(rules))
            for _ in range(5):
                heights = rng.integers(0, 5, size=(500, 3))
                later = rng.integers(0, 4, size=500)
                got = accusation(name, counts, heights, previous, later, None, get_rules(rules))
                assert (got == base).all(), name


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("name", ["contrarian", "stack-avoider"])
def test_at_classic_with_few_seats_nobody_gains_on_styles_that_never_top_a_stack(
    name: str, n: int
) -> None:
    # In classic a seat's count of markers held rises only when it tops another seat's
    # marker on an innocent suspect (it takes the stack) and falls only when its own is
    # topped there. With two or three seats these styles never top a stack, so their
    # counts never rise above 5 and no other agent's (here random) falls below 5: at
    # best it ties with them, so a fair share is the most anyone can win.
    from grove_env.agents.arena.match import play_game
    from grove_env.grove_v1 import raw_env

    env = raw_env(num_players=n, rules="classic")
    style, other = make_style(name), make_agent("random", seed=n)
    for g in range(60):
        seats = [other if s == g % n else style for s in range(n)]
        play_game(env, seats, seed=g)
        assert env.game is not None
        for record in env.game.history:
            held = [c + p for c, p in zip(record.coloured, record.penalty)]
            assert all(held[s] <= 5 for s in range(n) if s != g % n)
            assert held[g % n] >= 5


@pytest.mark.parametrize("spec", ["random", "contrarian"])
def test_seat_record_counts_add_up(spec: str) -> None:
    """scripts/seat_record.py: in classic a marker either sits on the culprit and comes
    back or is lost to an innocent stack, going to a seat as penalty; in revised every
    placed marker leaves the seat's hand."""
    record = load_script("seat_record").record
    classic = record(spec, "classic", 4, games=6, seed=0)
    assert classic["rounds a game"] >= 1
    assert classic["culprit share"] + classic["lost a round"] == pytest.approx(1.0)
    assert classic["penalty a round"] == pytest.approx(classic["lost a round"])
    revised = record(spec, "revised", 3, games=4, seed=0)
    assert revised["lost a round"] == pytest.approx(1.0)
    assert 0 < revised["culprit share"] < 1
