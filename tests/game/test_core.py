"""The game core's mechanics: turn order, the look, the swap, who knows which tile."""

from __future__ import annotations

import random

import pytest
from positions import TABLES

from grove_env import Game, culprit_slot
from grove_env.actions import ACCUSE_0, KEEP, NUM_ACTIONS, SWAP_0, Phase
from grove_env.text import describe_round, describe_table

# A deal per table with distinct, easy tiles: seats get the low tiles, suspects 5, 7, 8
# (or 5, 6, 7 where the 8 is out), the victim 6 (or 4).
DEALS = {
    ("classic", 2): (3, 4, 5, 6, 7, 0),
    ("classic", 3): (0, 3, 4, 5, 7, 8, 6),
    ("classic", 4): (0, 2, 3, 4, 5, 7, 8, 6),
    ("revised", 2): (2, 3, 5, 7, 8, 6, 4),
    ("revised", 3): (2, 3, 4, 5, 7, 8, 6),
    ("revised", 4): (0, 2, 3, 4, 5, 7, 8, 6),
    ("revised", 5): (0, 0, 2, 3, 4, 5, 7, 8, 6),
}


def seen_slots(game: Game, seat: int) -> dict[int, int]:
    return {s: t for s, t in enumerate(game.seen[seat]) if t is not None}


def snapshot(game: Game) -> tuple:
    return (
        tuple(game.information_state(s) for s in range(game.num_players)),
        game.suspects[:],
        game.victim,
        [s[:] for s in game.stacks],
        game.victim_known_by,
        game.current_player,
        game.phase,
    )


# --------------------------------------------------------------------------- deal and peek


@pytest.mark.parametrize("rules,n", TABLES)
def test_deal_layout(rules: str, n: int) -> None:
    deal = DEALS[(rules, n)]
    game = Game(rules, n, deals=[deal])
    assert game.dealt == list(deal[:n])
    assert game.suspects == list(deal[n : n + 3])
    assert game.victim == deal[n + 3]
    assert game.spare == (deal[n + 4] if (rules, n) == ("revised", 2) else None)
    assert (game.round, game.first_player, game.current_player) == (1, 0, 0)
    assert game.phase is Phase.LOOK and game.stacks == [[], [], []]
    assert all(seen == [None, None, None] for seen in game.seen)


@pytest.mark.parametrize("rules,n", TABLES)
def test_peek_and_pass(rules: str, n: int) -> None:
    """Seat i knows the tiles first dealt to seats i and i+1 (passing to the right)."""
    deal = DEALS[(rules, n)]
    game = Game(rules, n, deals=[deal])
    for seat in range(n):
        assert game.known_tiles(seat) == (deal[seat], deal[(seat + 1) % n])
        assert game.information_state(seat)[8] == (deal[seat], deal[(seat + 1) % n])


@pytest.mark.parametrize("rules", ["classic", "revised"])
def test_two_players_know_both_dealt_tiles(rules: str) -> None:
    deal = DEALS[(rules, 2)]
    game = Game(rules, 2, deals=[deal])
    assert set(game.known_tiles(0)) == set(game.known_tiles(1)) == set(deal[:2])


def test_revised_two_player_spare_is_public() -> None:
    deal = DEALS[("revised", 2)]
    game = Game("revised", 2, deals=[deal])
    assert game.spare == deal[-1] == 4
    assert [game.information_state(s)[9] for s in (0, 1)] == [4, 4]
    for rules, n in TABLES:
        if (rules, n) != ("revised", 2):
            assert Game(rules, n).spare is None


# --------------------------------------------------------------------------- the look


@pytest.mark.parametrize("rules,n", TABLES)
@pytest.mark.parametrize("unseen", [0, 1, 2])
def test_first_player_sees_the_two_other_slots(rules: str, n: int, unseen: int) -> None:
    game = Game(rules, n, deals=[DEALS[(rules, n)]])
    assert game.legal_actions() == [0, 1, 2]
    game.apply_action(unseen)
    assert game.unseen_slot == unseen
    assert seen_slots(game, 0) == {s: game.suspects[s] for s in (0, 1, 2) if s != unseen}
    assert all(seen_slots(game, s) == {} for s in range(1, n))
    assert game.current_player == 0
    if rules == "classic":
        assert game.phase is Phase.SWAP
        assert game.legal_actions() == [KEEP] + [SWAP_0 + s for s in (0, 1, 2) if s != unseen]
    else:
        assert game.phase is Phase.ACCUSE, "revised has no swap phase"
        assert game.legal_actions() == [ACCUSE_0, ACCUSE_0 + 1, ACCUSE_0 + 2]


# --------------------------------------------------------------------------- the swap


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("unseen,slot", [(u, s) for u in (0, 1, 2) for s in (0, 1, 2) if s != u])
def test_swap_gives_the_first_player_the_victim(n: int, unseen: int, slot: int) -> None:
    deal = DEALS[("classic", n)]
    game = Game("classic", n, deals=[deal])
    game.apply_action(unseen)
    old_suspect, old_victim = game.suspects[slot], game.victim
    game.apply_action(SWAP_0 + slot)
    assert game.suspects[slot] == old_victim and game.victim == old_suspect
    assert game.tampered_slot == slot
    assert game.victim_for(0) == old_suspect  # the tile it saw there
    assert all(game.victim_for(s) is None for s in range(1, n))
    # it forgets the swapped slot and still knows the third
    other = 3 - unseen - slot
    assert seen_slots(game, 0) == {other: game.suspects[other]}
    assert game.phase is Phase.ACCUSE and game.current_player == 0


@pytest.mark.parametrize("n", [2, 3, 4])
def test_keep_leaves_the_victim_unknown(n: int) -> None:
    game = Game("classic", n, deals=[DEALS[("classic", n)]])
    game.apply_action(1)
    game.apply_action(KEEP)
    assert game.tampered_slot is None and game.victim_known_by is None
    assert all(game.victim_for(s) is None for s in range(n))
    assert seen_slots(game, 0) == {0: game.suspects[0], 2: game.suspects[2]}


def test_swapping_the_unseen_slot_is_illegal() -> None:
    game = Game("classic", 4, deals=[DEALS[("classic", 4)]])
    game.apply_action(2)
    assert not game.is_legal(SWAP_0 + 2)
    with pytest.raises(ValueError, match="illegal for seat 0 in phase swap"):
        game.apply_action(SWAP_0 + 2)


# --------------------------------------------------------------------------- later looks


@pytest.mark.parametrize("rules,n", TABLES)
def test_later_players_see_what_the_previous_player_did_not_accuse(rules, n) -> None:
    rng = random.Random(f"{rules}{n}")
    for _ in range(30):
        game = Game(rules, n, deals=[DEALS[(rules, n)]])
        game.apply_action(rng.randrange(3))
        if game.phase is Phase.SWAP:
            game.apply_action(rng.choice(game.legal_actions()))
        for k in range(1, n):
            slot = rng.randrange(3)
            game.apply_action(ACCUSE_0 + slot)
            seat = k
            assert game.current_player == seat
            assert seen_slots(game, seat) == {
                s: game.suspects[s] for s in (0, 1, 2) if s != slot
            }, "sees the two suspects (as they are now) other than the one just accused"
            assert all(seen_slots(game, s) == {} for s in range(seat + 1, n))


def test_later_player_sees_the_swapped_in_tile() -> None:
    """After a swap into slot 0, a later player who looks at slot 0 sees the old victim."""
    game = Game("classic", 3, deals=[DEALS[("classic", 3)]])  # suspects 5 7 8, victim 6
    game.apply_action(2)  # seat 0 sees 5 and 7
    game.apply_action(SWAP_0 + 0)  # the 6 goes to slot 0, the 5 is the victim
    game.apply_action(ACCUSE_0 + 2)
    assert seen_slots(game, 1) == {0: 6, 1: 7}
    assert game.victim_for(1) is None


def test_turn_order_and_first_player_rotation() -> None:
    game = Game("revised", 5, seed=3)
    order = []
    while game.round <= 3:  # everyone accuses the culprit: nobody takes a penalty
        if game.phase is Phase.ACCUSE:
            order.append((game.round, game.first_player, game.current_player))
            game.apply_action(ACCUSE_0 + culprit_slot(game.suspects))
        else:
            game.apply_action(game.legal_actions()[0])
    assert order[:15] == [(r, (r - 1) % 5, ((r - 1) + k) % 5) for r in (1, 2, 3) for k in range(5)]


# --------------------------------------------------------------------------- protocol


@pytest.mark.parametrize("rules,n", TABLES)
def test_legal_actions_sorted_and_is_legal_agrees(rules: str, n: int) -> None:
    rng = random.Random(n)
    for seed in range(20):
        game = Game(rules, n, seed=seed)
        while not game.terminal:
            legal = game.legal_actions()
            assert legal == sorted(legal) and legal
            assert [a for a in range(NUM_ACTIONS) if game.is_legal(a)] == legal
            game.apply_action(rng.choice(legal))
        assert game.legal_actions() == [] and game.phase is Phase.OVER
        assert not any(game.is_legal(a) for a in range(NUM_ACTIONS))


@pytest.mark.parametrize("rules,n", TABLES)
def test_illegal_action_raises_and_changes_nothing(rules: str, n: int) -> None:
    game = Game(rules, n, deals=[DEALS[(rules, n)]])
    for _ in range(3 + (rules == "classic")):  # up to the accusation of seat 1
        for bad in [a for a in range(-1, NUM_ACTIONS + 1) if not game.is_legal(a)]:
            before = snapshot(game)
            with pytest.raises(ValueError) as err:
                game.apply_action(bad)
            message = str(err.value)
            assert f"seat {game.current_player}" in message
            assert f"phase {game.phase.name.lower()}" in message
            assert all(str(a) in message for a in game.legal_actions())
            assert snapshot(game) == before
        game.apply_action(game.legal_actions()[0])


def test_no_move_after_the_end() -> None:
    game = Game("revised", 2, seed=0)
    while not game.terminal:
        game.apply_action(game.legal_actions()[0])
    with pytest.raises(ValueError, match="the game is over"):
        game.apply_action(ACCUSE_0)


@pytest.mark.parametrize("rules,n", TABLES)
def test_seeded_games_repeat_and_forced_deals_come_first(rules: str, n: int) -> None:
    def deals_of(game: Game) -> list[tuple[int, ...]]:
        while not game.terminal:  # the culprit for two rounds, then slot 2 to the end
            if game.phase is Phase.ACCUSE and game.round <= 2:
                game.apply_action(ACCUSE_0 + culprit_slot(game.suspects))
            else:
                game.apply_action(game.legal_actions()[-1])
        return [r.deal for r in game.history]

    assert deals_of(Game(rules, n, seed=7)) == deals_of(Game(rules, n, seed=7))
    forced = [DEALS[(rules, n)], tuple(reversed(DEALS[(rules, n)]))]
    played = deals_of(Game(rules, n, seed=7, deals=forced))
    assert played[:2] == forced
    for deal in played:
        assert sorted(deal) == sorted(DEALS[(rules, n)])


def test_round_record_and_info() -> None:
    game = Game("classic", 2, deals=[DEALS[("classic", 2)]])  # suspects 5 6 7, victim 0
    game.apply_action(0)
    game.apply_action(KEEP)
    assert game.apply_action(ACCUSE_0 + 1) is None
    record = game.apply_action(ACCUSE_0 + 1)
    assert record is game.history[-1]
    assert record.number == 1 and record.first_player == 0 and record.unseen_slot == 0
    assert record.accusations == ((0, 1), (1, 1)) and record.culprit == 0
    assert record.as_info() == {
        "round": 1,
        "suspects": [5, 6, 7],
        "culprit": 0,
        "stacks": [[], [0, 1], []],
        "coloured": [4, 4],
        "penalty": [0, 2],
    }


def test_text_forms() -> None:
    game = Game("revised", 2, deals=[DEALS[("revised", 2)]])
    line = str(game)
    assert "revised, 2 players" in line and "round 1" in line and "seat 0 to look" in line
    assert "\n" not in line
    text = describe_table(game)
    assert text.splitlines()[0] == line and "face-up spare: 4" in text
    assert repr(game).startswith("Game(rules='revised', num_players=2, round=1")
    hidden = describe_table(game, reveal=False)
    assert "victim" not in hidden and "dealt" not in hidden
    game.apply_action(0)
    game.apply_action(ACCUSE_0)
    record = game.apply_action(ACCUSE_0)
    assert "removed from the game" in describe_round(record, "revised")
