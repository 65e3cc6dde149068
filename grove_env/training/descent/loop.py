"""The loop every descent runs: settings checked, Adam steps, measurements, the weights kept.

:func:`run_descent` is shared by the descent on one round's tree (:mod:`~.exact`) and on
the whole game (:mod:`~.game`); :func:`kept` says which measurement's weights a stage
keeps (``keep``, ``floors``).
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable, Mapping

import torch

from grove_env.agents.learned.actor import Actor
from grove_env.training.descent.tree import (
    DescentReport,
    Measured,
    TabularPolicy,
    trained_parameters,
)

KEEPS = ("lowest", "last")

GRADIENTS = ("nashconv", "own")
"""What :func:`descent_loss` follows (module docstring): the gradient of NashConv, or
each seat's own value against each best responder (the earlier form)."""


def check_gradient(gradient: str) -> None:
    """A ``ValueError`` unless ``gradient`` is one of :data:`GRADIENTS`."""
    if gradient not in GRADIENTS:
        raise ValueError(f"gradient is {' or '.join(GRADIENTS)}, got {gradient!r}")


def check_settings(
    iterations: int,
    lr: float,
    lr_end: float,
    every: tuple[str, int],
    keep: str = "lowest",
    gradient: str = "nashconv",
) -> None:
    """A ``ValueError`` unless the settings of :func:`run_descent` (and the descent
    term's ``gradient``) make sense."""
    name, period = every
    if iterations < 0 or period < 1 or not 0 < lr < math.inf or not 0 <= lr_end <= 1:
        raise ValueError(f"need iterations >= 0, {name} >= 1, lr > 0, 0 <= lr_end <= 1")
    if keep not in KEEPS:
        raise ValueError(f"keep is {' or '.join(KEEPS)}, got {keep!r}")
    check_gradient(gradient)


def run_descent(
    actor: Actor | TabularPolicy,
    iterations: int,
    lr: float,
    lr_end: float,
    every: tuple[str, int],
    measure: Callable[[], Measured],
    loss: Callable[[], torch.Tensor],
    on_report: Callable[[DescentReport], None] | None = None,
    keep: str = "lowest",
    floors: Mapping[str, float] | None = None,
) -> list[DescentReport]:
    """The loop of every descent: ``measure()`` (a NashConv and the play values) at
    iteration 0, every ``every`` iterations (named, for the error) and at the end,
    keeping the weights that :func:`kept` picks with ``keep`` and ``floors``; between,
    one Adam step on ``loss()`` over the policy's :func:`trained_parameters`, the step
    size linear from ``lr`` to ``lr * lr_end``.
    Leaves ``actor`` with the kept weights; returns the measurements."""
    check_settings(iterations, lr, lr_end, every, keep)
    period = every[1]
    params = trained_parameters(actor)
    optimizer = torch.optim.Adam(params, lr=lr)
    began = time.perf_counter()
    reports: list[DescentReport] = []
    best: dict | None = None
    for k in range(iterations + 1):
        if k % period == 0 or k == iterations:
            nash_conv, play = measure()
            report = DescentReport(k, nash_conv, time.perf_counter() - began, play)
            reports.append(report)
            if on_report is not None:
                on_report(report)
            if kept(reports, keep, floors) is report:  # the kept weights so far: these
                best = copy.deepcopy(actor.state_dict())
        if k == iterations:
            break
        for group in optimizer.param_groups:
            group["lr"] = lr * (1.0 - (1.0 - lr_end) * k / max(iterations, 1))
        step = loss()
        optimizer.zero_grad(set_to_none=True)
        step.backward()
        optimizer.step()
    assert best is not None
    actor.load_state_dict(best)
    return reports


def lowest(reports: list[DescentReport]) -> DescentReport:
    """The lowest NashConv measured (the first of equals): whose weights
    :func:`run_descent` keeps by default."""
    return min(reports, key=lambda r: (r.nash_conv, r.iteration))


def under(values: Mapping[str, float], floors: Mapping[str, float]) -> list[str]:
    """The opponents of ``floors`` (spec -> markers) whose ``values`` are under their
    floor: what a descent step climbs, and what rules a measurement out of ``kept``."""
    return [spec for spec, floor in floors.items() if values[spec] < floor]


def kept(
    reports: list[DescentReport],
    keep: str = "lowest",
    floors: Mapping[str, float] | None = None,
) -> DescentReport:
    """The measurement whose weights :func:`run_descent` kept with ``keep``: the last,
    or the lowest NashConv among those whose play values meet every one of ``floors``
    (opponent spec -> markers), of all where none does."""
    if keep == "last":
        return reports[-1]
    held = [r for r in reports if not under(r.play, floors or {})]
    return lowest(held or reports)
