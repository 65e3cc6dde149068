"""``heuristic-trust``: the first heuristic, a one-round look-ahead that trusts the others.

It models every other seat as greedy (or random) and reads the earlier accusations as
evidence of the culprit, as far as ``trust`` says. That is right against informed
players and wrong against seats that accuse innocents on purpose (a piler, a
stack-avoider at classic), which is why :mod:`grove_env.agents.heuristic.search` replaced it as
the reference ``heuristic``; it stays as a variant and a reference opponent of the
gauntlet. (Its projected counts also take a marker off the seats that already placed
theirs this round, counted twice: kept, since fixing it changes its play.)

Decides from the observation alone (:func:`grove_env.observation.decode`) and keeps no
state; the work is cached on the decoded knowledge (:mod:`grove_env.agents.trust.round_model`), so a
position seen before costs a look-up and the value function.

**Accuse.** For each suspect slot the agent computes the distribution of how the round
ends if it accuses there: over the suspect triples its knowledge allows (the exact
posterior, sharpened by the earlier accusations as far as ``trust`` says) and over the
later seats' accusations (the model of :mod:`grove_env.agents.trust.round_model`). Each ending
changes
every seat's markers exactly as the rules resolve it, which counts what greedy ignores:
topping an innocent stack of ``L`` markers costs ``L - 1`` (classic) or ``L``
(revised), and in classic a marker that a later seat covers on an innocent suspect
*lowers* the count by one (it goes to the coverer), so an early seat does well on a
likely innocent that others will pile onto, and a late seat avoids topping stacks.
The agent accuses where the expected *value* after the round is highest, ties to the
likelier culprit. The value compares its score count with each other seat's:
``tanh(x / (spread * sqrt(rounds left)))`` for a seat ``x`` markers behind, so far from
the end it is (up to scale) the expected change of its own score relative to the
others, and in an ending that triggers the end condition (classic: 8 markers held or
no coloured marker left; revised: 5 penalty markers or none left to place) it is the
final result, ``sign(x)``, which makes a leader end the game and a trailer avoid it.

**Look** (first player). Before anyone has looked the three slots are exchangeable:
whichever slot is left unseen, the agent learns as much, and the public unseen marker
tells the others nothing about the tiles. So it leaves slot 0 unseen, deterministically.

**Swap** (classic first player). Swapping keeps the pool of unknown tiles (the removed
tile becomes the known victim) but trades a seen suspect for an unknown one, and it
changes what the next seats see when they accuse. The agent scores keep and each
possible swap by the value of its best accusation afterwards, with the same look-ahead,
and swaps when that is better by ``swap_margin``. How often it swaps, and what
swapping is worth against each kind of opponent, are measured in the README's
benchmarks, not here.

>>> from grove_env.agents.base import make_agent
>>> agent = make_agent("heuristic-trust:trust=0.5", seed=0)
>>> agent.params.trust
0.5
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grove_env.actions import ACCUSE_0, KEEP, LEAVE_0, SWAP_0, Phase
from grove_env.observation import DecodedObservation, decode
from grove_env.rules import Scoring, ends_game

from ..base import BaseAgent, check_params, parse_options
from .round_model import Outcomes, Resolutions, round_outcomes
from .seat_model import Model
from .table_belief import Knowledge


@dataclass(frozen=True)
class TrustParams:
    """Tunable parts of the heuristic, with defaults chosen by measurement.

    The trade-off is ``trust``: believing the other seats' accusations pays against
    informed players and costs against random ones. The measurements (win share per
    table, seats rotated: ``grove-gauntlet --opponents``) are in the README.
    """

    trust: float = 0.8
    """Prior probability that the other seats play the model of
    :mod:`grove_env.agents.trust.seat_model` rather than uniformly at random; updated each round
    by how
    well the earlier accusations fit it (0: exact uniform posterior, random later seats)."""

    noise: float = 0.2
    """Probability that a seat of the model table accuses uniformly at random instead
    of as the model."""

    caution: float = 0.0
    """Share of the model seats' informed choices that are cautious (avoid topping
    innocent stacks); the rest are plain greedy (the likeliest culprit)."""

    spread: float = 1.0
    """Score difference that the value function counts as decisive with one round left:
    a seat ``x`` markers behind is worth ``tanh(x / (spread * sqrt(rounds left)))``."""

    swap_margin: float = 0.01
    """A swap must beat keeping by this much expected value to be played."""

    def __post_init__(self) -> None:
        check_params(self, ("trust", "noise", "caution"), ("spread",))


@dataclass(frozen=True)
class Standing:
    """The marker counts and end rules that the value function needs from one
    observation (relative seats, seat 0 is us)."""

    coloured: np.ndarray
    penalty: np.ndarray
    scoring: Scoring
    end_markers_held: int | None
    end_penalty_held: int | None

    @classmethod
    def of(cls, d: DecodedObservation) -> Standing:
        return cls(
            coloured=np.array(d.coloured, dtype=np.float64),
            penalty=np.array(d.penalty, dtype=np.float64),
            scoring=d.scoring,
            end_markers_held=d.end_markers_held or None,
            end_penalty_held=d.end_penalty_held or None,
        )

    def values(self, out: Outcomes, spread: float) -> np.ndarray:
        """Expected value of the position after the round, per own accusation.

        Each other seat contributes ``tanh(x / (spread * sqrt(rounds left)))`` where
        ``x`` is how far its score is behind ours; in rows where the game ends the
        contribution is the final ``sign(x)``. Rounds left: at least one, and at most
        the fewest coloured markers any seat will hold (a seat places one per round).
        """
        col0, pen0 = self.coloured, self.penalty
        score0 = self.scoring.score(col0, pen0)
        t = out.table
        behind = (score0[1:] - score0[0]) + t.behind
        scale = spread * np.sqrt(max(col0.min() - 1.0, 1.0))
        pairwise = np.tanh(behind / scale)
        if self._may_end(t):
            col = col0 + t.coloured
            pen = pen0 + t.penalty
            ended = ends_game(col, pen, self.end_markers_held, self.end_penalty_held)
            ended = ended.any(axis=2)
            pairwise[ended] = np.sign(behind[ended])
        return (out.prob * pairwise.mean(axis=2)).sum(axis=1)

    def _may_end(self, t: Resolutions) -> bool:
        """Whether any way this round can go ends the game (cheap bounds first)."""
        if self.coloured.min() <= 1:
            return True
        gain = float(t.penalty.max())  # the most penalty markers one seat can take
        if self.end_penalty_held and self.penalty.max() + gain >= self.end_penalty_held:
            return True
        held = self.coloured + self.penalty
        return bool(self.end_markers_held and held.max() + gain >= self.end_markers_held)


class TrustAgent(BaseAgent):
    """Accuses the slot with the best expected value after the round (see the module doc)."""

    name = "heuristic-trust"
    deterministic = True

    def __init__(self, params: TrustParams | None = None) -> None:
        self.params = params or TrustParams()

    def act(self, observation: dict[str, np.ndarray]) -> int:
        mask = np.asarray(observation["action_mask"])
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("heuristic-trust agent asked to act with an all-zero action mask")
        vector = np.asarray(observation["observation"])
        d = decode(vector)
        if d.phase is Phase.ACCUSE:
            values, q = self.accusation_values(d)
            slots = [s for s in range(3) if mask[ACCUSE_0 + s]] or [0, 1, 2]
            action = ACCUSE_0 + max(slots, key=lambda s: (round(float(values[s]), 9), q[s], -s))
        elif d.phase is Phase.SWAP:
            action = self.swap_choice(d, mask)
        else:
            action = LEAVE_0
        return action if mask[action] else int(legal[0])

    # ------------------------------------------------------------------ accuse
    def accusation_values(
        self, d: DecodedObservation
    ) -> tuple[np.ndarray, tuple[float, float, float]]:
        """Expected value per accused slot, and the (trust-weighted) culprit posterior."""
        return self._values(Knowledge.of(d), Standing.of(d))

    def expected_score_change(self, d: DecodedObservation) -> tuple[float, float, float]:
        """Expected change of the seat's own score count this round, per accused slot.

        The same look-ahead as :meth:`accusation_values`, summarised as the plain
        expected score change (lower is better) instead of the value function.
        """
        out = self._outcomes(Knowledge.of(d))
        own = (out.prob * out.table.score[:, :, 0]).sum(axis=1)
        return float(own[0]), float(own[1]), float(own[2])

    def _outcomes(self, k: Knowledge) -> Outcomes:
        p = self.params
        return round_outcomes(k, p.trust, Model(noise=p.noise, caution=p.caution))

    def _values(
        self, k: Knowledge, standing: Standing
    ) -> tuple[np.ndarray, tuple[float, float, float]]:
        out = self._outcomes(k)
        return standing.values(out, self.params.spread), out.q

    # ------------------------------------------------------------------ swap
    def swap_choice(self, d: DecodedObservation, mask: np.ndarray) -> int:
        """Keep, or the swap whose best accusation afterwards is worth the most."""
        k = Knowledge.of(d)
        standing = Standing.of(d)
        best_action, best = KEEP, max(self._values(k.after_swap(None), standing)[0])
        for s in range(3):
            if not mask[SWAP_0 + s] or k.slots[s] is None:
                continue
            value = max(self._values(k.after_swap(s), standing)[0])
            if value > best + self.params.swap_margin:
                best_action, best = SWAP_0 + s, value
        return best_action


def parse_params(arg: str | None) -> TrustParams:
    """``"trust=0.5,noise=0.3"`` -> :class:`TrustParams` (``None``: the defaults)."""
    return parse_options(arg, TrustParams, "heuristic-trust")


def make(arg: str | None = None, seed: int | None = None) -> TrustAgent:
    """Registry factory: ``heuristic-trust`` or ``heuristic-trust:trust=0.5``; deterministic."""
    return TrustAgent(parse_params(arg))
