"""The ``descent:`` section: exploitability descent on the exact game, stage by stage.

A config with this section trains by descent (:mod:`grove_env.training.descent`), not by
PPO: ``grove-train --config configs/descent/revised_2p.yaml``. The section is the first
stage; a ``then:`` mapping in a stage is one more, started from the weights the stage
before it kept. The table (``rules``, ``num_players``: one table of 2 to 4 players) and
the network (``net_arch``, ``activation``, ``features``, ``seed``) are the config's; its
PPO settings are read only with ``start: trained``.

>>> stage = DescentStage(iterations=10, then={"whole_game": True, "iterations": 5})
>>> stage.iterations, stage.then.whole_game, stage.then.lr
(10, True, 0.003)
>>> len(stage.stages())
2
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, Field, model_validator

from grove_env.training.config.fields import STRICT, AgentSpec, Float, Int, Text

FIT_EPOCHS, FIT_LR = 16, 0.001
"""The fit's defaults; a stage that is no table leaves them as they are."""


class DescentStage(BaseModel):
    """One stage of a descent (:func:`grove_env.training.descent.exact.descend`)."""

    model_config = STRICT

    iterations: Int = Field(2000, ge=0)
    """Adam steps of the stage."""
    lr: Float = Field(0.003, gt=0.0)
    """Step size at the start of the stage."""
    lr_end: Float = Field(0.02, ge=0.0, le=1.0)
    """The step size at the stage's end, as a fraction of ``lr`` (linear between)."""
    report_every: Int = Field(25, ge=1)
    """Iterations between two exact NashConv measurements (``descent.csv``)."""
    other_states: bool = False
    """Also descend, each iteration, on the round at one later public state drawn at
    random, so that the rounds after the first are trained too."""
    later_rounds: Int = Field(0, ge=0)
    """With ``other_states``: draw the states from this many rounds after the first only
    (0: every later state)."""
    whole_game: bool = False
    """Two players: descend on every public state's round with the game's continuation
    values as payoffs, and measure the whole game's NashConv."""
    round_weight: Float = Field(0.0, ge=0.0)
    """With ``whole_game``: add the first round's own loss (its markers) times this."""
    against: dict[AgentSpec, Float] = Field(default_factory=dict)
    """The play term's opponents: agent spec -> weight > 0; each seat's value in the
    round against ``n - 1`` copies of each is pushed up (with ``against_weight``)."""
    against_weight: Float = Field(0.0, ge=0.0)
    """The play term's weight beside the descent term (> 0 exactly when ``against``)."""
    keep: Literal["lowest", "last"] = "lowest"
    """Which weights the stage keeps: those of its lowest NashConv (meeting the floors),
    or its final ones."""
    gradient: Literal["nashconv", "own"] = "nashconv"
    """``nashconv``: NashConv's own gradient; ``own``: each seat pushed up for itself
    against each best responder (the earlier form, which need not descend at 3+ seats)."""
    floors: dict[AgentSpec, Float] = Field(default_factory=dict)
    """Agent spec -> first-round markers: held at or above against ``n - 1`` copies of
    it (an iteration under a floor steps on that play term alone)."""
    table: bool = False
    """Descend a table (free logits at every information set of the first round,
    started from the network's), then fit the network to the table kept."""
    fit_epochs: Int = Field(FIT_EPOCHS, ge=1)
    """With ``table``: passes of minibatch Adam fitting the network to the table."""
    fit_lr: Float = Field(FIT_LR, gt=0.0)
    """With ``table``: the fit's step size."""
    then: DescentStage | None = None
    """The next stage, started from the weights this one kept (``null``: none)."""

    @model_validator(mode="after")
    def _settings_that_go_together(self) -> DescentStage:
        if self.round_weight and not self.whole_game:
            raise ValueError("round_weight is for a whole_game stage")
        if self.later_rounds and not self.other_states:
            raise ValueError("later_rounds is a count for an other_states stage")
        if self.table and (self.whole_game or self.other_states):
            raise ValueError(
                "a table stage descends the first round: no whole_game or other_states"
            )
        fitting = (self.fit_epochs, self.fit_lr) != (FIT_EPOCHS, FIT_LR)
        if not self.table and fitting:
            raise ValueError("fit_epochs and fit_lr are for a table stage (table: true)")
        if bool(self.against) != (self.against_weight > 0):
            raise ValueError("against (spec: weight) and against_weight > 0 go together")
        for key in ("against", "floors"):
            if getattr(self, key) and self.whole_game:
                raise ValueError(f"{key} is for stages on rounds, not whole_game")
        if any(not 0 < w < math.inf for w in self.against.values()):
            raise ValueError("against's weights are finite and > 0")
        return self

    def stages(self) -> list[DescentStage]:
        """This stage and those of its ``then:`` chain, in order."""
        return [self] + (self.then.stages() if self.then is not None else [])


class DescentSection(DescentStage):
    """The ``descent:`` section: the first stage, and where the descent starts."""

    start: Literal["random", "trained"] = "random"
    """``random``: from random weights; ``trained``: the config is first trained as it
    stands by its own backend (into ``RUN/trained``) and the descent starts from that
    run's best policy (the zoo's tables at 3 and 4 players)."""
    init: Text | None = None
    """Start from this policy of the same network instead (a run directory or a policy
    ``.json``), e.g. a round descent's before a whole-game one."""

    @model_validator(mode="after")
    def _one_start(self) -> DescentSection:
        if self.start == "trained" and self.init is not None:
            raise ValueError("init and start: trained both say where the descent starts")
        return self
