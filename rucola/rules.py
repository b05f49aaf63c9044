"""The keep-or-reason contract every row rule follows (filter, screen, and any row stage),
and the loop that applies rules.

A rule looks at a table of rows and returns a :class:`Verdict`: per row, ``None`` (keep)
or a reason, optionally a detail per row (the origin of the row a duplicate repeats) and
the rows as the rule leaves them (the duplicate rule merges the split groups of a
cluster). :func:`apply_rules` applies rules in order, each to the rows the earlier ones
kept, so a row's reason is the first rule that sets it aside, and collects the set-aside
rows with their reasons for the stage's side file, as datatrove does.

Rules over one record at a time (extract's checks of an example, then of each of its
variants) follow the same contract through :class:`ItemRule` and :func:`first_reason`: the
first rule that names a reason decides, in the order the stage lists them.

A stage whose rules come from its settings (filter and screen) keeps them in a
:class:`RuleRegistry`: each rule class registers itself with its place in the order and
says how it is built from the stage's settings section (``from_settings``), so adding a
rule is the rule's own module, its settings key, its test and nothing else.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np
import pyarrow as pa


@dataclass
class Verdict:
    reason: np.ndarray  # object array: None keeps the row, a string names why it goes
    detail: np.ndarray | None = None  # object array of str | None, or None for no detail
    rows: pa.Table | None = None  # the rows as the rule leaves them; None: unchanged


class FilterRule(ABC):
    """One criterion over a table of rows.

    ``needs``: the measured attributes it reads (names of ``corpus.attributes``, which
    ``measure`` computes once); a stage checks that its input has them before any rule
    runs, so a stale input is one line naming the file and the attribute."""

    name: str = "rule"
    needs: ClassVar[tuple[str, ...]] = ()

    @abstractmethod
    def judge(self, rows: pa.Table) -> Verdict: ...

    def params(self) -> dict[str, object]:
        return {}

    @classmethod
    def from_settings(cls, section: Any) -> FilterRule | None:
        """The rule as ``section`` (the stage's settings model) asks for it, or None when
        the section turns it off or does not have it (a registered rule says this)."""
        raise NotImplementedError(f"{cls.__name__} is not built from settings")


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


RuleT = TypeVar("RuleT", bound=type[FilterRule])


class RuleRegistry:
    """The rules of one stage in their order, each built from the stage's settings.

    A rule class registers itself where it is defined (``@THRESHOLDS.register(order=20)``);
    :meth:`build` asks every registered class, in ``order``, for the rule the settings
    section wants (``FilterRule.from_settings``; None leaves it out). Two rules with one
    order would make the order depend on import order, so that is refused.
    """

    def __init__(self, stage: str) -> None:
        self.stage = stage
        self._rules: dict[int, type[FilterRule]] = {}

    def register(self, order: int) -> Callable[[RuleT], RuleT]:
        def add(rule: RuleT) -> RuleT:
            held = self._rules.get(order)
            if held is not None and held is not rule:
                raise ValueError(
                    f"{self.stage} rules {held.__name__} and {rule.__name__} share order {order}"
                )
            self._rules[order] = rule
            return rule

        return add

    def unregister(self, rule: type[FilterRule]) -> None:
        """Remove ``rule`` (a test's own rule, once the test is over)."""
        self._rules = {k: v for k, v in self._rules.items() if v is not rule}

    @property
    def classes(self) -> list[type[FilterRule]]:
        return [self._rules[k] for k in sorted(self._rules)]

    def build(self, section: Any) -> list[FilterRule]:
        """The rules ``section`` turns on, in order."""
        built = (rule.from_settings(section) for rule in self.classes)
        return [rule for rule in built if rule is not None]


# -- rules over one record at a time ----------------------------------------------------

ItemT = TypeVar("ItemT")


@dataclass(frozen=True)
class Reason:
    """Why one record is set aside, and what the side file says about it (``detail``)."""

    reason: str
    detail: str | None = None


class ItemRule(ABC, Generic[ItemT]):
    """One criterion over a single record: None keeps it, a :class:`Reason` sets it aside."""

    name: str = "rule"

    @abstractmethod
    def check(self, item: ItemT) -> Reason | None: ...


def first_reason(
    item: ItemT, rules: Sequence[ItemRule[ItemT]]
) -> tuple[ItemRule[ItemT], Reason] | None:
    """The first of ``rules`` (in order) that sets ``item`` aside, with its reason; None
    when every rule keeps it."""
    for rule in rules:
        reason = rule.check(item)
        if reason is not None:
            return rule, reason
    return None
