"""The JSON the page is sent: one seat's view, or the whole table (replays and watching).

A seat's view is built from that seat's observation vector alone, through the
project's own encoder and :func:`grove_env.observation.decode`, plus the public record
of finished rounds (what every seat saw revealed) and the public moves of this round.
It never reads a hidden tile of the game while it goes on, so the page of a seat cannot
cheat: the seat's own tiles, the suspects it has seen, the victim if it swapped it, the
spare. Once the game is over the victim of its last round is shown too.
Seats are absolute (``0..n-1``) in the JSON; the decoder's relative seats are turned
back with the viewer's own seat, which the viewer knows.

The whole-table view (:func:`table_view`) shows every tile and is only sent where
nothing is hidden from the person looking: a replay's or a watched game's table view.

Tiles are sent as the names the game uses (``"5"``, ``"blank"`` or ``"X"``); ``None``
(JSON ``null``) is a tile the viewer does not know.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from grove_env.actions import KEEP, NUM_ACTIONS, Phase, accuse, leave, swap
from grove_env.actions import decode as decode_action
from grove_env.core import Game, RoundRecord
from grove_env.observation import DecodedObservation, ObservationEncoder, decode
from grove_env.record import round_actions, round_result
from grove_env.rules import RuleSet
from grove_env.text import tile_name

from .words import end_reason, move_words

View = dict[str, Any]


def action_mask(game: Game, seat: int) -> list[int]:
    """The seat's action mask: the legal actions if it is to act, else all zeros."""
    if game.terminal or game.current_player != seat:
        return [0] * NUM_ACTIONS
    return [int(game.is_legal(a)) for a in range(NUM_ACTIONS)]


def explain(action: int, d: DecodedObservation, seat: int, rules: str) -> str:
    """What ``action`` does, in words, for the seat that knows ``d``."""
    phase, slot = decode_action(action)
    if phase is Phase.LOOK:
        others = " and ".join(str(s) for s in range(3) if s != slot)
        return f"Look at suspects {others}; suspect {slot} stays unseen by you."
    if phase is Phase.SWAP:
        if slot is None:
            return "Keep the victim where it is; the suspects stay as dealt."
        return (
            f"Exchange the hidden victim with suspect {slot} "
            f"(you saw {tile_name(d.seen[slot], rules)}); you then know the new victim."
        )
    assert slot is not None
    stack = d.stacks[slot]
    if stack:
        top = (stack[-1] + seat) % d.num_players
        where = f"on top of {len(stack)} marker(s), covering P{top}"
    else:
        where = "as the first marker there"
    seen = tile_name(d.seen[slot], rules) if d.seen[slot] is not None else "unknown to you"
    return (
        f"Accuse suspect {slot} ({seen}): put a marker {where}. If it is innocent and "
        "nobody covers you, the whole stack comes to you as penalty."
    )


def public_round(record: RoundRecord, rules: RuleSet, before: View) -> View:
    """A finished round as every seat saw it revealed (no deal: nothing hidden): the
    counts after it, each seat's score (fewer is better), and each seat's change of
    coloured markers, penalty markers and score from the counts ``before`` it."""
    result = round_result(record)
    result["suspects"] = [tile_name(t, rules.name) for t in record.suspects]
    result["scores"] = [rules.score(c, p) for c, p in zip(record.coloured, record.penalty)]
    result["changes"] = [
        {"coloured": c - c0, "penalty": p - p0, "score": rules.score(c, p) - rules.score(c0, p0)}
        for c, p, c0, p0 in zip(
            record.coloured, record.penalty, before["coloured"], before["penalty"]
        )
    ]
    return {"round": record.number, "first_player": record.first_player, **result}


def public_rounds(game: Game) -> list[View]:
    """Every finished round of ``game`` (:func:`public_round`)."""
    n, rules = game.num_players, game.rules
    counts: View = {"coloured": [rules.markers_per_player] * n, "penalty": [0] * n}
    out = []
    for record in game.history:
        out.append(public_round(record, rules, counts))
        counts = {"coloured": record.coloured, "penalty": record.penalty}
    return out


def _public_actions(
    game: Game, first: int, accusations: Sequence[tuple[int, int]]
) -> list[tuple[int, int]]:
    """This round's public moves so far as ``(seat, action)`` (seats absolute)."""
    actions = []
    if game.unseen_slot is not None:
        actions.append((first, leave(game.unseen_slot)))
    if game.phase is Phase.ACCUSE and game.rules.victim_swap:
        tampered = game.tampered_slot
        actions.append((first, KEEP if tampered is None else swap(tampered)))
    return actions + [(s, accuse(slot)) for s, slot in accusations]


def _moves(game: Game, first: int, accusations: Sequence[tuple[int, int]]) -> View:
    """This round's public moves so far, in words, and the last move made at the table
    (this round's, else the last of the round before): ``{seat, action, name}``."""
    actions = _public_actions(game, first, accusations)
    last = actions or (round_actions(game, game.history[-1]) if game.history else [])
    return {
        "moves": [f"P{s}: {move_words(a)}" for s, a in actions],
        "last_move": (
            {"seat": last[-1][0], "action": last[-1][1], "name": move_words(last[-1][1])}
            if last
            else None
        ),
    }


def _seats(game: Game, labels: Sequence[str]) -> list[View]:
    return [
        {
            "seat": s,
            "label": labels[s],
            "coloured": game.coloured[s],
            "penalty": game.penalty[s],
            "score": game.score(s),
        }
        for s in range(game.num_players)
    ]


def _common(game: Game, labels: Sequence[str], truncated: bool) -> View:
    over = game.terminal or truncated
    return {
        "rules": game.rules.name,
        "num_players": game.num_players,
        "round": game.round,
        "over": over,
        "truncated": truncated and not game.terminal,
        "seats": _seats(game, labels),
        "rounds": public_rounds(game),
        "standings": game.standings() if over else None,
        "ended_by": game.end_triggers() if game.terminal else [],
        "end_reason": end_reason(game),
    }


def _victim(game: Game, d: DecodedObservation, rules: str) -> str | None:
    """The victim as the seat knows it; once the game is over, as everyone sees it."""
    if game.terminal:  # nothing is left to decide: the last round is revealed whole
        return tile_name(game.victim, rules)
    return tile_name(d.victim, rules) if d.victim is not None else None


def seat_view(
    game: Game,
    seat: int,
    labels: Sequence[str],
    encoder: ObservationEncoder | None = None,
    truncated: bool = False,
) -> View:
    """What ``seat`` may know now, from its observation vector (see the module docstring)."""
    enc = encoder or ObservationEncoder(game.rules, game.num_players)
    d = decode(enc.encode(game, seat))
    n, rules = d.num_players, game.rules.name

    def absolute(r: int | None) -> int | None:
        return None if r is None else (r + seat) % n

    first = (d.first_player + seat) % n
    accusations = [((s + seat) % n, slot) for s, slot in d.accusations]
    to_act = None if truncated else absolute(d.to_act)
    mask = action_mask(game, seat) if to_act == seat else [0] * NUM_ACTIONS
    over_phase = d.phase is Phase.OVER or truncated
    return {
        "kind": "seat",
        "seat": seat,
        **_common(game, labels, truncated),
        "first_player": first,
        "phase": "over" if over_phase else d.phase.name.lower(),
        "to_act": to_act,
        "my_tiles": [tile_name(t, rules) for t in d.my_tiles],
        "spare": tile_name(d.spare, rules) if d.spare is not None else None,
        "victim": _victim(game, d, rules),
        "suspects": [
            {
                "slot": slot,
                "tile": tile_name(d.seen[slot], rules) if d.seen[slot] is not None else None,
                "unseen": d.unseen_slot == slot,
                "tampered": d.tampered_slot == slot,
                "stack": [s for s, k in accusations if k == slot],
            }
            for slot in range(3)
        ],
        **_moves(game, first, accusations),
        "legal": [
            {"action": a, "name": move_words(a), "explain": explain(a, d, seat, rules)}
            for a in range(NUM_ACTIONS)
            if mask[a]
        ],
    }


def table_view(game: Game, labels: Sequence[str], truncated: bool = False) -> View:
    """The whole table, every tile shown: for replays and watched games only."""
    rules = game.rules.name
    over = game.terminal or truncated
    return {
        "kind": "table",
        "seat": None,
        **_common(game, labels, truncated),
        "first_player": game.first_player,
        "phase": "over" if over else game.phase.name.lower(),
        "to_act": None if over else game.current_player,
        "dealt": [tile_name(t, rules) for t in game.dealt],
        "spare": tile_name(game.spare, rules) if game.spare is not None else None,
        "victim": tile_name(game.victim, rules) if game.victim is not None else None,
        "suspects": [
            {
                "slot": slot,
                "tile": tile_name(game.suspects[slot], rules),
                "unseen": game.unseen_slot == slot,
                "tampered": game.tampered_slot == slot,
                "stack": list(game.stacks[slot]),
            }
            for slot in range(3)
        ],
        **_moves(game, game.first_player, game.accusations),
        "legal": [],
    }
