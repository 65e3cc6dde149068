"""The batched encoder's tables (grove_env/vector/obs_tables.py) against the index table.

The encoder writes an observation as five table rows, one per chunk of 25 entries,
each picked by digits of the game. Here: the digits share out the index table's
one-hot entries, and rows picked by random digits are read back by
:func:`grove_env.observation.decode` as those digits (the seeds only make inputs).
That the encoder writes exactly what ``ObservationEncoder`` writes, seat by seat and
step by step, is ``tests/vector/test_vector.py``'s differential test.
"""

from __future__ import annotations

import numpy as np
import pytest
from positions import TABLES

from grove_env.actions import Phase
from grove_env.observation import OFF_COLOURED, OFF_DEALT, ObservationEncoder, decode
from grove_env.rules import MAX_PLAYERS, TILE_VALUES, get_rules
from grove_env.vector.obs_tables import chunk_layout, chunk_tables, digits


def test_digits_share_out_the_entries_between_constants_and_counts() -> None:
    """With every digit there is (a spare, a swap, five seats), each entry from the
    dealt tile to the last accusation is set by exactly one digit; the entries before
    are constant, those after are counts, seats present and the round."""
    owners: dict[int, list[str]] = {}
    for name, (radix, _, place) in digits(MAX_PLAYERS, spare=True, swap=True).items():
        for i in {i for v in range(radix) for i in place(v)}:
            owners.setdefault(i, []).append(name)
    assert sorted(owners) == list(range(OFF_DEALT, OFF_COLOURED))
    assert all(len(names) == 1 for names in owners.values()), owners


def random_digits(n: int, spare: bool, swap: bool, rng: np.random.Generator) -> dict[str, int]:
    """A value of every digit (as the tables index them), accusations made in order."""
    made = int(rng.integers(0, n + 1))
    value = {
        "dealt": int(rng.integers(8)),
        "received": int(rng.integers(8)),
        "unseen": int(rng.integers(4)),
        "turn": int(rng.integers(4 * n * n)),
        **{f"seen_{k}": int(rng.integers(9)) for k in range(3)},
        **{f"accused_{k}": int(rng.integers(1, 4)) if k < made else 0 for k in range(n)},
    }
    if spare:
        value["spare"] = int(rng.integers(9))
    if swap:
        value["victim"] = int(rng.integers(9))
        value["tampered"] = int(rng.integers(4))
    return value


@pytest.mark.parametrize(("rules", "n"), TABLES)
def test_chunk_rows_decode_to_their_digits(rules: str, n: int) -> None:
    """Five rows, one per chunk at the code of random digits, read back by
    :func:`grove_env.observation.decode` as those digits say."""
    rule_set = get_rules(rules)
    spare, swap = rule_set.has_spare(n), rule_set.victim_swap
    base = ObservationEncoder(rule_set, n).base
    table, _ = chunk_tables(base, n, spare, swap)
    layout = chunk_layout(n, spare, swap)
    radix = {name: r for name, (r, _, _) in digits(n, spare, swap).items()}
    starts = np.cumsum(
        [0] + [radix[names[0]] * places[0] if names else 1 for names, places in layout]
    )
    rng = np.random.default_rng(n)
    tile = [None, *TILE_VALUES]  # a known-tile digit: 0 none, else index + 1
    slot = [None, 0, 1, 2]
    for _ in range(300):
        v = random_digits(n, spare, swap, rng)
        rows = [
            starts[c] + sum(v[name] * place for name, place in zip(names, places))
            for c, (names, places) in enumerate(layout)
        ]
        d = decode(table[rows].reshape(-1))
        first, to_act, phase = v["turn"] // (4 * n), v["turn"] // 4 % n, v["turn"] % 4
        assert d.my_tiles == (TILE_VALUES[v["dealt"]], TILE_VALUES[v["received"]])
        assert d.spare == tile[v.get("spare", 0)]
        assert d.seen == tuple(tile[v[f"seen_{k}"]] for k in range(3))
        assert d.victim == tile[v.get("victim", 0)]
        assert (d.unseen_slot, d.tampered_slot) == (slot[v["unseen"]], slot[v.get("tampered", 0)])
        assert (d.first_player, d.phase) == (first, phase)
        assert d.to_act == (None if phase == Phase.OVER else to_act)
        made = [v[f"accused_{k}"] - 1 for k in range(n) if v[f"accused_{k}"]]
        assert d.accusations == tuple(((first + k) % n, s) for k, s in enumerate(made))
        assert (d.num_players, d.coloured, d.penalty, d.round) == (n, (0,) * n, (0,) * n, 1)
