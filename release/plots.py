"""The card's pictures: sentence length by domain, and violation categories by domain (the
RuCoLA paper's Figure 1, over labelled splits only).

Figures are drawn with the object-oriented API on an Agg canvas (no pyplot state, no GUI
backend), at a fixed size and dpi and without the ``Software`` stamp, so that the same rows
give the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from rucola.corpus import schema

FIGSIZE = (7.0, 4.0)
DPI = 100


def _figure():  # noqa: ANN202 - (Figure, Axes)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=FIGSIZE, dpi=DPI)
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def _save(fig, path: str | Path) -> None:  # noqa: ANN001 - matplotlib Figure
    fig.tight_layout()
    fig.savefig(Path(path), format="png", dpi=DPI, metadata={"Software": None})


def token_length_plot(frame: pd.DataFrame, path: str | Path, tokens_named: str) -> None:
    """:func:`token_length_figure` of ``frame``, saved as PNG to ``path``."""
    _save(token_length_figure(frame, tokens_named), path)


def token_length_figure(frame: pd.DataFrame, tokens_named: str):  # noqa: ANN201 - Figure
    """Histogram of ``n_tokens`` per domain over train and validation, and of the test split
    as one series: a per-domain histogram that counted test rows would tell the domain of a
    test sentence whose length only one domain has. Each series is an unfilled outline, so
    that none hides another (out-of-domain validation and the test split overlap). The
    title names the test series only where there is one (CoLA publishes no test split).
    ``tokens_named``: what the language's profile calls its tokens (the x axis)."""
    fig, ax = _figure()
    lengths = frame["n_tokens"].astype("int64")
    test = (frame["split"] == "test").to_numpy()
    if len(lengths):
        bins = np.arange(int(lengths.min()), int(lengths.max()) + 2) - 0.5
        series = [(d, ~test & (frame["domain"] == d).to_numpy()) for d in schema.DOMAINS]
        series.append(("test, domain hidden", test))
        for label, mask in series:
            values = lengths[mask].to_numpy()
            if len(values):
                # Outlines, not translucent bars: a series behind a larger one stays visible.
                ax.hist(
                    values,
                    bins=bins,
                    histtype="step",
                    linewidth=1.6,
                    label=f"{label} ({len(values)})",
                )
        ax.legend()
    ax.set_xlabel(f"{tokens_named} per sentence")
    ax.set_ylabel("sentences")
    title = "Sentence length: train and validation per domain"
    ax.set_title(title + (", test as one" if test.any() else ""))
    return fig


def category_plot(labelled: pd.DataFrame, path: str | Path, categories: Sequence[str]) -> None:
    """Share of each violation category (``categories``: every domain's of
    ``corpus.categories``) among unacceptable sentences, per domain.

    ``labelled`` must hold train and validation rows only: test labels are hidden.
    """
    if (labelled["split"] == "test").any():
        raise ValueError("category_plot must not see test rows")
    fig, ax = _figure()
    unacceptable = labelled[labelled["label"] == schema.UNACCEPTABLE]
    domains = [d for d in schema.DOMAINS if (unacceptable["domain"] == d).any()]
    width = 0.8 / max(len(domains), 1)
    for i, domain in enumerate(domains):
        part = unacceptable.loc[unacceptable["domain"] == domain, "error_type"]
        shares = [100.0 * float((part == c).mean()) for c in categories]
        positions = np.arange(len(categories)) + i * width
        ax.bar(positions, shares, width=width, label=f"{domain} ({len(part)})")
    ax.set_xticks(np.arange(len(categories)) + width * (max(len(domains), 1) - 1) / 2)
    ax.set_xticklabels(categories)
    ax.set_ylabel("% of unacceptable sentences")
    ax.set_title("Violation categories by domain (train and validation)")
    if domains:
        ax.legend()
    _save(fig, path)
