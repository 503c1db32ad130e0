"""Plots with matplotlib (the ``stats`` extra), on the Agg backend: each plot comes back as
SVG text (to inline in a page) and PNG bytes (to keep as a file).

Nothing imports matplotlib until :func:`load` is called, and only when plots are asked for.
Names in Japanese need a CJK font: matplotlib falls back from DejaVu Sans to the first one
installed (Noto Sans CJK, from Debian's ``fonts-noto-cjk``).
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from table.errors import TableError

HOW_TO_GET: Final = "plots need matplotlib: pip install 'uno-table[stats]'"
CJK_FONTS: Final = ("Noto Sans CJK JP", "Noto Sans CJK SC", "Noto Sans CJK TC",
                    "IPAexGothic", "IPAGothic", "TakaoGothic", "Droid Sans Fallback")
PALETTE: Final = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
                  "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
COLOUR_INK: Final = {"red": "#d62728", "yellow": "#e6b800", "green": "#2ca02c",
                     "blue": "#1f77b4", "wild": "#333333"}


class PlotsUnavailable(TableError, ImportError):
    """matplotlib is not installed."""


@dataclass(frozen=True)
class Plot:
    """One plot: its name, its title and its SVG."""
    name: str  # the file name without extension
    title: str
    svg: str  # an <svg> element, ready to inline
    png: bytes  # empty when drawn for a page alone (:class:`SvgOnly`)


def load() -> Any:
    """matplotlib's pyplot on the Agg backend, with a font for every name; raises
    :class:`PlotsUnavailable` when matplotlib is not installed."""
    try:
        import matplotlib
    except ImportError:
        raise PlotsUnavailable(HOW_TO_GET) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import font_manager

    installed = {f.name for f in font_manager.fontManager.ttflist}
    fallback = [name for name in CJK_FONTS if name in installed]
    matplotlib.rcParams["font.family"] = ["DejaVu Sans", *fallback]
    matplotlib.rcParams["svg.fonttype"] = "path"  # glyphs as paths: the SVG needs no font
    matplotlib.rcParams["svg.hashsalt"] = "uno-table"  # the same plot gives the same bytes
    matplotlib.rcParams["axes.spines.top"] = False
    matplotlib.rcParams["axes.spines.right"] = False
    return plt


def has_cjk_font() -> bool:
    """True when matplotlib has a font that draws Japanese."""
    from matplotlib import font_manager

    installed = {f.name for f in font_manager.fontManager.ttflist}
    return any(name in installed for name in CJK_FONTS)


def needs_cjk(names: Sequence[str]) -> bool:
    """True when any of ``names`` holds a CJK character (the default font draws none)."""
    return any(ord(ch) > 0x2E7F for name in names for ch in name)


_PROLOGUE = re.compile(r"^.*?(?=<svg)", re.S)


class SvgOnly:
    """pyplot for plots that are only shown inline (a web page): each plot is drawn as SVG
    alone, its ``png`` left empty, which halves the time it takes."""

    def __init__(self, plt: Any) -> None:
        self.plt = plt

    def __getattr__(self, name: str) -> Any:
        return getattr(self.plt, name)


def _finish(plt: Any, fig: Any, name: str, title: str) -> Plot:
    fig.tight_layout()
    svg = io.StringIO()
    fig.savefig(svg, format="svg", metadata={"Date": None})
    png = io.BytesIO()
    if not isinstance(plt, SvgOnly):
        fig.savefig(png, format="png", dpi=100, metadata={"Software": None})
    plt.close(fig)
    return Plot(name, title, _PROLOGUE.sub("", svg.getvalue(), count=1), png.getvalue())


def lines(plt: Any, name: str, title: str, series: Mapping[str, Sequence[float]],
          xlabel: str, ylabel: str) -> Plot:
    """One line per series over 0, 1, 2...: cumulative scores by round."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    for i, (label, ys) in enumerate(series.items()):
        ax.plot(range(len(ys)), ys, marker="o", label=label, color=PALETTE[i % len(PALETTE)])
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.legend(frameon=False)
    return _finish(plt, fig, name, title)


def bars(plt: Any, name: str, title: str, values: Mapping[str, float], ylabel: str,
         colours: Mapping[str, str] | None = None,
         errors: Mapping[str, tuple[float, float]] | None = None) -> Plot:
    """One bar per label; ``errors`` gives an interval (low, high) around each value."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    labels = list(values)
    heights = [values[k] for k in labels]
    ink = [(colours or {}).get(k, PALETTE[i % len(PALETTE)]) for i, k in enumerate(labels)]
    yerr = None
    if errors is not None:
        yerr = [[values[k] - errors[k][0] for k in labels], [errors[k][1] - values[k]
                                                             for k in labels]]
    ax.bar(labels, heights, color=ink, yerr=yerr, capsize=4 if yerr else 0)
    if all(float(h).is_integer() for h in heights):
        ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    if len(labels) > 6:
        ax.tick_params(axis="x", labelrotation=30)
    return _finish(plt, fig, name, title)


def stacked(plt: Any, name: str, title: str, groups: Sequence[str],
            layers: Mapping[str, Sequence[float]], ylabel: str) -> Plot:
    """Bars per group, one stacked layer per key of ``layers`` (penalties by kind)."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    bottom = [0.0] * len(groups)
    for i, (label, ys) in enumerate(layers.items()):
        ax.bar(groups, ys, bottom=bottom, label=label, color=PALETTE[i % len(PALETTE)])
        bottom = [b + y for b, y in zip(bottom, ys, strict=True)]
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.yaxis.get_major_locator().set_params(integer=True)
    if layers:
        ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _finish(plt, fig, name, title)


def boxes(plt: Any, name: str, title: str, samples: Mapping[str, Sequence[float]],
          ylabel: str) -> Plot:
    """A box plot per label (turn times, round lengths)."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    labels = list(samples)
    ax.boxplot([list(samples[k]) or [0.0] for k in labels], tick_labels=labels,
               showfliers=False)
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    if len(labels) > 6:
        ax.tick_params(axis="x", labelrotation=30)
    return _finish(plt, fig, name, title)


def histograms(plt: Any, name: str, title: str, counts: Mapping[str, Mapping[int, int]],
               xlabel: str) -> Plot:
    """Distributions given as value -> count, one outline per label, as shares."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    top = max((max(h) for h in counts.values() if h), default=1)
    width = max(1, -(-top // 60))  # about 60 bins over the longest round
    for i, (label, hist) in enumerate(counts.items()):
        total = sum(hist.values()) or 1
        bins: dict[int, int] = {}
        for value, n in hist.items():
            bins[value // width * width] = bins.get(value // width * width, 0) + n
        xs = sorted(bins)
        ax.step([x + width / 2 for x in xs], [bins[x] / total for x in xs], where="mid",
                label=label, color=PALETTE[i % len(PALETTE)])
    ax.set_title(title)
    ax.set_xlabel(xlabel + (f" (bins of {width})" if width > 1 else ""))
    ax.set_ylabel("share of rounds")
    ax.legend(frameon=False)
    return _finish(plt, fig, name, title)


def by_players(plt: Any, name: str, title: str,
               series: Mapping[str, Sequence[tuple[int, float, float, float]]], ylabel: str,
               reference: Sequence[tuple[int, float]] = ()) -> Plot:
    """A value against the number of players, one line per variant, with its interval
    (``(players, value, low, high)``); ``reference`` draws a dashed line (a fair share)."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    counts = sorted({p[0] for points in series.values() for p in points})
    if len(counts) == 1:  # one player count: the variants side by side
        for i, points in enumerate(series.values()):
            _, y, low, high = points[0]
            ax.errorbar([i], [y], yerr=[[y - low], [high - y]], marker="o", capsize=4,
                        color=PALETTE[i % len(PALETTE)])
        ax.set_xticks(range(len(series)), list(series), rotation=10 if len(series) > 3 else 0)
        ax.set_xlim(-0.5, len(series) - 0.5)
        if reference:
            ax.axhline(reference[0][1], linestyle="--", color="#999999", label="fair share")
            ax.legend(frameon=False)
        ax.set_title(f"{title}, {counts[0]} players")
        ax.set_ylabel(ylabel)
        return _finish(plt, fig, name, title)
    count = max(len(series), 1)
    for i, (label, points) in enumerate(series.items()):
        shift = (i - (count - 1) / 2) * 0.06  # side by side, so the intervals stay apart
        xs = [p[0] + shift for p in points]
        ys = [p[1] for p in points]
        err = [[p[1] - p[2] for p in points], [p[3] - p[1] for p in points]]
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=label,
                    color=PALETTE[i % len(PALETTE)])
    if reference:
        ax.plot([r[0] for r in reference], [r[1] for r in reference], linestyle="--",
                color="#999999", label="fair share")
    ax.set_title(title)
    ax.set_xlabel("players")
    ax.set_ylabel(ylabel)
    ax.set_xticks(sorted({p[0] for points in series.values() for p in points}))
    ax.legend(frameon=False)
    return _finish(plt, fig, name, title)
