"""Rule sets of In a Grove as data.

Every number of the rules (``docs/rules.md``) is a field of the frozen :class:`RuleSet`; the
engine reads them from here and nowhere else. Two named instances exist,
:data:`CLASSIC` (the default) and :data:`REVISED`; :func:`get_rules` resolves a name.

Tiles are integers: ``2``..``8`` are the numbered silhouettes and ``0`` is the
blank (classic) or an X (revised). Both are never the culprit.

>>> CLASSIC.tiles(3)
(0, 3, 4, 5, 6, 7, 8)
>>> REVISED.tiles(5)
(0, 0, 2, 3, 4, 5, 6, 7, 8)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

BLANK = 0
"""The blank (classic) or an X (revised): never the culprit."""

TILE_VALUES: tuple[int, ...] = (0, 2, 3, 4, 5, 6, 7, 8)
"""Every tile value that exists in any rule set, in a fixed order (used by encoders)."""

MAX_PLAYERS = 5
"""The most seats any rule set allows; observations are padded to this many seats."""


class CulpritMarkers(str, Enum):
    """What happens to the markers placed under the culprit."""

    RETURN = "return"
    """Back to their owners, coloured side up (classic)."""
    REMOVE = "remove"
    """Out of the game (revised)."""


class Scoring(str, Enum):
    """Which count a seat's score is: lower is better in both."""

    ALL_MARKERS = "all_markers"
    """Coloured plus penalty markers held (classic)."""
    PENALTY = "penalty"
    """Penalty markers only (revised)."""

    def score(self, coloured: Any, penalty: Any) -> Any:
        """A seat's score count from its markers held (numbers, or arrays elementwise)."""
        return coloured + penalty if self is Scoring.ALL_MARKERS else penalty


def ends_game(
    coloured: Any, penalty: Any, end_markers_held: int | None, end_penalty_held: int | None
) -> Any:
    """The end check for one seat's counts after a round's resolution: no coloured
    marker left, or a threshold met (``None``: not a condition). Works on numbers and,
    elementwise, on arrays of counts.

    >>> ends_game(3, 5, end_markers_held=8, end_penalty_held=None)
    True
    >>> ends_game(3, 4, end_markers_held=None, end_penalty_held=5)
    False
    """
    ended = coloured <= 0
    if end_markers_held is not None:
        ended = ended | (coloured + penalty >= end_markers_held)
    if end_penalty_held is not None:
        ended = ended | (penalty >= end_penalty_held)
    return ended


@dataclass(frozen=True)
class RuleSet:
    """One printed edition of the rules; every field is a number or choice of the rules.

    Attributes:
        name: Identifier used by :func:`get_rules` and in observations' docs.
        player_counts: Legal numbers of players.
        base_tiles: Tiles in the box for this edition.
        removed_tiles: Per player count, tiles taken out of ``base_tiles``.
        added_blanks: Per player count, extra blank/X tiles added.
        markers_per_player: Coloured markers each seat starts with.
        victim_swap: Whether the first player may exchange the victim with a seen suspect.
        culprit_markers: Fate of the markers under the culprit.
        face_up_spare: Player counts whose deal has one tile left over, laid face up.
        end_markers_held: Game ends after a round in which a seat holds at least this many
            markers of either face (``None``: not a condition of this edition).
        end_penalty_held: Game ends after a round in which a seat holds at least this many
            penalty markers (``None``: not a condition).
        scoring: Which count ranks the seats (fewest is best).
        blank_name: What the edition calls its tile ``0`` (a blank, or an X).
    """

    name: str
    player_counts: tuple[int, ...]
    base_tiles: tuple[int, ...]
    removed_tiles: dict[int, tuple[int, ...]] = field(default_factory=dict)
    added_blanks: dict[int, int] = field(default_factory=dict)
    markers_per_player: int = 5
    victim_swap: bool = True
    culprit_markers: CulpritMarkers = CulpritMarkers.RETURN
    face_up_spare: tuple[int, ...] = ()
    end_markers_held: int | None = 8
    end_penalty_held: int | None = None
    scoring: Scoring = Scoring.ALL_MARKERS
    blank_name: str = "blank"

    def __post_init__(self) -> None:
        if not self.player_counts or min(self.player_counts) < 2:
            raise ValueError(
                f"rule set {self.name!r}: player_counts must be non-empty and each >= 2, "
                f"got {self.player_counts}"
            )
        if max(self.player_counts) > MAX_PLAYERS:
            raise ValueError(
                f"rule set {self.name!r}: at most {MAX_PLAYERS} players are supported, "
                f"got player_counts={self.player_counts}"
            )
        if self.markers_per_player < 1:
            raise ValueError(
                f"rule set {self.name!r}: markers_per_player must be >= 1, "
                f"got {self.markers_per_player}"
            )
        for threshold in ("end_markers_held", "end_penalty_held"):
            value = getattr(self, threshold)
            if value is not None and value < 1:
                raise ValueError(
                    f"rule set {self.name!r}: {threshold} must be >= 1 or None, got {value}"
                )
        bad = [t for t in self.base_tiles if t not in TILE_VALUES]
        if bad:
            raise ValueError(
                f"rule set {self.name!r}: tiles must be among {TILE_VALUES}, got {bad}"
            )
        for n in self.player_counts:
            tiles = self.tiles(n)
            needed = n + 4 + (1 if n in self.face_up_spare else 0)
            if len(tiles) != needed:
                raise ValueError(
                    f"rule set {self.name!r} with {n} players has {len(tiles)} tiles; "
                    f"a deal needs exactly {needed} ({n} seats, 3 suspects, 1 victim"
                    f"{', 1 face-up spare' if n in self.face_up_spare else ''})"
                )
            if all(t == BLANK for t in tiles):
                raise ValueError(f"rule set {self.name!r}: no numbered tile with {n} players")

    def check_players(self, num_players: int) -> int:
        """Return ``num_players`` if this rule set allows it, else raise ``ValueError``.

        >>> CLASSIC.check_players(5)
        Traceback (most recent call last):
        ...
        ValueError: rule set 'classic' allows num_players in (2, 3, 4), got 5
        """
        if isinstance(num_players, bool) or not isinstance(num_players, int):
            raise ValueError(
                f"num_players must be an int in {self.player_counts}, got {num_players!r}"
            )
        if num_players not in self.player_counts:
            raise ValueError(
                f"rule set {self.name!r} allows num_players in {self.player_counts}, "
                f"got {num_players}"
            )
        return num_players

    def tiles(self, num_players: int) -> tuple[int, ...]:
        """The sorted tiles used with ``num_players`` players."""
        tiles = list(self.base_tiles)
        for t in self.removed_tiles.get(num_players, ()):
            tiles.remove(t)
        tiles.extend([BLANK] * self.added_blanks.get(num_players, 0))
        return tuple(sorted(tiles))

    def has_spare(self, num_players: int) -> bool:
        """Whether the deal leaves one tile face up for everyone to see."""
        return num_players in self.face_up_spare

    def ends_game(self, coloured: Any, penalty: Any) -> Any:
        """Whether one seat's marker counts end the game (elementwise on arrays)."""
        return ends_game(coloured, penalty, self.end_markers_held, self.end_penalty_held)

    def game_over(self, coloured: Sequence[int], penalty: Sequence[int]) -> bool:
        """End check after a round's resolution, from each seat's marker counts."""
        markers, penalties = self.end_markers_held, self.end_penalty_held
        return any(ends_game(c, p, markers, penalties) for c, p in zip(coloured, penalty))

    def score(self, coloured: Any, penalty: Any) -> Any:
        """A seat's score count: fewer is better (elementwise on arrays)."""
        return self.scoring.score(coloured, penalty)


CLASSIC = RuleSet(
    name="classic",
    player_counts=(2, 3, 4),
    base_tiles=(0, 2, 3, 4, 5, 6, 7, 8),
    removed_tiles={2: (2, 8), 3: (2,)},
    markers_per_player=5,
    victim_swap=True,
    culprit_markers=CulpritMarkers.RETURN,
    end_markers_held=8,
    end_penalty_held=None,
    scoring=Scoring.ALL_MARKERS,
)
"""The seats' text (2010 Oink / 2011 Hattari): 2-4 players, 8 tiles, 5 markers."""

REVISED = RuleSet(
    name="revised",
    player_counts=(2, 3, 4, 5),
    base_tiles=(2, 3, 4, 5, 6, 7, 8),
    added_blanks={4: 1, 5: 2},
    markers_per_player=7,
    victim_swap=False,
    culprit_markers=CulpritMarkers.REMOVE,
    face_up_spare=(2,),
    end_markers_held=None,
    end_penalty_held=5,
    scoring=Scoring.PENALTY,
    blank_name="X",
)
"""The 2021 Oink edition: 2-5 players, X tiles, 7 markers, no victim swap."""

RULE_SETS: dict[str, RuleSet] = {r.name: r for r in (CLASSIC, REVISED)}


def get_rules(rules: str | RuleSet) -> RuleSet:
    """Resolve a rule-set name (``"classic"``, ``"revised"``) or pass a ``RuleSet`` through."""
    if isinstance(rules, RuleSet):
        return rules
    if isinstance(rules, str) and rules in RULE_SETS:
        return RULE_SETS[rules]
    raise ValueError(f"rules must be one of {sorted(RULE_SETS)} or a RuleSet, got {rules!r}")
