"""Token-length histogram: a CSV for ``dvc plots`` and the same picture as PNG."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from rucola.io import atomic_path, write_text


def token_length_histogram(frame: pd.DataFrame, csv_path: str | Path, png_path: str | Path) -> None:
    counts = (
        frame.groupby(["domain", "n_tokens"])
        .size()
        .rename("sentences")
        .reset_index()
        .sort_values(["domain", "n_tokens"])
    )
    write_text(counts.to_csv(index=False, lineterminator="\n"), csv_path)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    for domain, rows in counts.groupby("domain", sort=True):
        ax.bar(rows["n_tokens"], rows["sentences"], alpha=0.6, label=str(domain))
    ax.set_xlabel("razdel tokens per sentence")
    ax.set_ylabel("sentences")
    ax.set_title("Sentence length after filtering")
    if len(counts):
        ax.legend()
    fig.tight_layout()
    with atomic_path(png_path) as tmp:
        fig.savefig(tmp, format="png", metadata={"Software": None})
    plt.close(fig)
