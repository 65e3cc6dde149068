"""The game core: pure state and transitions, no Gymnasium, PettingZoo or torch.

A :class:`Game` follows the OpenSpiel shape: :attr:`Game.current_player`,
:meth:`Game.legal_actions` (sorted), :meth:`Game.apply_action`,
:attr:`Game.terminal`, :meth:`Game.returns` and a readable ``str()``.
Seats are integers ``0..n-1``; seat 0 is the first player of round 1.

A deal lists the tiles as the seats were dealt them (seat order, before passing),
then suspect slots 0, 1, 2, then the victim, then the face-up spare where the
rule set has one. Deals may be forced for the first rounds (``deals=[...]``), so a
test can build the exact position it talks about:

>>> g = Game("classic", 4, deals=[(2, 3, 4, 6, 5, 7, 8, 0)])
>>> g.suspects, g.victim
([5, 7, 8], 0)
>>> g.apply_action(0)            # seat 0 leaves slot 0 unseen, sees 7 and 8
>>> g.apply_action(3)            # keeps the victim
>>> for a in (9, 7, 8, 8):       # accusations of seats 0, 1, 2, 3
...     record = g.apply_action(a)
>>> g.history[-1].culprit, g.coloured, g.penalty
(0, [4, 5, 4, 4], [1, 0, 0, 2])

Every finished round leaves a :class:`RoundRecord` in :attr:`Game.history`.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from grove_env.actions import ACCUSE_0, KEEP, SWAP_0, Phase, action_name, legal_actions
from grove_env.resolution import culprit_slot, penalty_flows, unseen_by
from grove_env.rules import CulpritMarkers, RuleSet, get_rules
from grove_env.standings import outcomes, ranks


@dataclass(frozen=True)
class RoundRecord:
    """Everything that happened in one finished round, for replay and inspection.

    ``stacks`` list seats bottom to top; ``coloured``/``penalty`` are the counts after
    resolution; ``penalty_flows`` holds ``(slot, receiver, count)`` per innocent stack;
    ``returned``/``removed`` count the culprit's markers per owner seat.
    """

    number: int
    first_player: int
    deal: tuple[int, ...]
    unseen_slot: int
    tampered_slot: int | None
    accusations: tuple[tuple[int, int], ...]
    suspects: tuple[int, int, int]
    culprit: int
    stacks: tuple[tuple[int, ...], ...]
    penalty_flows: tuple[tuple[int, int, int], ...]
    returned: tuple[int, ...]
    removed: tuple[int, ...]
    coloured: tuple[int, ...]
    penalty: tuple[int, ...]

    def as_info(self) -> dict:
        """The ``round_result`` dict that the environment puts in every agent's info."""
        return {
            "round": self.number,
            "suspects": list(self.suspects),
            "culprit": self.culprit,
            "stacks": [list(s) for s in self.stacks],
            "coloured": list(self.coloured),
            "penalty": list(self.penalty),
        }


class Game:
    """One game of In a Grove under a rule set, from the first deal to the end check."""

    def __init__(
        self,
        rules: str | RuleSet = "classic",
        num_players: int = 4,
        seed: int | None = None,
        deals: Iterable[Sequence[int]] = (),
    ) -> None:
        self.rules = get_rules(rules)
        self.num_players = self.rules.check_players(num_players)
        self._tiles = self.rules.tiles(num_players)
        self._has_spare = self.rules.has_spare(num_players)
        self._rng = random.Random(seed)
        self._forced = [self.check_deal(d) for d in deals]
        n = num_players
        self.coloured = [self.rules.markers_per_player] * n
        self.penalty = [0] * n
        self.removed = [0] * n
        self.history: list[RoundRecord] = []
        self.round = 0
        self.first_player = 0
        self.terminal = False
        self._start_round()

    # ----------------------------------------------------------------- deals
    def check_deal(self, deal: Sequence[int]) -> tuple[int, ...]:
        """Return ``deal`` as a tuple if it is a permutation of this table's tiles."""
        try:
            given = list(deal)
            tiles = tuple(int(t) for t in given)
        except (TypeError, ValueError, OverflowError):  # OverflowError: int(float("inf"))
            raise ValueError(f"a deal is a sequence of ints, got {deal!r}") from None
        if any(t != g for t, g in zip(tiles, given)):  # int() would truncate 3.9, read "3"
            raise ValueError(f"a deal is a sequence of ints, got {deal!r}")
        need = len(self._tiles)
        if len(tiles) != need:
            raise ValueError(
                f"a {self.rules.name} deal for {self.num_players} players lists {need} tiles "
                f"(seats, 3 suspects, victim{', spare' if self._has_spare else ''}), "
                f"got {len(tiles)}"
            )
        if tuple(sorted(tiles)) != self._tiles:
            raise ValueError(
                f"a {self.rules.name} deal for {self.num_players} players is a permutation "
                f"of {list(self._tiles)}, got {list(tiles)}"
            )
        return tiles

    def _start_round(self) -> None:
        if self._forced:
            deal = self._forced.pop(0)
        else:
            shuffled = list(self._tiles)
            self._rng.shuffle(shuffled)
            deal = tuple(shuffled)
        n = self.num_players
        self.deal = deal
        self.dealt = list(deal[:n])
        self.suspects = list(deal[n : n + 3])
        self.victim: int | None = deal[n + 3]
        self.spare: int | None = deal[n + 4] if self._has_spare else None
        self.round += 1
        self.unseen_slot: int | None = None
        self.tampered_slot: int | None = None
        self.victim_known_by: int | None = None
        self.stacks: list[list[int]] = [[], [], []]
        self.accusations: list[tuple[int, int]] = []
        self.seen: list[list[int | None]] = [[None, None, None] for _ in range(n)]
        self.phase = Phase.LOOK
        self.current_player = self.first_player

    # ----------------------------------------------------------------- queries
    def legal_actions(self) -> list[int]:
        """Sorted legal actions of the player to act (empty once the game is over)."""
        return list(legal_actions(self.phase, self.unseen_slot))

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` is among :meth:`legal_actions` (without building the list)."""
        return action in legal_actions(self.phase, self.unseen_slot)

    def known_tiles(self, seat: int) -> tuple[int, int]:
        """The two tiles ``seat`` peeked: its own dealt tile and the one passed to it."""
        return self.dealt[seat], self.dealt[(seat + 1) % self.num_players]

    def victim_for(self, seat: int) -> int | None:
        """The victim tile if ``seat`` knows it (the first player after a swap)."""
        return self.victim if self.victim_known_by == seat else None

    def score(self, seat: int) -> int:
        """The seat's score count under the rule set (fewer is better)."""
        return self.rules.score(self.coloured[seat], self.penalty[seat])

    def scores(self) -> list[int]:
        return [self.score(s) for s in range(self.num_players)]

    def standings(self) -> list[int]:
        """Rank per seat, 1 is best; tied seats share the better rank."""
        return ranks(self.scores())

    def end_triggers(self) -> list[int]:
        """Seats whose counts meet an end condition (those that ended the game)."""
        return [
            s
            for s in range(self.num_players)
            if self.rules.ends_game(self.coloured[s], self.penalty[s])
        ]

    def returns(self) -> list[float]:
        """Zero-sum outcome per seat: (seats ranked worse - seats ranked better) / (n-1).

        Zero for everyone until the game is over.
        """
        if not self.terminal:
            return [0.0] * self.num_players
        return outcomes(self.scores())

    def information_state(self, seat: int) -> tuple:
        """Everything ``seat`` may know now, as a hashable tuple, seats relative to ``seat``.

        Built from the game's own fields, independently of the observation encoder, so
        tests can check that observations carry exactly this and nothing else.
        """
        n = self.num_players

        def rel(s: int) -> int:
            return (s - seat) % n

        return (
            self.rules.name,
            n,
            self.round,
            rel(self.first_player),
            int(self.phase),
            rel(self.current_player) if not self.terminal else None,
            tuple(self.coloured[(seat + k) % n] for k in range(n)),
            tuple(self.penalty[(seat + k) % n] for k in range(n)),
            self.known_tiles(seat),
            self.spare,
            tuple(self.seen[seat]),
            self.victim_for(seat),
            self.unseen_slot,
            self.tampered_slot,
            tuple((rel(s), slot) for s, slot in self.accusations),
        )

    # ----------------------------------------------------------------- moves
    def apply_action(self, action: int) -> RoundRecord | None:
        """Play ``action`` for the current player; returns the round's record if it ended.

        Raises ``ValueError`` naming the player, phase and legal actions for an illegal
        action, leaving the game unchanged; a non-integer action is a ``TypeError``.
        """
        try:
            action = operator.index(action)  # ints and numpy ints; 1.5 is no action
        except TypeError:
            raise TypeError(f"an action is an int, got {action!r}") from None
        if not self.is_legal(action):
            legal = self.legal_actions()
            names = ", ".join(f"{a} ({action_name(a)})" for a in legal)
            raise ValueError(
                f"action {action!r} is illegal for seat {self.current_player} in phase "
                f"{self.phase.name.lower()}; legal actions: {names or 'none, the game is over'}"
            )
        action = int(action)
        seat = self.current_player
        if self.phase is Phase.LOOK:
            self.unseen_slot = action
            self._look(seat)
            swap = self.rules.victim_swap and self.victim is not None
            self.phase = Phase.SWAP if swap else Phase.ACCUSE
            return None
        if self.phase is Phase.SWAP:
            if action != KEEP:
                slot = action - SWAP_0
                victim = self.victim
                assert victim is not None  # the swap phase exists only with a victim
                self.suspects[slot], self.victim = victim, self.suspects[slot]
                self.victim_known_by = seat
                self.tampered_slot = slot
                self._look(seat)
            self.phase = Phase.ACCUSE
            return None
        slot = action - ACCUSE_0
        self.stacks[slot].append(seat)
        self.coloured[seat] -= 1
        self.accusations.append((seat, slot))
        if len(self.accusations) == self.num_players:
            return self._resolve()
        self.current_player = (seat + 1) % self.num_players
        self._look(self.current_player)
        return None

    def _look(self, seat: int) -> None:
        """What ``seat``, the seat at the round's next position, has seen of the suspects."""
        assert self.unseen_slot is not None
        accusations = self.accusations
        previous = accusations[-1][1] if accusations else None
        hidden = unseen_by(len(accusations), self.unseen_slot, self.tampered_slot, previous)
        seen: list[int | None] = list(self.suspects)
        for slot in hidden:
            seen[slot] = None
        self.seen[seat] = seen

    def _resolve(self) -> RoundRecord:
        """Reveal the culprit, resolve the stacks, record the round, end check, deal."""
        n = self.num_players
        culprit = culprit_slot(self.suspects)
        returned = [0] * n
        removed = [0] * n
        for owner in self.stacks[culprit]:
            if self.rules.culprit_markers is CulpritMarkers.RETURN:
                self.coloured[owner] += 1
                returned[owner] += 1
            else:
                self.removed[owner] += 1
                removed[owner] += 1
        flows = penalty_flows(self.stacks, culprit)
        for _, receiver, count in flows:
            self.penalty[receiver] += count
        assert self.unseen_slot is not None
        record = RoundRecord(
            number=self.round,
            first_player=self.first_player,
            deal=self.deal,
            unseen_slot=self.unseen_slot,
            tampered_slot=self.tampered_slot,
            accusations=tuple(self.accusations),
            suspects=(self.suspects[0], self.suspects[1], self.suspects[2]),
            culprit=culprit,
            stacks=tuple(tuple(s) for s in self.stacks),
            penalty_flows=tuple(flows),
            returned=tuple(returned),
            removed=tuple(removed),
            coloured=tuple(self.coloured),
            penalty=tuple(self.penalty),
        )
        self.history.append(record)
        if self.rules.game_over(self.coloured, self.penalty):
            self.terminal = True
            self.phase = Phase.OVER
        else:
            self.first_player = (self.first_player + 1) % n
            self._start_round()
        return record

    # ----------------------------------------------------------------- text
    def __str__(self) -> str:
        """One line: the table, the round and who is to move (the whole table as text is
        :func:`grove_env.text.describe_table`, which starts with this line)."""
        state = (
            "game over"
            if self.terminal
            else f"seat {self.current_player} to {self.phase.name.lower()}"
        )
        return (
            f"In a Grove ({self.rules.name}, {self.num_players} players) - round {self.round}, "
            f"first player {self.first_player}, {state}"
        )

    def __repr__(self) -> str:
        return (
            f"Game(rules={self.rules.name!r}, num_players={self.num_players}, "
            f"round={self.round}, phase={self.phase.name}, current_player={self.current_player})"
        )
