"""Split rows for the audit's tests: a corpus a classifier can learn, with errors planted.

An acceptable row holds the word ``хорошо``, an unacceptable one ``плохо`` and its
category's marker word (some rows lack the label's word: see :func:`sentence`); the rest
is drawn from a small vocabulary, so the rows differ and TF-IDF has noise to ignore. A
flipped row keeps its words and gets the other label: the errors the audit must find.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from rucola.curation.audit import TYPES

SCHEMA = TYPES  # the split rows' columns the audit reads
COLUMNS = SCHEMA.names
# what corpus() makes: no detailed_source (write() gives every row none), then the id
MADE = ["sentence", "label", "error_type", "domain", "group", "split"]
WORDS = [
    *("мама", "мыла", "раму", "дети", "играли", "во", "дворе", "старый", "мост", "через"),
    *("реку", "построили", "давно", "я", "люблю", "читать", "интересные", "книги", "мы"),
    *("вернулись", "домой", "вечером", "брат", "мечтает", "стать", "лётчиком"),
]
MARKERS = {"Syntax": "потому", "Morphology": "ихний", "Semantics": "круглый"}
SPLITS = ["train"] * 8 + ["validation"] + ["test"]


def sentence(rng: np.random.Generator, label: int, category: str | None, n: int) -> str:
    """One or two drawn words, the label's word and the category's marker, in any order.
    Three rows in ten from row 50 on lack the label's word: hard rows, whose probabilities
    keep the class thresholds of confident learning below those of clear rows, as in a
    real corpus (flip a row below 50: a clear one)."""
    words = list(rng.choice(WORDS, int(rng.integers(1, 3))))
    if n < 50 or n % 10 >= 3:
        words.insert(int(rng.integers(len(words) + 1)), "хорошо" if label else "плохо")
    if category is not None:
        words.insert(int(rng.integers(len(words) + 1)), MARKERS[category])
    return " ".join(words).capitalize() + f" номер{n}."


def corpus(
    n: int = 200,
    seed: int = 0,
    domain: str = "in_domain",
    flips: Iterable[int] = (),
    recategorised: dict[int, str] | None = None,
) -> pd.DataFrame:
    """``n`` rows of one domain, 60% acceptable, spread 8:1:1 over the splits with ids per
    split; the rows in ``flips`` get the other label (a flipped acceptable row takes the
    category Syntax, a flipped unacceptable one loses its category), and those in
    ``recategorised`` another category than their words say."""
    rng = np.random.default_rng(seed)
    flips = set(flips)
    recategorised = recategorised or {}
    categories = list(MARKERS)
    rows = []
    for i in range(n):
        label = int(rng.random() < 0.6)
        category = None if label else categories[i % 3]
        text = sentence(rng, label, category, i)
        if i in flips:
            label, category = 1 - label, ("Syntax" if label == 1 else None)
        if i in recategorised:
            category = recategorised[i]
        rows.append((text, label, category, domain, f"g{domain}{i}", SPLITS[i % len(SPLITS)]))
    frame = pd.DataFrame(rows, columns=MADE)
    frame["id"] = frame.groupby("split").cumcount().astype("int64")
    return frame


def write(frame: pd.DataFrame, path: Path) -> Path:
    """The rows as the split stage writes them (the columns the audit reads)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if "detailed_source" not in frame.columns:
        frame = frame.assign(detailed_source=None)
    clean = frame[COLUMNS].astype(object).where(frame[COLUMNS].notna(), None)
    pq.write_table(pa.Table.from_pandas(clean, schema=SCHEMA, preserve_index=False), path)
    return path
