"""The learned best response's figures: each seat's gain, their sum (a lower bound), the exact.

A seat's gain is the best response's mean return there minus the policy's own (both
from fresh games, :mod:`.evaluate`); its interval adds the two standard errors in
quadrature (the games are independent). The sum of the gains is a **lower bound** on
NashConv: each learned response is one response, the best one gains at least as much
(up to the sampling error the interval shows). Both reward modes are zero-sum, so the
policy's own values sum to zero and the sum's interval is the best responses' alone.

:func:`result` is the command's JSON (``--json``), :func:`text` the same for a reader.
"""

from __future__ import annotations

import math
from typing import Any

from .evaluate import Z95, SeatValues
from .plan import Plan


def interval(mean: float, error: float) -> list[float]:
    """The 95% interval of a mean with standard error ``error``.

    >>> interval(1.0, 0.5)
    [0.02, 1.98]
    """
    return [round(mean - Z95 * error, 6), round(mean + Z95 * error, 6)]


def result(
    plan: Plan,
    response: SeatValues,
    profile: SeatValues,
    run_dir: str,
    steps: int,
    seconds: dict[str, float],
    exact: Any | None = None,
) -> dict[str, Any]:
    """The command's JSON: the table, each seat's values and gain, the bound, the exact."""
    seats = []
    for i in range(plan.players):
        gain = response.means[i] - profile.means[i]
        error = math.hypot(response.errors[i], profile.errors[i])
        seats.append(
            {
                "seat": i,
                "response": response.means[i],
                "profile": profile.means[i],
                "gain": gain,
                "gain_interval": interval(gain, error),
            }
        )
    bound = sum(response.means)  # the profile's values sum to zero (zero-sum rewards)
    error = math.sqrt(sum(e * e for e in response.errors))
    out: dict[str, Any] = {
        "rules": plan.rules,
        "players": plan.players,
        "agent": plan.agent,
        "whole_game": plan.whole_game,
        "unit": plan.unit,
        "kind": "lower bound",
        "lower_bound": bound,
        "lower_bound_interval": interval(bound, error),
        "seats": seats,
        "steps": steps,
        "eval_games": response.games,
        "profile_games": profile.games,
        "seed": plan.seed,
        "run_dir": run_dir,
        "seconds": seconds,
        "seconds_per_seat": round(seconds["total"] / plan.players, 1),
    }
    if exact is not None:
        out["exact"] = {
            "nash_conv": exact.nash_conv,
            "gains": list(exact.gains),
            "values": list(exact.values),
            "ratio": bound / exact.nash_conv if exact.nash_conv > 0 else None,
            "ratio_interval": (
                [v / exact.nash_conv for v in out["lower_bound_interval"]]
                if exact.nash_conv > 0
                else None
            ),
            "seconds": seconds.get("exact"),
        }
    return out


def text(out: dict[str, Any]) -> str:
    """The result for a reader: one row per seat, then the bound said as a bound."""
    what = "whole game" if out["whole_game"] else "one round from the start of a game"
    lines = [
        f"learned best response to {out['agent']} at {out['rules']} {out['players']}p, {what} "
        f"({out['unit']}); {out['steps']:,} steps, {out['eval_games']:,} games per seat",
        "",
        "seat  response  profile      gain  95% interval"
        + ("     exact gain" if "exact" in out else ""),
    ]
    for i, s in enumerate(out["seats"]):
        lo, hi = s["gain_interval"]
        row = (f"{s['seat']:>4}  {s['response']:8.4f}  {s['profile']:7.4f}  {s['gain']:8.4f}"
               f"  [{lo:.4f}, {hi:.4f}]")  # fmt: skip
        if "exact" in out:
            row += f"  {out['exact']['gains'][i]:13.4f}"
        lines.append(row)
    lo, hi = out["lower_bound_interval"]
    lines += [
        "",
        f"NashConv >= {out['lower_bound']:.4f} {out['unit']} (95% interval [{lo:.4f}, {hi:.4f}]): "
        "a LOWER BOUND, what one learned response gains; the exact figure may be larger",
    ]
    if "exact" in out:
        ex = out["exact"]
        ratio = "n/a" if ex["ratio"] is None else f"{ex['ratio']:.3f}"
        span = ("" if ex["ratio_interval"] is None else
                " [{:.3f}, {:.3f}]".format(*ex["ratio_interval"]))  # fmt: skip
        lines.append(
            f"exact NashConv {ex['nash_conv']:.4f} {out['unit']}: the bound recovers {ratio}{span}"
        )
    sec = out["seconds"]
    lines.append(
        f"seconds: training {sec['train']:.0f}, evaluation {sec['evaluate']:.0f}"
        + (f", exact {sec['exact']:.0f}" if "exact" in sec else "")
        + f"; {out['seconds_per_seat']:.0f} per seat; run {out['run_dir']}"
    )
    return "\n".join(lines) + "\n"
