"""Token-length histogram: a CSV for ``dvc plots`` and the same picture as PNG.

The CSV is wide: ``n_tokens`` and one column of counts per domain, every length from the
shortest to the longest, so that DVC's top-level plot in ``dvc.yaml`` (``y`` naming the
domain columns) draws one line per domain. A long table (domain, n_tokens, sentences)
drew the domains as one zigzag line, since a plot of one ``y`` has one series per
revision. The columns are always the same (a domain without rows is a column of zeros):
DVC refuses a plot whose ``y`` names a column the file lacks. Rows without a domain
(published test rows whose gold is not held) are the column ``unlabelled``; the split
draws every test row as ``test`` (its domain is hidden, and git tracks the plot).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from rucola.corpus import schema
from rucola.io import atomic_path, write_text

UNLABELLED = "unlabelled"  # rows without a domain: published test rows without their gold
TEST = "test"  # the corpus's plot: every test row, its domain hidden (``corpus.split``)
COLUMNS = [*schema.DOMAINS, TEST, UNLABELLED]


def histogram_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Sentences per length (rows) and domain (columns), every length from the shortest to
    the longest, zeros where none."""
    domain = frame["domain"].astype("object").where(frame["domain"].notna(), UNLABELLED)
    unknown = sorted(set(domain) - set(COLUMNS))
    if unknown:
        raise ValueError(f"token_length_histogram: unknown domain {unknown[0]!r}")
    lengths = frame["n_tokens"].astype("int64")
    index = np.arange(int(lengths.min()), int(lengths.max()) + 1) if len(lengths) else []
    counts = (
        pd.crosstab(lengths.to_numpy(), domain.to_numpy())
        if len(lengths)
        else pd.DataFrame(dtype="int64")
    )
    table = counts.reindex(index=index, columns=COLUMNS, fill_value=0).fillna(0).astype("int64")
    table.index.name = "n_tokens"
    table.columns.name = None
    return table.reset_index()


def token_length_histogram(
    frame: pd.DataFrame,
    csv_path: str | Path,
    png_path: str | Path,
    title: str = "Sentence length per domain",
    empty: str = "No sentences.",
    tokens_named: str = "razdel tokens",
) -> None:
    """Write the histogram of ``frame``'s ``n_tokens`` per ``domain`` as CSV and PNG (a line
    per domain that has rows, as DVC draws the CSV); ``empty`` is what the PNG says when
    there is no row, so that an empty plot is not read as a broken one."""
    table = histogram_table(frame)
    write_text(table.to_csv(index=False, lineterminator="\n"), csv_path)
    fig = histogram_figure(table, title, empty, tokens_named)
    with atomic_path(png_path) as tmp:
        fig.savefig(tmp, format="png", metadata={"Software": None})


def histogram_figure(  # noqa: ANN201 - Figure
    table: pd.DataFrame, title: str, empty: str, tokens_named: str = "razdel tokens"
):
    """The PNG's figure of a :func:`histogram_table`: a line per column with rows, or
    ``empty`` written across the axes when no column has any; ``tokens_named``: what the
    language profile's tokens are called (the x axis)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    drawn = False
    for column in COLUMNS:
        total = int(table[column].sum())
        if total:
            ax.plot(table["n_tokens"], table[column], marker="o", ms=3, label=f"{column} ({total})")
            drawn = True
    ax.set_xlabel(f"{tokens_named} per sentence")
    ax.set_ylabel("sentences")
    ax.set_title(title)
    if drawn:
        ax.legend()
    else:  # no scale to read: the 0 to 1 ticks of empty axes would look like data
        ax.set_xticks([])
        ax.set_yticks([])
        ax.text(0.5, 0.5, empty, ha="center", va="center", transform=ax.transAxes)
    fig.tight_layout()
    return fig
