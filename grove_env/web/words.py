"""The page's words for the game: moves, the rules of an edition, why a game ended.

One vocabulary throughout: the three face-down tiles are *suspects* 0, 1, 2 (the
engine's slots), markers are *coloured* or *penalty*, a move key is its number on the
page. Every number in these texts is read from the :class:`~grove_env.rules.RuleSet`,
and whether a seat ended the game from :meth:`~grove_env.core.Game.end_triggers`:
nothing here decides a rule, it only says it.
"""

from __future__ import annotations

from grove_env.actions import Phase, decode
from grove_env.core import Game
from grove_env.rules import CulpritMarkers, RuleSet, Scoring, get_rules
from grove_env.text import tile_name

GOAL = (
    "Each round one of three suspects is the culprit. You accuse a suspect by putting one "
    "of your coloured markers on top of its stack: an innocent suspect's whole stack goes, "
    "as penalty markers, to the owner of the marker on top. So accuse the culprit, or be "
    "covered by a later marker."
)
DEAL = (
    "Deal: each seat gets a tile face down and passes it to the seat on its right after "
    "looking, so you know two tiles that are not suspects; three tiles are the suspects, "
    "one is the victim."
)
LOOK = "The first player chooses one suspect to leave unseen and looks at the other two."
ACCUSE = (
    "The first player accuses a suspect. Every later player looks at the two suspects "
    "other than the one the player before accused, then accuses: its marker goes on top "
    "of that suspect's stack."
)
REVEAL = (
    "Reveal: if a 5 is among the suspects the lowest suspect is the culprit, otherwise the "
    "highest. The {blank} is never the culprit."
)


def move_words(action: int) -> str:
    """A move in the page's words.

    >>> [move_words(a) for a in (1, 3, 4, 8)]  # doctest: +NORMALIZE_WHITESPACE
    ['leave suspect 1 unseen', 'keep the victim', 'swap the victim with suspect 0',
     'accuse suspect 1']
    """
    phase, slot = decode(action)
    if phase is Phase.LOOK:
        return f"leave suspect {slot} unseen"
    if phase is Phase.SWAP:
        return "keep the victim" if slot is None else f"swap the victim with suspect {slot}"
    return f"accuse suspect {slot}"


def tiles_words(rules: RuleSet, num_players: int) -> str:
    """The tiles in play at a table, in the page's words.

    >>> from grove_env.rules import get_rules
    >>> tiles_words(get_rules("classic"), 4)
    'The 8 tiles: blank, 2, 3, 4, 5, 6, 7, 8.'
    """
    tiles = rules.tiles(num_players)
    return f"The {len(tiles)} tiles: " + ", ".join(tile_name(t, rules.name) for t in tiles) + "."


def end_rule(rules: RuleSet) -> str:
    """When the game ends, from the rule set's thresholds."""
    held = []
    if rules.end_markers_held is not None:
        held.append(f"holds {rules.end_markers_held} or more markers (either face)")
    if rules.end_penalty_held is not None:
        held.append(f"holds {rules.end_penalty_held} or more penalty markers")
    held.append("has no coloured marker left to place")
    return "The game ends after a round in which a seat " + ", or ".join(held) + "."


def result_rule(rules: RuleSet) -> str:
    """How the seats are ranked at the end."""
    counted = (
        "markers held (both faces)" if rules.scoring is Scoring.ALL_MARKERS else "penalty markers"
    )
    return f"Fewest {counted} is best; equal counts share a rank."


def rules_words(rules: str | RuleSet) -> dict[str, object]:
    """The rules panel's text for one edition."""
    r = get_rules(rules)
    swap = (
        "The first player may then swap the victim with a suspect it saw (the swapped "
        "suspect is marked tampered), without looking at the victim."
        if r.victim_swap
        else "There is no victim swap."
    )
    culprit = (
        "Markers under the culprit go back to their owners, coloured side up."
        if r.culprit_markers is CulpritMarkers.RETURN
        else "Markers under the culprit leave the game."
    )
    return {
        "goal": GOAL,
        "round": [DEAL, LOOK, swap, ACCUSE, REVEAL.format(blank=r.blank_name), culprit],
        "markers": f"Each seat starts with {r.markers_per_player} coloured markers.",
        "end": end_rule(r),
        "result": result_rule(r),
        "tiles": {str(n): tiles_words(r, n) for n in r.player_counts},
    }


def _ended_because(rules: RuleSet, coloured: int, penalty: int) -> str:
    """Which end condition one seat's counts meet, in words."""
    if coloured <= 0:
        return "has no coloured marker left to place"
    if rules.end_markers_held is not None and coloured + penalty >= rules.end_markers_held:
        return f"holds {coloured + penalty} markers ({rules.end_markers_held} or more end it)"
    return f"holds {penalty} penalty markers ({rules.end_penalty_held} or more end it)"


def end_reason(game: Game) -> str:
    """Why a finished game ended, in words: who met which end condition, then the ranking.

    >>> g = Game("revised", 2, seed=0)
    >>> g.coloured, g.penalty, g.terminal = [3, 0], [5, 2], True
    >>> print(end_reason(g))  # doctest: +NORMALIZE_WHITESPACE
    The game ended because P0 holds 5 penalty markers (5 or more end it) and P1 has no
    coloured marker left to place. Fewest penalty markers is best; equal counts share a rank.
    """
    if not game.terminal:
        return ""
    who = " and ".join(
        f"P{s} {_ended_because(game.rules, game.coloured[s], game.penalty[s])}"
        for s in game.end_triggers()
    )
    when = f" after round {len(game.history)}" if game.history else ""
    return f"The game ended{when} because {who}. {result_rule(game.rules)}"
