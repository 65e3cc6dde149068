"""The tables the heuristic reads its model of the styles from are the rules they table.

A view's code is the sum of its parts' codes (:class:`grove_env.odds.ViewCoder`), its
class holds its culprit counts, and the style tables of
:mod:`grove_env.agents.heuristic.style_model` hold what the styles' own functions
decide, at every class, stack and previous accusation.
"""

from __future__ import annotations

import numpy as np
import pytest

from grove_env.agents.heuristic.style_model import STYLES
from grove_env.agents.heuristic.style_tables import (
    HEIGHT_STEP,
    bluffer_swaps,
    decision_index,
    decisions,
)
from grove_env.agents.scripted.styles import accusation, bluffer_swap
from grove_env.odds import culprit_counts, table_radix, view_code, view_coder
from grove_env.rules import MAX_PLAYERS, RULE_SETS

COPIES = [(1,) * 8, (2,) + (1,) * 7]
"""Pools of one copy of each tile, and of two blanks (revised, five players)."""


def random_views(copies: tuple[int, ...], count: int = 3000) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(sum(copies))
    pool = rng.integers(0, np.array(copies) + 1, size=(count, 8))
    seen = rng.integers(-1, 8, size=(count, 3))
    seen[: count // 3, 0] = -1
    return pool, seen


@pytest.mark.parametrize("copies", COPIES)
def test_a_views_code_is_the_sum_of_its_parts_and_its_class_holds_its_counts(copies):
    pool, seen = random_views(copies)
    radix = table_radix(pool)
    assert radix is not None
    coder = view_coder(radix)
    before = pool.copy()  # the pool before the seen tiles left it
    rows, slots = np.nonzero(seen >= 0)
    np.add.at(before, (rows, seen[rows, slots]), 1)
    code = coder.pool(before) + coder.shown(seen).sum(axis=1)
    assert (code == view_code(pool, seen, radix)).all()
    assert (coder.classes[coder.of_view[code]] == culprit_counts(pool, seen)).all()
    assert len(np.unique(coder.classes, axis=0)) == len(coder.classes)


@pytest.mark.parametrize("rules", sorted(RULE_SETS))
@pytest.mark.parametrize("copies", COPIES)
def test_the_style_tables_hold_what_each_style_decides(rules, copies):
    pool, seen = random_views(copies)
    coder = view_coder(table_radix(pool))
    counts = culprit_counts(pool, seen)
    code = view_code(pool, seen, coder.radix)
    ids = coder.of_view[code]
    rng = np.random.default_rng(len(copies))
    heights = rng.integers(0, MAX_PLAYERS, size=(len(pool), 3))
    heights[rng.random(len(pool)) < 0.5] = 0
    previous = rng.integers(-1, 3, size=len(pool))
    for style in STYLES:
        for later in range(MAX_PLAYERS):
            table = decisions(style, later, coder, RULE_SETS[rules])
            got = table[decision_index(ids, previous, heights @ HEIGHT_STEP)]
            want = accusation(style, counts, heights, previous, later, None, RULE_SETS[rules])
            assert (got == want).all(), (style, later)
    assert (bluffer_swaps(coder)[code] == bluffer_swap(pool, seen, seen >= 0)).all()
