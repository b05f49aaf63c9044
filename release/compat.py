"""The published RuCoLA file layout, so existing leaderboard tooling keeps working.

``in_domain_train.csv``, ``in_domain_dev.csv``, ``out_of_domain_dev.csv`` carry
``id,sentence,acceptable,error_type,detailed_source`` (``error_type`` ``0`` when
acceptable); ``test.csv`` only ``id,sentence``; ``sample_submission.csv`` ``id,acceptable``.
Ids are the release's ids, so a submission scores against the private gold directly.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from rucola.corpus.sources.rucola_csv import PUBLISHED_FILES
from rucola.errors import RucolaError
from rucola.io import atomic_dir, stable_hash

# The labelled files of the published layout: name, domain, split (test.csv is unlabelled).
LABELLED = [(name, domain, split) for name, (split, domain) in PUBLISHED_FILES.items() if domain]


def _csv(frame: pd.DataFrame, path: Path) -> None:
    path.write_text(frame.to_csv(index=False, lineterminator="\n"), encoding="utf-8")


def export_rucola_csv(split_path: str | Path, out_dir: str | Path) -> dict[str, int]:
    split_path = Path(split_path)
    if not split_path.is_file():
        raise RucolaError("split data not found; run 'rucola split' first", split_path)
    frame = pq.read_table(split_path).to_pandas().sort_values(["split", "id"])
    counts: dict[str, int] = {}
    with atomic_dir(out_dir) as tmp:
        for name, domain, split in LABELLED:
            part = frame[(frame["domain"] == domain) & (frame["split"] == split)]
            table = pd.DataFrame(
                {
                    "id": part["id"].astype("int64"),
                    "sentence": part["sentence"],
                    "acceptable": part["label"].astype("int64"),
                    "error_type": part["error_type"].where(part["label"] == 0, "0").fillna("0"),
                    "detailed_source": part["detailed_source"],
                }
            )
            _csv(table, tmp / name)
            counts[name] = len(table)
        test = frame[frame["split"] == "test"]
        _csv(test[["id", "sentence"]], tmp / "test.csv")
        sample = pd.DataFrame(
            {
                "id": test["id"].astype("int64"),
                "acceptable": [int(stable_hash(str(i)), 16) % 2 for i in test["id"]],
            }
        )
        _csv(sample, tmp / "sample_submission.csv")
        counts["test.csv"] = len(test)
    return counts
