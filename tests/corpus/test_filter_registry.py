"""Filter rules register themselves: a rule defined anywhere (here, in this test module)
joins the filter and screen stages in its order, built from the stage's settings, with
nothing else to edit."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest

from rucola.corpus.filters.frequency import HighFrequencyShareRule
from rucola.corpus.filters.length import TokenCountRule
from rucola.corpus.filters.stage import build_rules, run_filter
from rucola.corpus.thresholds import THRESHOLDS
from rucola.io import write_parquet
from rucola.rules import RowRule, RuleRegistry
from rucola.settings import Filter, Screen


class NoDigits(RowRule):
    """A made-up rule with one made-up setting: sentences holding a digit go."""

    name = "no_digits"

    def __init__(self, reason: str) -> None:
        self.reason = reason

    @classmethod
    def from_settings(cls, section: Filter | Screen) -> NoDigits | None:
        # a rule of the corpus filter only: screen has its own thresholds
        return cls("has_digits") if isinstance(section, Filter) else None

    def reasons(self, rows: pa.Table) -> np.ndarray:
        sentences = rows.column("sentence").to_pylist()
        return np.array([self.reason if any(c.isdigit() for c in s) else None for s in sentences])

    def params(self) -> dict[str, object]:
        return {"reason": self.reason}


@pytest.fixture
def no_digits():
    THRESHOLDS.register(order=15)(NoDigits)  # between token count and frequency
    yield NoDigits
    THRESHOLDS.unregister(NoDigits)


def test_the_registered_rules_in_order():
    assert THRESHOLDS.classes[:2] == [TokenCountRule, HighFrequencyShareRule]
    rules = build_rules(Filter(min_tokens=None, max_tokens=None))
    assert [type(rule) for rule in rules] == [HighFrequencyShareRule]  # null: off


def test_a_rule_defined_anywhere_joins_the_stage_in_its_order(no_digits, tmp_path):
    assert [type(r) for r in build_rules(Filter())] == [
        TokenCountRule,
        no_digits,
        HighFrequencyShareRule,
    ]
    assert no_digits not in [type(r) for r in build_rules(Screen())]
    rows = pa.table(
        {
            "sentence": ["Мальчик читает книгу каждый день.", "Мальчик читает 3 книги в день."],
            "label": [1, 1],
            "origin": ["s.tsv:2", "s.tsv:3"],
            "n_tokens": [6, 7],
            "word_ipm": pa.array([[100.0] * 5, [100.0] * 5], pa.list_(pa.float32())),
        }
    )
    write_parquet(rows, tmp_path / "m.parquet")
    settings = Filter(
        out=str(tmp_path / "f.parquet"),
        rejected=str(tmp_path / "r.parquet"),
        report=str(tmp_path / "f.json"),
    )
    report = run_filter(settings, tmp_path / "m.parquet")
    assert report["set_aside"] == {"has_digits": 1}
    assert report["rules"]["no_digits"] == {"reason": "has_digits"}
    assert json.loads((tmp_path / "f.json").read_text())["set_aside"] == {"has_digits": 1}


def test_two_rules_cannot_share_a_place():
    registry = RuleRegistry("test")
    registry.register(order=1)(NoDigits)
    with pytest.raises(ValueError, match="share order 1"):
        registry.register(order=1)(TokenCountRule)
