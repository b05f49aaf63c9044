"""The card's pictures: token lengths by domain, violation categories by domain (the
RuCoLA paper's Figure 1). Fixed size, dpi and no software stamp, so bytes repeat."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from corpus import schema


def _pyplot():  # noqa: ANN202
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def token_length_plot(frame: pd.DataFrame, path: Path) -> None:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    bins = range(int(frame["n_tokens"].min()), int(frame["n_tokens"].max()) + 2)
    for domain in schema.DOMAINS:
        values = frame.loc[frame["domain"] == domain, "n_tokens"]
        if len(values):
            ax.hist(values, bins=bins, alpha=0.6, label=domain)
    ax.set_xlabel("razdel tokens per sentence")
    ax.set_ylabel("sentences")
    ax.set_title("Sentence length by domain")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, format="png", metadata={"Software": None})
    plt.close(fig)


def category_plot(frame: pd.DataFrame, path: Path) -> None:
    """Share of each violation category among unacceptable sentences, per domain."""
    plt = _pyplot()
    unacceptable = frame[frame["label"] == schema.UNACCEPTABLE]
    shares = (
        unacceptable.groupby("domain")["error_type"]
        .value_counts(normalize=True)
        .unstack(fill_value=0.0)
        .reindex(columns=schema.ALL_ERROR_TYPES, fill_value=0.0)
    )
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    width = 0.8 / max(len(shares), 1)
    for i, (domain, row) in enumerate(shares.iterrows()):
        positions = [j + i * width for j in range(len(row))]
        ax.bar(positions, row.to_numpy() * 100, width=width, label=str(domain))
    ax.set_xticks([j + width * (len(shares) - 1) / 2 for j in range(len(shares.columns))])
    ax.set_xticklabels(shares.columns)
    ax.set_ylabel("% of unacceptable sentences")
    ax.set_title("Violation categories by domain (train and validation)")
    if len(shares):
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, format="png", metadata={"Software": None})
    plt.close(fig)
