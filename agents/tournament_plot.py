"""The tournament's picture: win share per entry with its 95% interval, as a PNG."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .tournament_report import TournamentResult


def plot_win_shares(result: TournamentResult, path: str) -> None:
    """Bar chart of win share with 95% intervals and the fair-share line, as a PNG."""
    # Figure + Agg canvas directly: no pyplot, no global backend switch.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(1.6 + 1.3 * len(result.entries), 4.0), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    xs = range(len(result.entries))
    shares = [e.win_share for e in result.entries]
    errs = [
        [e.win_share - e.ci_low for e in result.entries],
        [e.ci_high - e.win_share for e in result.entries],
    ]
    ax.bar(xs, shares, yerr=errs, capsize=6, color="#4c72b0")
    ax.axhline(result.fair_share, color="#c44e52", linestyle="--", label="fair share")
    ax.set_xticks(list(xs), [e.label for e in result.entries])
    ax.set_ylabel("win share (95% Wilson interval)")
    ax.set_ylim(0, min(1.0, max(e.ci_high for e in result.entries) * 1.15 + 0.02))
    ax.set_title(f"{result.rules}, {result.num_players} players, {result.games} games")
    ax.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(path)
