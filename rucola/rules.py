"""The keep-or-reason contract every row rule follows (filter, screen, and any row stage),
and the loop that applies rules.

A rule looks at a table of rows and returns a :class:`Verdict`: per row, ``None`` (keep)
or a reason, optionally a detail per row (the origin of the row a duplicate repeats) and
the rows as the rule leaves them (the duplicate rule merges the split groups of a
cluster). :func:`apply_rules` applies rules in order, each to the rows the earlier ones
kept, so a row's reason is the first rule that sets it aside, and collects the set-aside
rows with their reasons for the stage's side file, as datatrove does.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa


@dataclass
class Verdict:
    reason: np.ndarray  # object array: None keeps the row, a string names why it goes
    detail: np.ndarray | None = None  # object array of str | None, or None for no detail
    rows: pa.Table | None = None  # the rows as the rule leaves them; None: unchanged


class FilterRule(ABC):
    """One criterion over a table of rows."""

    name: str = "rule"

    @abstractmethod
    def judge(self, rows: pa.Table) -> Verdict: ...

    def params(self) -> dict[str, object]:
        return {}


class RowRule(FilterRule):
    """A criterion on each row's own values (vectorised over the table)."""

    @abstractmethod
    def reasons(self, rows: pa.Table) -> np.ndarray:
        """Per row, None (keep) or a reason."""

    def judge(self, rows: pa.Table) -> Verdict:
        return Verdict(self.reasons(rows))


@dataclass
class SetAside:
    rows: pa.Table
    reason: np.ndarray
    detail: np.ndarray | None


@dataclass
class FilterOutcome:
    kept: pa.Table
    set_aside: list[SetAside] = field(default_factory=list)

    @property
    def counts(self) -> Counter[str]:
        counts: Counter[str] = Counter()
        for part in self.set_aside:
            counts.update(part.reason.tolist())
        return counts


def apply_rules(rows: pa.Table, rules: list[FilterRule]) -> FilterOutcome:
    """Apply ``rules`` in order, each to the rows the earlier ones kept.

    The input is not referenced once the first rule has split it, so a caller that passes
    a table it holds no other reference to needs memory for one copy of the rows, not two.
    """
    outcome = FilterOutcome(rows)
    del rows
    for rule in rules:
        verdict = rule.judge(outcome.kept)
        table = verdict.rows if verdict.rows is not None else outcome.kept
        drop = ~np.equal(verdict.reason, None)
        if drop.any():
            detail = None if verdict.detail is None else verdict.detail[drop]
            outcome.set_aside.append(
                SetAside(table.filter(pa.array(drop)), verdict.reason[drop], detail)
            )
            table = table.filter(pa.array(~drop))
        outcome.kept = table
        del table
        pa.default_memory_pool().release_unused()
    return outcome
