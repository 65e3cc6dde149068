"""The rules written out again, for the rule tests, and hand-built positions to play them on.

The reference functions here (``ref_*``, :class:`RefTable`) are a second, deliberately
plain reading of ``docs/rules.md``; they share no code with :mod:`grove_env.core` or
:mod:`grove_env.rules`, so a test that compares the two checks the engine against the text.
"""

from __future__ import annotations

import itertools
from collections import Counter

from grove_env import Game
from grove_env.actions import ACCUSE_0, KEEP, SWAP_0, Phase

# --------------------------------------------------------------------------- the text again

REF_PLAYER_COUNTS = {"classic": (2, 3, 4), "revised": (2, 3, 4, 5)}
REF_TILES = {
    # classic: 2-8 and one blank; 3 players remove the 2; 2 players remove the 2 and the 8
    ("classic", 2): (0, 3, 4, 5, 6, 7),
    ("classic", 3): (0, 3, 4, 5, 6, 7, 8),
    ("classic", 4): (0, 2, 3, 4, 5, 6, 7, 8),
    # revised: 2-8; 4 players add one X, 5 players add two X
    ("revised", 2): (2, 3, 4, 5, 6, 7, 8),
    ("revised", 3): (2, 3, 4, 5, 6, 7, 8),
    ("revised", 4): (0, 2, 3, 4, 5, 6, 7, 8),
    ("revised", 5): (0, 0, 2, 3, 4, 5, 6, 7, 8),
}
REF_MARKERS = {"classic": 5, "revised": 7}


def ref_culprit(suspects: tuple[int, ...]) -> int:
    """Slot of the culprit: with a 5 present the lowest number, else the highest; 0 never."""
    numbers = [t for t in suspects if t != 0]
    guilty = min(numbers) if 5 in numbers else max(numbers)
    return suspects.index(guilty)  # numbered tiles are unique in every tile set


class RefTable:
    """Marker bookkeeping of the rules, round by round, for one rule set and table size."""

    def __init__(self, rules: str, n: int) -> None:
        self.rules, self.n = rules, n
        self.coloured = [REF_MARKERS[rules]] * n
        self.penalty = [0] * n
        self.removed = [0] * n
        self.first = 0
        self.over = False

    def play_round(self, suspects: tuple[int, ...], accusations: list[tuple[int, int]]) -> None:
        """Resolve one round: ``suspects`` as revealed, ``(seat, slot)`` in play order."""
        stacks: list[list[int]] = [[], [], []]
        for seat, slot in accusations:
            self.coloured[seat] -= 1
            stacks[slot].append(seat)
        culprit = ref_culprit(suspects)
        for seat in stacks[culprit]:
            if self.rules == "classic":
                self.coloured[seat] += 1
            else:
                self.removed[seat] += 1
        for slot in (0, 1, 2):
            if slot != culprit and stacks[slot]:
                self.penalty[stacks[slot][-1]] += len(stacks[slot])
        self.over = any(self.triggers())
        self.first = (self.first + 1) % self.n

    def triggers(self) -> list[bool]:
        if self.rules == "classic":
            return [c + p >= 8 or c == 0 for c, p in zip(self.coloured, self.penalty)]
        return [p >= 5 or c == 0 for c, p in zip(self.coloured, self.penalty)]

    def scores(self) -> list[int]:
        if self.rules == "classic":
            return [c + p for c, p in zip(self.coloured, self.penalty)]
        return list(self.penalty)


def ref_standings(scores: list[int]) -> list[int]:
    return [1 + sum(o < s for o in scores) for s in scores]


def ref_returns(scores: list[int]) -> list[float]:
    n = len(scores)
    return [(sum(o > s for o in scores) - sum(o < s for o in scores)) / (n - 1) for s in scores]


# --------------------------------------------------------------------------- helpers


def deal_with(rules: str, n: int, suspects: tuple[int, ...], victim: int | None = None) -> list:
    """A deal of the table's tiles with these suspects (and victim); the rest fill in order."""
    rest = Counter(REF_TILES[(rules, n)])
    rest.subtract(suspects)
    if victim is not None:
        rest.subtract([victim])
    assert min(rest.values()) >= 0, f"{suspects} not drawable for {rules} {n}"
    others = sorted(rest.elements())
    if victim is None:
        victim = others.pop()
    return others[:n] + list(suspects) + [victim] + others[n:]


def play_round(game: Game, accuse: list[int], leave: int = 0, swap: int | None = None):
    """Play one whole round: the look, the swap decision (classic) and the accusations."""
    game.apply_action(leave)
    if game.phase is Phase.SWAP:
        game.apply_action(KEEP if swap is None else SWAP_0 + swap)
    record = None
    for slot in accuse:
        record = game.apply_action(ACCUSE_0 + slot)
    assert record is not None, "the accusations did not finish the round"
    return record


def hand_built(rules: str, n: int, coloured, penalty, suspects) -> Game:
    """A game at round 1 whose marker counts were set by hand, with the given suspects."""
    game = Game(rules, n, deals=[deal_with(rules, n, suspects)])
    game.coloured, game.penalty = list(coloured), list(penalty)
    return game


def triples(tiles: tuple[int, ...]) -> set[tuple[int, int, int]]:
    return set(itertools.permutations(tiles, 3))
