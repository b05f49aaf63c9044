"""Share of high-frequency words: the RuCoLA paper keeps sentences whose share of words
with lemma frequency above 1 ipm is greater than 0.6, so that annotators judge grammar,
not rare vocabulary."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rucola.corpus.thresholds import THRESHOLDS
from rucola.rules import RowRule

if TYPE_CHECKING:
    from rucola.settings import Filter, Screen


def high_freq_share(word_ipm: pa.ChunkedArray | pa.Array, min_ipm: float) -> np.ndarray:
    """Per sentence, the share of words whose lemma ipm exceeds ``min_ipm`` (0 if no words)."""
    if isinstance(word_ipm, pa.ChunkedArray):
        word_ipm = word_ipm.combine_chunks()
    lengths = pc.list_value_length(word_ipm).fill_null(0).to_numpy(zero_copy_only=False)
    flat = pc.list_flatten(word_ipm).to_numpy(zero_copy_only=False)
    hits = (flat > min_ipm).astype(np.int64)
    owners = np.repeat(np.arange(len(lengths)), lengths)
    high = np.bincount(owners, weights=hits, minlength=len(lengths))
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(lengths > 0, high / np.maximum(lengths, 1), 0.0)
    return share.astype(np.float64)


@THRESHOLDS.register(order=20)
class HighFrequencyShareRule(RowRule):
    name = "high_freq_share"
    needs = ("word_ipm",)  # the stage derives ``high_freq_share`` from it

    @classmethod
    def from_settings(cls, section: Filter | Screen) -> HighFrequencyShareRule | None:
        """Off when ``min_high_freq_share`` is null."""
        if section.min_high_freq_share is None:
            return None
        return cls(section.min_high_freq_share)

    def __init__(self, min_share: float) -> None:
        self.min_share = min_share

    def reasons(self, rows: pa.Table) -> np.ndarray:
        share = rows.column("high_freq_share").to_numpy()
        out = np.full(len(share), None, dtype=object)
        out[~(share > self.min_share)] = "low_frequency_words"
        return out

    def params(self) -> dict[str, object]:
        return {"min_high_freq_share": self.min_share}
