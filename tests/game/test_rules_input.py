"""Bad input to the rules: player counts, rule set names, rule sets and deals, each
refused with a message that names what is valid.
"""

from __future__ import annotations

import re

import pytest
from rules_reference import REF_PLAYER_COUNTS, deal_with

from grove_env import Game, RuleSet

# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "rules,n",
    [("classic", 1), ("classic", 5), ("classic", 0), ("revised", 1), ("revised", 6)],
)
def test_illegal_player_counts_name_the_valid_ones(rules: str, n: int) -> None:
    valid = re.escape(str(REF_PLAYER_COUNTS[rules]))
    with pytest.raises(ValueError, match=f"'{rules}'.*{valid}, got {n}$"):
        Game(rules, n)


@pytest.mark.parametrize("n", [3.0, "3", True, None])
def test_non_int_player_counts(n) -> None:
    with pytest.raises(ValueError, match=r"\(2, 3, 4\)"):
        Game("classic", n)


@pytest.mark.parametrize("name", ["Classic", "2021", "", None, 3])
def test_unknown_rule_set_names_the_valid_ones(name) -> None:
    with pytest.raises(ValueError, match=r"\['classic', 'revised'\]"):
        Game(name, 3)


BAD_RULE_SETS = {
    "no player counts": dict(player_counts=()),
    "one player": dict(player_counts=(1, 2)),
    "six players": dict(player_counts=(6,)),
    "no markers": dict(markers_per_player=0),
    "zero threshold": dict(end_markers_held=0),
    "unknown tile": dict(base_tiles=(1, 2, 3, 4, 5, 6, 7, 8)),
    "tile count": dict(removed_tiles={}),
    "all blanks": dict(player_counts=(2,), base_tiles=(0,) * 6, removed_tiles={}, added_blanks={}),
}


@pytest.mark.parametrize("case", sorted(BAD_RULE_SETS))
def test_invalid_rule_sets(case: str) -> None:
    fields = dict(
        name="bad",
        player_counts=(2, 3, 4),
        base_tiles=(0, 2, 3, 4, 5, 6, 7, 8),
        removed_tiles={2: (2, 8), 3: (2,)},
    )
    fields.update(BAD_RULE_SETS[case])
    with pytest.raises(ValueError, match="rule set 'bad'"):
        RuleSet(**fields)


BAD_DEALS = {
    "too short": ("classic", 4, [0, 2, 3, 4, 5, 6, 7]),
    "too long": ("classic", 2, [0, 3, 4, 5, 6, 7, 8]),
    "a 2 with three players": ("classic", 3, [0, 2, 4, 5, 6, 7, 8]),
    "a repeated tile": ("classic", 4, [0, 2, 3, 4, 5, 6, 7, 7]),
    "a blank in the revised 3-player game": ("revised", 3, [0, 3, 4, 5, 6, 7, 8]),
    "three X": ("revised", 5, [0, 0, 0, 3, 4, 5, 6, 7, 8]),
    "no spare in the revised 2-player game": ("revised", 2, [2, 3, 4, 5, 6, 7]),
    "not numbers": ("classic", 2, ["a", 3, 4, 5, 6, 7]),
    "not a sequence": ("classic", 2, 5),
    "None in it": ("classic", 2, [None, 3, 4, 5, 6, 7]),
    "a string of digits": ("classic", 2, "034567"),
    "digit strings": ("classic", 2, ["0", "3", "4", "5", "6", "7"]),
    "a fractional tile": ("classic", 2, [0, 3.9, 4, 5, 6, 7]),
}


@pytest.mark.parametrize("case", sorted(BAD_DEALS))
def test_malformed_deals(case: str) -> None:
    rules, n, deal = BAD_DEALS[case]
    with pytest.raises(ValueError, match="deal"):
        Game(rules, n, deals=[deal])


def test_a_malformed_later_deal_is_rejected_up_front() -> None:
    good = deal_with("classic", 2, (3, 6, 7))
    with pytest.raises(ValueError, match="permutation"):
        Game("classic", 2, deals=[good, [0, 3, 4, 5, 6, 6]])
