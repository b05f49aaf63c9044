"""Synthetic corpora shared by tests (tests/ is on sys.path through its conftest)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:
    from rucola.settings import Split


def corpus(n: int = 1000) -> pd.DataFrame:
    """``n`` in-domain rows from five books (75% acceptable, the first 200 in pairs of one
    group) and 200 out-of-domain ones (two thirds acceptable), in domain order."""
    rows = []
    for i in range(n):
        label = int(i % 4 != 0)  # 75% acceptable
        rows.append(
            {
                "sentence": f"Предложение номер {i}.",
                "label": label,
                "error_type": None if label else ["Syntax", "Semantics"][i % 8 // 4],
                "domain": "in_domain",
                "detailed_source": f"Book{i % 5}",
                "group": f"g{i // 2}" if i < 200 else f"g{i}",
            }
        )
    for i in range(200):
        label = int(i % 3 != 0)
        rows.append(
            {
                "sentence": f"Кандидат {i}.",
                "label": label,
                "error_type": None if label else "Hallucination",
                "domain": "out_of_domain",
                "detailed_source": "Tatoeba",
                "group": f"o{i}",
            }
        )
    return pd.DataFrame(rows)


def split_settings(folder: Path, **changes: Any) -> Split:
    """The split stage's settings with every output under ``folder`` (a default left in
    place would write into the repository's data/ and reports/), ``changes`` on top."""
    from rucola.settings import Split

    return Split(
        out=str(folder / "split.parquet"),
        rejected=str(folder / "split_rejected.parquet"),
        report=str(folder / "split.json"),
        private_report=str(folder / "private_split.json"),
        plot=str(folder / "token_lengths.csv"),
        plot_png=str(folder / "token_lengths.png"),
        **changes,
    )
