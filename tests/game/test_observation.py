"""The observation encoder: the index table, the decoder, and that nothing leaks.

The no-leak tests work out, from the action sequence alone and independently of the
engine, which dealt tiles a seat can know at each point of a round; re-dealing the
others must leave its observation unchanged, and changing one it knows must not.
The converse compares :meth:`Game.information_state` with the vectors over many positions.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from positions import TABLES

from grove_env import OBS_SIZE, Game, ObservationEncoder, decode
from grove_env.actions import ACCUSE_0, KEEP, SWAP_0, Phase
from grove_env.observation import (
    OBS_HIGH,
    OFF_ACCUSATIONS,
    OFF_COLOURED,
    OFF_DEALT,
    OFF_FIRST,
    OFF_PENALTY,
    OFF_PHASE,
    OFF_PLAYERS,
    OFF_PRESENT,
    OFF_RECEIVED,
    OFF_ROUND,
    OFF_RULES,
    OFF_SEEN,
    OFF_SPARE,
    OFF_TAMPERED,
    OFF_TILES_IN_PLAY,
    OFF_TO_ACT,
    OFF_UNSEEN,
    OFF_VICTIM,
    TILE_INDEX,
)


def encoder_for(game: Game) -> ObservationEncoder:
    return ObservationEncoder(game.rules, game.num_players)


def hot(offset: int, tile: int) -> int:
    return offset + TILE_INDEX[tile]


# --------------------------------------------------------------------------- index table


def test_offsets_tile_the_vector() -> None:
    sizes = [
        (OFF_PLAYERS, 4),
        (OFF_RULES, 6),
        (OFF_TILES_IN_PLAY, 8),
        (OFF_DEALT, 8),
        (OFF_RECEIVED, 8),
        (OFF_SPARE, 8),
        (OFF_SEEN, 24),
        (OFF_VICTIM, 8),
        (OFF_UNSEEN, 3),
        (OFF_TAMPERED, 3),
        (OFF_FIRST, 5),
        (OFF_TO_ACT, 5),
        (OFF_PHASE, 4),
        (OFF_ACCUSATIONS, 15),
        (OFF_COLOURED, 5),
        (OFF_PENALTY, 5),
        (OFF_PRESENT, 5),
        (OFF_ROUND, 1),
    ]
    position = 0
    for offset, size in sizes:
        assert offset == position
        position += size
    assert position == OBS_SIZE == 125


def test_a_classic_position_entry_by_entry() -> None:
    game = Game("classic", 4, deals=[(2, 3, 4, 6, 5, 7, 8, 0)])
    game.apply_action(0)  # seat 0 leaves slot 0 (the 5) unseen, sees 7 and 8
    game.apply_action(SWAP_0 + 1)  # the blank into slot 1, seat 0 knows the 7 is the victim
    game.apply_action(ACCUSE_0 + 2)
    enc = encoder_for(game)

    obs = enc.encode(game, 0)
    expected = {
        OFF_PLAYERS + 2: 1.0,  # four players
        OFF_RULES: 1.0,  # victim swap
        OFF_RULES + 3: 0.5,  # 5 markers
        OFF_RULES + 4: 0.8,  # ends at 8 held
        hot(OFF_DEALT, 2): 1.0,
        hot(OFF_RECEIVED, 3): 1.0,
        hot(OFF_SEEN + 16, 8): 1.0,  # slot 2 still known; slot 1 forgotten
        hot(OFF_VICTIM, 7): 1.0,
        OFF_UNSEEN + 0: 1.0,
        OFF_TAMPERED + 1: 1.0,
        OFF_FIRST + 0: 1.0,
        OFF_TO_ACT + 1: 1.0,
        OFF_PHASE + 2: 1.0,
        OFF_ACCUSATIONS + 2: 1.0,
        OFF_COLOURED + 0: 0.4,
        OFF_ROUND: 0.0,
    }
    for r in range(1, 4):
        expected[OFF_COLOURED + r] = 0.5
    for r in range(4):
        expected[OFF_PRESENT + r] = 1.0
    for t in (0, 2, 3, 4, 5, 6, 7, 8):
        expected[hot(OFF_TILES_IN_PLAY, t)] = 0.5
    want = np.zeros(OBS_SIZE, dtype=np.float32)
    for i, v in expected.items():
        want[i] = v
    np.testing.assert_array_equal(obs, want)

    # seat 1: relative seats shift; it sees slots 0 and 1 (seat 0 accused slot 2)
    d1 = decode(enc.encode(game, 1))
    assert d1.my_tiles == (3, 4) and d1.seen == (5, 0, None) and d1.victim is None
    assert (d1.first_player, d1.to_act, d1.unseen_slot, d1.tampered_slot) == (3, 0, 0, 1)
    assert d1.accusations == ((3, 2),) and d1.coloured == (5, 5, 5, 4)
    # seat 3 knows nothing of the suspects yet
    d3 = decode(enc.encode(game, 3))
    assert d3.my_tiles == (6, 2) and d3.seen == (None, None, None)
    assert (d3.first_player, d3.to_act) == (1, 2)


@pytest.mark.parametrize("rules,n", TABLES)
def test_static_part(rules: str, n: int) -> None:
    game = Game(rules, n, seed=0)
    d = decode(encoder_for(game).encode(game, 0))
    assert d.num_players == n
    assert d.tiles_in_play == game.rules.tiles(n)
    assert d.victim_swap is (rules == "classic")
    assert d.culprit_markers_removed is (rules == "revised")
    assert d.penalty_scoring is (rules == "revised")
    assert d.markers_per_player == game.rules.markers_per_player
    obs = encoder_for(game).encode(game, 0)
    assert obs[OFF_PRESENT : OFF_PRESENT + 5].tolist() == [1.0] * n + [0.0] * (5 - n)
    assert d.spare == game.spare


def test_encode_writes_the_whole_buffer() -> None:
    game = Game("revised", 5, seed=1)
    enc = encoder_for(game)
    out = np.full(OBS_SIZE, 7.0, dtype=np.float32)
    assert enc.encode(game, 2, out) is out
    np.testing.assert_array_equal(out, enc.encode(game, 2))


def test_one_hots_are_bounded_and_counts_are_not() -> None:
    assert np.isinf(OBS_HIGH[[OFF_COLOURED, OFF_PENALTY + 4, OFF_ROUND]]).all()
    assert (OBS_HIGH[OFF_DEALT:OFF_COLOURED] == 1.0).all()


def test_decode_rejects_a_wrong_shape() -> None:
    with pytest.raises(ValueError, match=r"\(125,\)"):
        decode(np.zeros(124, dtype=np.float32))


def test_game_over_observation() -> None:
    game = Game("revised", 3, seed=4)
    while not game.terminal:
        game.apply_action(game.legal_actions()[0])
    d = decode(encoder_for(game).encode(game, 1))
    assert d.phase is Phase.OVER and d.to_act is None
    assert d.penalty == tuple(game.penalty[(1 + r) % 3] for r in range(3))


# --------------------------------------------------------------------------- no leak


def known_deal_indices(rules: str, n: int, first: int, actions: list[int], seat: int) -> set[int]:
    """Deal positions whose tile ``seat`` knows after ``actions`` (this round), from the
    rules alone: its own and its right neighbour's tiles, the spare, the suspects it
    looked at, and the victim if it swapped it out."""
    known = {seat, (seat + 1) % n}
    if rules == "revised" and n == 2:
        known.add(n + 4)
    where = [n, n + 1, n + 2]  # deal position of the tile now in each slot
    victim = n + 3
    steps = iter(actions)
    unseen = next(steps, None)
    if unseen is None:
        return known
    if seat == first:
        known |= {where[s] for s in range(3) if s != unseen}
    if rules == "classic":
        choice = next(steps, None)
        if choice is None:
            return known
        if choice != KEEP:
            slot = choice - SWAP_0
            where[slot], victim = victim, where[slot]  # first player still knows the old one
    for k, action in enumerate(steps):
        looker = (first + k + 1) % n
        if k + 1 < n and looker == seat:
            known |= {where[s] for s in range(3) if s != action - ACCUSE_0}
    return known


def random_round_actions(rules: str, n: int, rng: random.Random) -> list[int]:
    actions = [rng.randrange(3)]
    if rules == "classic":
        actions.append(rng.choice([KEEP] + [SWAP_0 + s for s in range(3) if s != actions[0]]))
    actions += [ACCUSE_0 + rng.randrange(3) for _ in range(n)]
    return actions


def observe_after(rules, n, deals, actions, seat) -> tuple[np.ndarray, tuple]:
    game = Game(rules, n, deals=deals)
    for a in actions:
        game.apply_action(a)
    return encoder_for(game).encode(game, seat), game.information_state(seat)


@settings(max_examples=120, deadline=None)
@given(
    combo=st.sampled_from(TABLES),
    seed=st.integers(0, 2**32 - 1),
    later_round=st.booleans(),
)
def test_redealing_what_a_seat_cannot_know_changes_nothing(combo, seed, later_round) -> None:
    """At every point of a round and for every seat: unknown tiles re-dealt, same vector;
    a known tile exchanged with an unknown one of another value, a different vector."""
    rules, n = combo
    rng = random.Random(seed)
    tiles = list(Game(rules, n).rules.tiles(n))
    deal = rng.sample(tiles, len(tiles))
    # In the later-round variant, round 1 is played the same way in both worlds, so the
    # counts agree, and the round of interest is round 2 with seat 1 first.
    before: list[int] = []
    deals = [deal]
    first = 0
    if later_round:
        before = random_round_actions(rules, n, rng)
        if len(set(before[-n:])) == 1:  # one seat topping every marker could end the game
            before[-1] = ACCUSE_0 + (before[-1] - ACCUSE_0 + 1) % 3
        deals = [rng.sample(tiles, len(tiles)), deal]
        first = 1
    actions = random_round_actions(rules, n, rng)[:-1]  # stop before the resolution
    for cut in range(len(actions) + 1):
        prefix = before + actions[:cut]
        for seat in range(n):
            obs, info = observe_after(rules, n, deals, prefix, seat)
            known = known_deal_indices(rules, n, first, actions[:cut], seat)
            unknown = [i for i in range(len(deal)) if i not in known]
            # re-deal the unknown positions (a rotation, so tiles really move)
            other = list(deal)
            values = [deal[i] for i in unknown]
            k = rng.randrange(1, len(values)) if len(values) > 1 else 0
            for i, v in zip(unknown, values[k:] + values[:k]):
                other[i] = v
            alt_obs, alt_info = observe_after(rules, n, deals[:-1] + [other], prefix, seat)
            np.testing.assert_array_equal(obs, alt_obs)
            assert info == alt_info
            # exchange a known tile with an unknown one of a different value
            pairs = [(i, j) for i in known for j in unknown if deal[i] != deal[j]]
            if pairs:
                i, j = rng.choice(pairs)
                other = list(deal)
                other[i], other[j] = other[j], other[i]
                changed, _ = observe_after(rules, n, deals[:-1] + [other], prefix, seat)
                assert not np.array_equal(obs, changed), (seat, cut, i, j)


@pytest.mark.parametrize("rules,n", TABLES)
def test_the_first_player_knows_exactly_what_the_rules_say(rules: str, n: int) -> None:
    """The reference knowledge sets above, checked against a few explicit cases."""
    assert known_deal_indices(rules, n, 0, [], 0) == {0, 1} | (
        {6} if n == 2 and rules == "revised" else set()
    )
    after_look = known_deal_indices(rules, n, 0, [1], 0)
    assert {n, n + 2} <= after_look and n + 1 not in after_look
    if rules == "classic":
        swapped = known_deal_indices(rules, n, 0, [1, SWAP_0 + 2], 0)
        assert swapped == after_look  # the old slot-2 tile is now the victim, still known
        later = known_deal_indices(rules, n, 0, [1, SWAP_0 + 2, ACCUSE_0 + 0], 1)
        assert later >= {n + 1, n + 3} and n not in later  # slot 2 now holds the old victim


@pytest.mark.parametrize("rules,n", TABLES)
def test_information_states_and_vectors_correspond_one_to_one(rules: str, n: int) -> None:
    """Over many random positions: equal information states, equal vectors; different
    information states, different vectors."""
    rng = random.Random(f"{rules}/{n}")
    vector_of: dict[tuple, bytes] = {}
    state_of: dict[bytes, tuple] = {}
    for seed in range(120):
        game = Game(rules, n, seed=seed)
        enc = encoder_for(game)
        while True:
            for seat in range(n):
                info = game.information_state(seat)
                vec = enc.encode(game, seat).tobytes()
                assert vector_of.setdefault(info, vec) == vec, info
                assert state_of.setdefault(vec, info) == info, (info, state_of[vec])
            if game.terminal:
                break
            game.apply_action(rng.choice(game.legal_actions()))
    assert len(vector_of) == len(state_of) > 1000
