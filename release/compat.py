"""The published RuCoLA file layout, so existing leaderboard tooling keeps working.

``in_domain_train.csv``, ``in_domain_dev.csv``, ``out_of_domain_dev.csv`` carry
``id,sentence,acceptable,error_type,detailed_source`` (``error_type`` ``0`` when
acceptable); ``test.csv`` only ``id,sentence``; ``sample_submission.csv`` ``id,acceptable``.
Ids are the release's ids, so a submission scores against the private gold directly.
The layout holds exactly the rows of the release's ``default`` config, drawn from their
public form (``release.public``): RuCoLA's two domains, so its scores stay comparable with
the published leaderboard, and ``test.csv`` has the ids of ``default/test.parquet``.
Learner rows (``schema.LEARNER``) are their own config, in none of these files. A corpus
without test rows (CoLA publishes none) has no ``test.csv`` and no ``sample_submission.csv``:
there is nothing hidden to submit predictions for.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from rucola.corpus.sources.rucola_csv import PUBLISHED_FILES
from rucola.errors import RucolaError
from rucola.io import atomic_dir, stable_hash
from rucola.release.public import DEFAULT, public_frame
from rucola.stage import read_frame

# The labelled files of the published layout: name, domain, split (test.csv is unlabelled).
LABELLED = [(name, domain, split) for name, (split, domain) in PUBLISHED_FILES.items() if domain]


def _csv(frame: pd.DataFrame, path: Path) -> None:
    path.write_text(frame.to_csv(index=False, lineterminator="\n"), encoding="utf-8")


def write_rucola_csv(public: pd.DataFrame, folder: str | Path) -> dict[str, int]:
    """The ``default`` config's rows in the published layout, written into ``folder``; rows
    per file. ``public`` is ``release.public.public_frame``: the layout never sees what a
    test row hides."""
    folder = Path(folder)
    frame = public[public["config"] == DEFAULT].sort_values(["split", "id"])
    counts: dict[str, int] = {}
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
        _csv(table, folder / name)
        counts[name] = len(table)
    test = frame[frame["split"] == "test"]
    if test.empty and not (public["split"] == "test").any():
        return counts  # no test rows in the release at all: no test files
    _csv(test[["id", "sentence"]], folder / "test.csv")
    sample = pd.DataFrame(
        {
            "id": test["id"].astype("int64"),
            "acceptable": [int(stable_hash(str(i)), 16) % 2 for i in test["id"]],
        }
    )
    _csv(sample, folder / "sample_submission.csv")
    counts["test.csv"] = len(test)
    return counts


def export_rucola_csv(split_path: str | Path, out_dir: str | Path) -> dict[str, int]:
    """The split parquet in the published layout, on its own (``rucola release build``
    writes it together with the release folders)."""
    split_path = Path(split_path)
    if not split_path.is_file():
        raise RucolaError("split data not found; run 'rucola split' first", split_path)
    frame = read_frame(split_path, "split data")
    missing = [c for c in ("id", "sentence", "label", "domain", "split") if c not in frame.columns]
    if missing:
        raise RucolaError(f"missing column(s): {', '.join(missing)}", split_path)
    with atomic_dir(out_dir) as tmp:
        return write_rucola_csv(public_frame(frame), tmp)
