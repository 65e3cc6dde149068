"""Text forms of the table and of an observation, for people and tests."""

from __future__ import annotations

from collections.abc import Sequence

from grove_env.actions import Phase
from grove_env.core import Game, RoundRecord
from grove_env.observation import DecodedObservation
from grove_env.rules import RULE_SETS, CulpritMarkers, RuleSet, get_rules


def markers(names: Sequence[str], coloured: Sequence[int], penalty: Sequence[int]) -> str:
    """Each seat's markers on one line: ``P0 coloured 4/penalty 1, ...``."""
    return ", ".join(f"{n} coloured {c}/penalty {p}" for n, c, p in zip(names, coloured, penalty))


def tile_name(tile: int | None, rules: str | RuleSet) -> str:
    """``'5'``; for 0 the blank's name in ``rules`` (a rule set or its name:
    :attr:`~grove_env.rules.RuleSet.blank_name`, ``'blank'`` or ``'X'``); ``'?'`` unknown.

    >>> tile_name(0, "classic"), tile_name(0, "revised"), tile_name(5, "revised")
    ('blank', 'X', '5')
    """
    if tile is None:
        return "?"
    if tile == 0:
        return get_rules(rules).blank_name
    return str(tile)


def describe_table(game: Game, reveal: bool = True) -> str:
    """The table as text. ``reveal=False`` hides every tile (the public view)."""
    rules = game.rules
    lines = [str(game)]
    shown = reveal or game.terminal  # the last round's suspects are revealed at the end
    for slot in range(3):
        tile = tile_name(game.suspects[slot], rules) if shown else "#"
        marks = []
        if game.unseen_slot == slot:
            marks.append("unseen")
        if game.tampered_slot == slot:
            marks.append("tampered")
        stack = " ".join(f"P{s}" for s in game.stacks[slot]) or "-"
        extra = f" ({', '.join(marks)})" if marks else ""
        lines.append(f"  suspect {slot}: {tile:>5}{extra}  stack (bottom->top): {stack}")
    if reveal:
        lines.append(f"  victim: {tile_name(game.victim, rules)}")
    elif game.history and not game.terminal:
        last = game.history[-1]
        tiles = ", ".join(tile_name(t, rules) for t in last.suspects)
        lines.append(f"  last round: suspects {tiles}; culprit slot {last.culprit}")
    if game.spare is not None:
        lines.append(f"  face-up spare: {tile_name(game.spare, rules)}")
    for seat in range(game.num_players):
        held = "".join(
            [
                f"  P{seat}: coloured {game.coloured[seat]}, penalty {game.penalty[seat]}",
                f", dealt {tile_name(game.dealt[seat], rules)}" if reveal else "",
                "  <- to act" if not game.terminal and seat == game.current_player else "",
            ]
        )
        lines.append(held)
    if game.terminal:
        lines.append(
            "  standings (1 is best): "
            + ", ".join(f"P{s}: {r}" for s, r in enumerate(game.standings()))
        )
    return "\n".join(lines)


def describe_round(record: RoundRecord, rules: str | RuleSet = "classic") -> str:
    """How a finished round was revealed and where its markers went."""
    rule_set = get_rules(rules)
    tiles = ", ".join(f"slot {s}: {tile_name(t, rule_set)}" for s, t in enumerate(record.suspects))
    lines = [f"Round {record.number} revealed - {tiles}; culprit: slot {record.culprit}"]
    removed = rule_set.culprit_markers is CulpritMarkers.REMOVE
    fate = "removed from the game for" if removed else "returned to"
    owners = [s for s, k in enumerate(record.returned) for _ in range(k)]
    owners += [s for s, k in enumerate(record.removed) for _ in range(k)]
    if owners:
        lines.append(f"  markers under the culprit {fate}: " + ", ".join(f"P{s}" for s in owners))
    for slot, receiver, count in record.penalty_flows:
        lines.append(
            f"  slot {slot} was innocent: its {count} marker(s) go to P{receiver} "
            "(top of the stack) as penalty"
        )
    names = [f"P{s}" for s in range(len(record.coloured))]
    lines.append("  now: " + markers(names, record.coloured, record.penalty))
    return "\n".join(lines)


def rules_shown(obs: DecodedObservation) -> RuleSet:
    """The registered rule set whose fields the observation shows (classic if none)."""
    for rule_set in RULE_SETS.values():
        removed = rule_set.culprit_markers is CulpritMarkers.REMOVE
        shown = (rule_set.victim_swap, removed, rule_set.markers_per_player)
        if shown == (obs.victim_swap, obs.culprit_markers_removed, obs.markers_per_player):
            return rule_set
    return RULE_SETS["classic"]


def describe_observation(obs: DecodedObservation) -> str:
    """What one seat knows, in words; seats are written relative ('you', '+1', ...)."""
    rules = rules_shown(obs)

    def who(r: int) -> str:
        return "you" if r == 0 else f"seat +{r}"

    stacks = obs.stacks
    lines = [
        f"Round {obs.round}; first player: {who(obs.first_player)}; "
        + (
            "game over"
            if obs.phase is Phase.OVER
            else f"{who(obs.to_act or 0)} to {obs.phase.name.lower()}"
        ),
        f"  your tiles (not suspects): {tile_name(obs.my_tiles[0], rules)} "
        f"(yours, passed on) and {tile_name(obs.my_tiles[1], rules)} (passed to you)",
    ]
    if obs.spare is not None:
        lines.append(f"  face-up spare: {tile_name(obs.spare, rules)}")
    if obs.victim is not None:
        lines.append(f"  victim (you swapped it out): {tile_name(obs.victim, rules)}")
    for slot in range(3):
        marks = [
            m
            for m, s in (("unseen", obs.unseen_slot), ("tampered", obs.tampered_slot))
            if s == slot
        ]
        extra = f" ({', '.join(marks)})" if marks else ""
        stack = " ".join(who(s) for s in stacks[slot]) or "-"
        lines.append(
            f"  suspect {slot}: {tile_name(obs.seen[slot], rules):>5}{extra}  "
            f"stack (bottom->top): {stack}"
        )
    names = [who(r) for r in range(len(obs.coloured))]
    lines.append("  markers: " + markers(names, obs.coloured, obs.penalty))
    return "\n".join(lines)
