"""Win-share bar charts with 95% intervals, as PNG: the tournament's and the gauntlet's.

Both reports hand over plain bars (:class:`Bar`), so the chart knows nothing of the
reports and each report imports it, never the other way round.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

PLAIN, REFERENCE = "#4c72b0", "#8c8c8c"


@dataclass(frozen=True)
class Bar:
    """One bar: its label, the win share and its interval, and whether to grey it."""

    label: str
    share: float
    low: float
    high: float
    grey: bool = False


def plot_win_shares(
    path: str,
    bars: Sequence[Bar],
    fair_share: float,
    title: str,
    mean: float | None = None,
    slanted: bool = False,
) -> None:
    """Bars of win share with 95% intervals, the fair-share line and, given ``mean``, the
    rule-based mean; written to ``path`` as a PNG."""
    # Figure + Agg canvas directly: no pyplot, no global backend switch.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(1.8 + 1.15 * len(bars), 4.2), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    xs = list(range(len(bars)))
    errs = [[b.share - b.low for b in bars], [b.high - b.share for b in bars]]
    colours = [REFERENCE if b.grey else PLAIN for b in bars]
    ax.bar(xs, [b.share for b in bars], yerr=errs, capsize=5, color=colours)
    ax.axhline(fair_share, color="#c44e52", linestyle="--", label="fair share")
    if mean is not None:
        ax.axhline(mean, color="#55a868", linestyle=":", label="rule-based mean")
    labels = [b.label for b in bars]
    if slanted:
        ax.set_xticks(xs, labels, rotation=30, ha="right")
    else:
        ax.set_xticks(xs, labels)
    ax.set_ylabel("win share (95% Wilson interval)")
    ax.set_ylim(0, min(1.0, max(b.high for b in bars) * 1.15 + 0.02))
    ax.set_title(title)
    ax.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(path)
