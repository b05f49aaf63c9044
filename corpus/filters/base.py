"""The keep-or-reason contract and the bookkeeping every rule shares.

A rule looks at a batch of rows and returns, per row, ``None`` (keep) or a reason. The
pipeline applies rules in order (the first reason wins), counts drops per reason, and
writes the dropped rows to a side file, as datatrove does.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pandas as pd


class FilterRule(ABC):
    """One criterion. ``reasons`` returns an object array: None to keep, else a reason."""

    name: str = "rule"

    @abstractmethod
    def reasons(self, batch: pd.DataFrame) -> np.ndarray: ...

    def params(self) -> dict[str, object]:
        return {}


@dataclass
class FilterOutcome:
    kept: pd.DataFrame
    rejected: pd.DataFrame
    counts: Counter = field(default_factory=Counter)


def rule_reasons(batch: pd.DataFrame, rules: list[FilterRule]) -> np.ndarray:
    """Per row, None (keep) or the reason of the first rule that rejects it."""
    reason = np.full(len(batch), None, dtype=object)
    for rule in rules:
        pending = np.equal(reason, None)
        if not pending.any():
            break
        found = rule.reasons(batch)
        reason = np.where(pending & ~np.equal(found, None), found, reason)
    return reason


def apply_rules(batch: pd.DataFrame, rules: list[FilterRule]) -> FilterOutcome:
    """Apply ``rules`` in order; a row's reason is the first rule that rejects it."""
    reason = rule_reasons(batch, rules)
    keep = np.equal(reason, None)
    rejected = batch.loc[~keep].copy()
    rejected.insert(0, "reason", reason[~keep].astype(str))
    return FilterOutcome(batch.loc[keep].copy(), rejected, Counter(rejected["reason"]))
