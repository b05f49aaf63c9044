"""Sentence length in tokens of the language profile (razdel's for Russian; RuCoLA keeps
4 to 30)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from rucola.corpus.thresholds import THRESHOLDS
from rucola.rules import RowRule

if TYPE_CHECKING:
    from rucola.settings import Filter, Screen


@THRESHOLDS.register(order=10)
class TokenCountRule(RowRule):
    name = "token_count"
    needs = ("n_tokens",)

    @classmethod
    def from_settings(cls, section: Filter | Screen) -> TokenCountRule | None:
        """Off when both bounds are null (rebuilding a published release keeps every row)."""
        low, high = section.min_tokens, section.max_tokens
        if low is None and high is None:
            return None
        return cls(0 if low is None else low, 10**9 if high is None else high)

    def __init__(self, min_tokens: int, max_tokens: int) -> None:
        # min_tokens ≤ max_tokens is checked where params are read (settings cross_problems)
        self.min_tokens, self.max_tokens = min_tokens, max_tokens

    def reasons(self, rows: pa.Table) -> np.ndarray:
        n = rows.column("n_tokens").to_numpy()
        out = np.full(len(n), None, dtype=object)
        out[n < self.min_tokens] = "too_few_tokens"
        out[n > self.max_tokens] = "too_many_tokens"
        return out

    def params(self) -> dict[str, object]:
        return {"min_tokens": self.min_tokens, "max_tokens": self.max_tokens}
