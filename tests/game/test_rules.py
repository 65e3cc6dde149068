"""Rule scenarios on hand-built positions: the tile sets, the culprit and the resolution.

Each is checked against the independent reference reading of the rules in
``rules_reference.py``; the end of the game is in ``test_rules_end.py``, bad input in
``test_rules_input.py``.
"""

from __future__ import annotations

import itertools

import pytest
from positions import TABLES
from rules_reference import (
    REF_MARKERS,
    REF_PLAYER_COUNTS,
    REF_TILES,
    RefTable,
    deal_with,
    play_round,
    ref_culprit,
    triples,
)

from grove_env import CLASSIC, REVISED, Game, culprit_slot, get_rules

# --------------------------------------------------------------------------- tile sets


@pytest.mark.parametrize("rules,n", TABLES)
def test_tiles_of_each_table(rules: str, n: int) -> None:
    assert get_rules(rules).tiles(n) == REF_TILES[(rules, n)]
    assert Game(rules, n).coloured == [REF_MARKERS[rules]] * n


def test_rule_set_fields() -> None:
    assert CLASSIC.player_counts == REF_PLAYER_COUNTS["classic"]
    assert REVISED.player_counts == REF_PLAYER_COUNTS["revised"]
    assert CLASSIC.victim_swap and not REVISED.victim_swap
    assert (CLASSIC.markers_per_player, REVISED.markers_per_player) == (5, 7)
    assert [CLASSIC.has_spare(n) for n in (2, 3, 4)] == [False] * 3
    assert [REVISED.has_spare(n) for n in (2, 3, 4, 5)] == [True, False, False, False]
    assert get_rules("classic") is CLASSIC and get_rules(REVISED) is REVISED


# --------------------------------------------------------------------------- culprit


KNOWN_CULPRITS = [
    ((3, 5, 8), 0),  # a 5: the lowest
    ((8, 5, 3), 2),
    ((3, 6, 8), 2),  # no 5: the highest
    ((6, 4, 2), 0),
    ((0, 5, 8), 1),  # the blank is not the lowest number
    ((2, 0, 5), 0),
    ((0, 7, 6), 1),
    ((0, 0, 2), 2),  # two X: the one numbered suspect
    ((0, 5, 0), 1),
    ((8, 0, 0), 0),
]


@pytest.mark.parametrize("suspects,culprit", KNOWN_CULPRITS)
def test_known_culprits(suspects, culprit) -> None:
    assert culprit_slot(suspects) == culprit == ref_culprit(suspects)


def test_culprit_needs_a_numbered_suspect() -> None:
    with pytest.raises(ValueError, match="no numbered tile"):
        culprit_slot([0, 0, 0])


def test_culprit_of_every_suspect_triple() -> None:
    """Every ordered triple of both tile sets (classic: 0, 2..8; revised: up to two X)."""
    classic = triples((0, 2, 3, 4, 5, 6, 7, 8))
    revised = triples((0, 0, 2, 3, 4, 5, 6, 7, 8))
    assert len(classic) == 8 * 7 * 6
    assert len(revised) == 7 * 6 * 5 + 3 * 7 * 6 + 3 * 7  # no X, one X, two X
    for suspects in classic | revised:
        assert culprit_slot(suspects) == ref_culprit(suspects), suspects


@pytest.mark.parametrize("rules,n", TABLES)
def test_culprit_in_play_for_every_drawable_triple(rules: str, n: int) -> None:
    """Each triple the table can deal, played as a round: the record names the same slot."""
    for suspects in sorted(triples(REF_TILES[(rules, n)])):
        game = Game(rules, n, deals=[deal_with(rules, n, suspects)])
        record = play_round(game, accuse=[0] * n)
        assert record.suspects == suspects
        assert record.culprit == ref_culprit(suspects), suspects


# --------------------------------------------------------------------------- resolution


@pytest.mark.parametrize("rules,n", TABLES)
@pytest.mark.parametrize("suspects", [(3, 6, 7), (7, 3, 6), (6, 7, 3), (4, 5, 7)])
def test_every_accusation_pattern_resolves_as_written(rules, n, suspects) -> None:
    """All 3**n accusation patterns, culprit in each slot: counts match the reference."""
    deal = deal_with(rules, n, suspects)
    for pattern in itertools.product((0, 1, 2), repeat=n):
        game = Game(rules, n, deals=[deal])
        record = play_round(game, accuse=list(pattern))
        ref = RefTable(rules, n)
        ref.play_round(suspects, list(enumerate(pattern)))
        assert list(record.coloured) == ref.coloured, pattern
        assert list(record.penalty) == ref.penalty, pattern
        assert game.removed == ref.removed, pattern
        assert record.stacks == tuple(
            tuple(s for s, k in enumerate(pattern) if k == slot) for slot in (0, 1, 2)
        )
        assert game.terminal is ref.over


@pytest.mark.parametrize("n", [2, 3, 4])
def test_classic_markers_under_the_culprit_return(n: int) -> None:
    game = Game("classic", n, deals=[deal_with("classic", n, (3, 6, 7))])
    record = play_round(game, accuse=[2] * n)  # everyone accuses the 7
    assert record.culprit == 2 and record.stacks[2] == tuple(range(n))
    assert record.returned == (1,) * n and record.removed == (0,) * n
    assert game.coloured == [5] * n and game.penalty == [0] * n
    assert record.penalty_flows == ()  # empty innocent stacks give nothing
    assert not game.terminal


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_revised_markers_under_the_culprit_are_removed(n: int) -> None:
    game = Game("revised", n, deals=[deal_with("revised", n, (3, 6, 7))])
    record = play_round(game, accuse=[2] * n)
    assert record.returned == (0,) * n and record.removed == (1,) * n
    assert game.coloured == [6] * n and game.penalty == [0] * n and game.removed == [1] * n
    assert not game.terminal


@pytest.mark.parametrize("rules,n", TABLES)
def test_innocent_stack_goes_to_its_top_marker_own_marker_included(rules, n) -> None:
    """Everyone piles on innocent slot 0: the last to accuse takes the whole stack."""
    start = REF_MARKERS[rules]
    game = Game(rules, n, deals=[deal_with(rules, n, (3, 6, 7))])
    record = play_round(game, accuse=[0] * n)
    assert record.penalty_flows == ((0, n - 1, n),)
    assert game.penalty == [0] * (n - 1) + [n]
    assert game.coloured == [start - 1] * n


@pytest.mark.parametrize("rules,n", TABLES)
def test_a_lone_marker_on_an_innocent_comes_back_as_penalty(rules, n) -> None:
    """Seat 0 alone on innocent slot 0, seat 1 alone on innocent slot 1, others on the 7."""
    start = REF_MARKERS[rules]
    game = Game(rules, n, deals=[deal_with(rules, n, (3, 6, 7))])
    record = play_round(game, accuse=[0, 1] + [2] * (n - 2))
    assert record.penalty_flows == ((0, 0, 1), (1, 1, 1))
    assert game.penalty[:2] == [1, 1] and game.penalty[2:] == [0] * (n - 2)
    back = 1 if rules == "classic" else 0
    assert game.coloured == [start - 1, start - 1] + [start - 1 + back] * (n - 2)


@pytest.mark.parametrize("n", [3, 4])
def test_top_marker_owner_takes_a_stack_with_others_below(n: int) -> None:
    """Order on the stack, not seat number: seat 2 tops slot 1 over seats 0 and 1."""
    game = Game("classic", n, deals=[deal_with("classic", n, (3, 6, 7))])
    record = play_round(game, accuse=[1, 1, 1] + [0] * (n - 3))
    flows = dict((slot, (to, k)) for slot, to, k in record.penalty_flows)
    assert flows[1] == (2, 3)
    if n == 4:
        assert flows[0] == (3, 1)
    assert game.penalty[2] == 3 and game.penalty[:2] == [0, 0]


def test_docstring_example_round() -> None:
    """The round in core.py's docstring, checked field by field."""
    game = Game("classic", 4, deals=[(2, 3, 4, 6, 5, 7, 8, 0)])
    record = play_round(game, leave=0, accuse=[2, 0, 1, 1])
    assert record.suspects == (5, 7, 8) and record.culprit == 0
    assert record.stacks == ((1,), (2, 3), (0,))
    assert record.penalty_flows == ((1, 3, 2), (2, 0, 1))
    assert game.coloured == [4, 5, 4, 4] and game.penalty == [1, 0, 0, 2]


def test_swapped_victim_changes_the_culprit() -> None:
    """Classic: the culprit is judged on the suspects after the swap."""
    deal = deal_with("classic", 4, (3, 6, 7), victim=8)
    game = Game("classic", 4, deals=[deal])
    record = play_round(game, leave=2, swap=0, accuse=[1, 1, 1, 1])
    assert record.suspects == (8, 6, 7) and record.tampered_slot == 0
    assert record.culprit == 0  # the 8 came in from the victim
    assert game.penalty == [0, 0, 0, 4]
