"""Rule scenarios on hand-built positions, checked against the rules written out again here.

The reference functions below (``ref_*``) are a second, deliberately plain reading of
``docs/rules.md``; they share no code with :mod:`grove_env.core` or
:mod:`grove_env.rules`, so a test that compares the two checks the engine against the text.
"""

from __future__ import annotations

import itertools
import random
import re
from collections import Counter

import pytest
from positions import TABLES

from grove_env import CLASSIC, REVISED, Game, RuleSet, culprit_slot, get_rules
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


# --------------------------------------------------------------------------- end of game

OTHERS = 2  # in the end scenarios, seats 2.. accuse the culprit (slot 2 holds the 7)

# (rules, coloured/penalty of seats 0 and 1 before, accusations of seats 0 and 1,
#  seats 0 and 1 after, whether the game ends, which of seats 0/1 ended it)
END_CASES = {
    "classic: 7 held -> 8 held ends": (
        "classic", [(5, 0), (3, 4)], [0, 0], [(4, 0), (2, 6)], True, [1]),
    "classic: 6 held -> 7 held goes on": (
        "classic", [(5, 0), (3, 3)], [0, 0], [(4, 0), (2, 5)], False, []),
    "classic: 7 held -> 8 held on slot 1 ends": (
        "classic", [(5, 0), (3, 4)], [1, 1], [(4, 0), (2, 6)], True, [1]),
    "classic: 7 penalty -> 8 penalty, the last coloured gone": (
        "classic", [(5, 0), (1, 6)], [0, 0], [(4, 0), (0, 8)], True, [1]),
    "classic: last coloured on an innocent ends": (
        "classic", [(5, 0), (1, 2)], [2, 1], [(5, 0), (0, 3)], True, [1]),
    "classic: last coloured on the culprit comes back": (
        "classic", [(5, 0), (1, 2)], [2, 2], [(5, 0), (1, 2)], False, []),
    "classic: both conditions in one round": (
        "classic", [(1, 0), (3, 4)], [0, 0], [(0, 0), (2, 6)], True, [0, 1]),
    "revised: 4 penalty -> 5 ends": (
        "revised", [(7, 0), (5, 3)], [0, 0], [(6, 0), (4, 5)], True, [1]),
    "revised: 2 penalty -> 4 goes on": (
        "revised", [(7, 0), (5, 2)], [0, 0], [(6, 0), (4, 4)], False, []),
    "revised: 9 markers held does not end": (
        "revised", [(7, 0), (6, 2)], [0, 0], [(6, 0), (5, 4)], False, []),
    "revised: last marker on the culprit is removed and ends": (
        "revised", [(7, 0), (1, 2)], [2, 2], [(6, 0), (0, 2)], True, [1]),
    "revised: last marker on an innocent ends": (
        "revised", [(7, 0), (1, 2)], [2, 1], [(6, 0), (0, 3)], True, [1]),
    "revised: both conditions in one round": (
        "revised", [(1, 0), (5, 3)], [0, 0], [(0, 0), (4, 5)], True, [0, 1]),
}  # fmt: skip


@pytest.mark.parametrize(
    "case,n",
    [(case, n) for case in sorted(END_CASES) for n in REF_PLAYER_COUNTS[END_CASES[case][0]]],
)
def test_end_conditions(case: str, n: int) -> None:
    rules, before, accuse, after, ends, ended_by = END_CASES[case]
    start = REF_MARKERS[rules]
    coloured = [c for c, _ in before] + [start] * (n - OTHERS)
    penalty = [p for _, p in before] + [0] * (n - OTHERS)
    game = hand_built(rules, n, coloured, penalty, (3, 6, 7))
    play_round(game, accuse=accuse + [2] * (n - OTHERS))
    assert [(game.coloured[s], game.penalty[s]) for s in (0, 1)] == after
    rest = start if rules == "classic" else start - 1
    assert game.coloured[OTHERS:] == [rest] * (n - OTHERS)
    assert game.terminal is ends
    assert game.end_triggers() == ended_by
    if ends:
        assert game.phase is Phase.OVER and game.legal_actions() == []
        assert game.round == 1
        assert game.standings() == ref_standings(_ref_scores(rules, game))
        assert game.returns() == pytest.approx(ref_returns(_ref_scores(rules, game)))
    else:
        assert (game.round, game.phase, game.first_player) == (2, Phase.LOOK, 1)
        assert game.current_player == 1
        assert game.returns() == [0.0] * n


def _ref_scores(rules: str, game: Game) -> list[int]:
    if rules == "classic":
        return [c + p for c, p in zip(game.coloured, game.penalty)]
    return list(game.penalty)


@pytest.mark.parametrize("rules,n", TABLES)
def test_end_check_only_after_the_resolution(rules: str, n: int) -> None:
    """Seat 0 places its last marker first; the round still runs to every accusation."""
    start = REF_MARKERS[rules]
    game = hand_built(rules, n, [1] + [start] * (n - 1), [0] * n, (3, 6, 7))
    game.apply_action(0)
    if game.phase is Phase.SWAP:
        game.apply_action(KEEP)
    game.apply_action(ACCUSE_0 + 0)
    assert game.coloured[0] == 0 and not game.terminal
    assert game.phase is Phase.ACCUSE and game.current_player == 1
    for _ in range(n - 1):
        game.apply_action(ACCUSE_0 + 2)
    assert game.terminal and game.end_triggers() == [0]


def test_classic_ranks_the_seat_that_ran_out_best() -> None:
    """The rules: classic keeps the English ranking; the trigger is only reported."""
    game = hand_built("classic", 3, [1, 5, 5], [0, 2, 1], (3, 6, 7))
    play_round(game, accuse=[1, 0, 0])
    assert (game.coloured, game.penalty) == ([0, 4, 4], [1, 2, 3])
    assert game.terminal and game.end_triggers() == [0]
    assert game.standings() == [1, 2, 3]
    assert game.returns() == [1.0, 0.0, -1.0]


STANDING_CASES = [
    # rules, coloured, penalty, standings, returns
    ("classic", [3, 2, 5], [0, 1, 3], [1, 1, 3], [0.5, 0.5, -1.0]),
    ("classic", [4, 4], [0, 0], [1, 1], [0.0, 0.0]),
    ("classic", [2, 5, 1, 3], [6, 0, 1, 1], [4, 3, 1, 2], [-1.0, -1 / 3, 1.0, 1 / 3]),
    ("classic", [5, 3, 4, 2], [0, 2, 1, 3], [1, 1, 1, 1], [0.0] * 4),
    ("revised", [7, 1], [0, 0], [1, 1], [0.0, 0.0]),  # coloured do not count
    ("revised", [6, 2, 4], [1, 1, 5], [1, 1, 3], [0.5, 0.5, -1.0]),
    ("revised", [0, 3, 3, 3, 3], [0, 2, 2, 1, 5], [1, 3, 3, 2, 5], [1.0, -0.25, -0.25, 0.5, -1.0]),
    ("revised", [5, 4, 6, 5], [2, 2, 5, 5], [1, 1, 3, 3], [2 / 3, 2 / 3, -2 / 3, -2 / 3]),
]


@pytest.mark.parametrize("rules,coloured,penalty,standings,returns", STANDING_CASES)
def test_standings_and_returns(rules, coloured, penalty, standings, returns) -> None:
    n = len(coloured)
    game = Game(rules, n)
    game.coloured, game.penalty = list(coloured), list(penalty)
    assert game.standings() == standings
    assert game.returns() == [0.0] * n  # nothing until the game is over
    game.terminal = True
    assert game.returns() == pytest.approx(returns)
    assert sum(game.returns()) == pytest.approx(0.0)


@pytest.mark.parametrize("rules,n", TABLES)
def test_random_games_match_the_reference(rules: str, n: int) -> None:
    """Whole games of random deals and moves: every round's counts, the end, the returns."""
    rng = random.Random(f"{rules}-{n}")
    for _ in range(60):
        ref = RefTable(rules, n)
        deals = [rng.sample(REF_TILES[(rules, n)], len(REF_TILES[(rules, n)])) for _ in range(60)]
        game = Game(rules, n, deals=deals)
        for deal in deals:
            assert game.first_player == ref.first == game.current_player
            suspects = list(deal[n : n + 3])
            leave = rng.randrange(3)
            game.apply_action(leave)
            if rules == "classic":
                choice = rng.choice([None] + [s for s in (0, 1, 2) if s != leave])
                game.apply_action(KEEP if choice is None else SWAP_0 + choice)
                if choice is not None:
                    suspects[choice] = deal[n + 3]
            accusations = []
            for k in range(n):
                seat = (ref.first + k) % n
                assert game.current_player == seat
                slot = rng.randrange(3)
                accusations.append((seat, slot))
                game.apply_action(ACCUSE_0 + slot)
            ref.play_round(tuple(suspects), accusations)
            assert (game.coloured, game.penalty, game.removed) == (
                ref.coloured,
                ref.penalty,
                ref.removed,
            )
            assert game.terminal is ref.over
            if ref.over:
                break
        assert game.terminal, "60 rounds should end any game"
        assert game.scores() == ref.scores()
        assert game.standings() == ref_standings(ref.scores())
        assert game.returns() == pytest.approx(ref_returns(ref.scores()))
        assert game.end_triggers() == [s for s, t in enumerate(ref.triggers()) if t]


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
