"""Pinned splits: rows of a previous release keep their split in the next one.

A new version must never move a sentence from train into test. The pin can be a release
folder (``data/release/rucola``), the split stage's parquet, or a folder in the published
RuCoLA CSV layout; sentences are matched on their normalised text.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from corpus.homoglyphs import fix_homoglyphs
from corpus.normalize import normalize_text
from rucola.errors import RucolaError

RUCOLA_FILES = {
    "in_domain_train.csv": "train",
    "in_domain_dev.csv": "validation",
    "out_of_domain_dev.csv": "validation",
    "test.csv": "test",
}


def sentence_key(sentence: str) -> str:
    return fix_homoglyphs(normalize_text(sentence))[0]


def _from_rucola_csv(folder: Path) -> dict[str, str]:
    """Earlier files win: the published train and test share a sentence, and a sentence a
    model was trained on must stay in train."""
    pins: dict[str, str] = {}
    for name, split in RUCOLA_FILES.items():
        path = folder / name
        if path.is_file():
            frame = pd.read_csv(path, dtype=str, keep_default_na=False)
            if "sentence" not in frame.columns:
                raise RucolaError("no 'sentence' column", path, 1)
            for sentence in frame["sentence"]:
                pins.setdefault(sentence_key(sentence), split)
    return pins


def _from_release(folder: Path) -> dict[str, str]:
    pins: dict[str, str] = {}
    files = sorted((folder / "default").glob("*.parquet"))
    if not files:
        raise RucolaError("no default/*.parquet files in this release folder", folder)
    for path in files:
        split = path.stem.split("-")[0]
        for sentence in pq.read_table(path, columns=["sentence"]).column(0).to_pylist():
            pins[sentence_key(sentence)] = split
    return pins


def load_pin(path: str | Path) -> dict[str, str]:
    """Normalised sentence -> split of the pinned release."""
    path = Path(path)
    if path.is_dir():
        if any((path / name).is_file() for name in RUCOLA_FILES):
            pins = _from_rucola_csv(path)
        else:
            pins = _from_release(path)
    elif path.is_file() and path.suffix == ".parquet":
        table = pq.read_table(path)
        if not {"sentence", "split"} <= set(table.column_names):
            raise RucolaError("a pinned parquet needs 'sentence' and 'split' columns", path)
        pins = {
            sentence_key(s): split
            for s, split in zip(
                table.column("sentence").to_pylist(), table.column("split").to_pylist(), strict=True
            )
        }
    else:
        raise RucolaError(
            "split.pin must be a release folder, a parquet file or a folder of "
            "published RuCoLA CSVs",
            path,
        )
    unknown = set(pins.values()) - {"train", "validation", "test"}
    if unknown:
        raise RucolaError(f"unknown split name(s) {sorted(unknown)} in the pin", path)
    return pins
