"""Guarantee: the headline metrics tell no more than the dataset card (issue 24, 3).

``reports/metrics.json`` is tracked by git and shown by ``dvc metrics show`` and ``dvc exp
show`` wherever experiments are compared, while the split report it is read from knows
each domain's test rows, their labels, categories and sources. Whatever the hidden test
rows hide, the headline's bytes stay the same: which domain a RuCoLA test row is in, any
test label or category, whether the maintainer holds the gold at all.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from headline_reports import reports, write_reports

Change = Callable[[dict[str, Any]], None]


def _test_cell(split: dict[str, Any], domain: str) -> dict[str, Any]:
    return split["domains"][domain]["splits"]["test"]


def _move_test_rows_between_domains(split: dict[str, Any]) -> None:
    """Seven of the in-domain test rows are out-of-domain after all."""
    _test_cell(split, "in_domain")["rows"] -= 7
    _test_cell(split, "out_of_domain")["rows"] += 7


def _relabel_the_tests(split: dict[str, Any]) -> None:
    for domain in ("in_domain", "out_of_domain", "learner"):
        cell = _test_cell(split, domain)
        cell["acceptable_share"] = 1.0 - (cell["acceptable_share"] or 0.0)
        cell["error_types"] = {"Hallucination": 3, "Morphology": 1}
        cell["sources"] = {"Secret": cell["rows"]}
        split["domains"][domain]["acceptable_share"] = 0.123  # whole-domain share: has test


def _hold_no_gold(split: dict[str, Any]) -> None:
    """The same test rows, carried unlabelled and without a domain (no test_gold.csv)."""
    for domain in ("in_domain", "out_of_domain"):
        cell = _test_cell(split, domain)
        split["unlabelled"]["test"] += cell["rows"]
        cell.update(rows=0, acceptable_share=None, sources={}, error_types={})


HIDDEN: dict[str, Change] = {
    "domains of RuCoLA test rows": _move_test_rows_between_domains,
    "test labels, categories and sources": _relabel_the_tests,
    "whether the gold is held": _hold_no_gold,
}


def headline_bytes(run_cli, root: Path, change: Change | None = None) -> bytes:
    contents = copy.deepcopy(reports())
    if change is not None:
        change(contents["reports/split.json"])
    write_reports(root, contents)
    code, _, err = run_cli("summarize", "--params", "params.yaml", cwd=root)
    assert code == 0, err
    return (root / "m.json").read_bytes()


@pytest.mark.parametrize("hidden", sorted(HIDDEN))
def test_what_test_rows_hide_changes_no_byte_of_the_headline(run_cli, tmp_path, hidden):
    before = headline_bytes(run_cli, tmp_path / "before")
    after = headline_bytes(run_cli, tmp_path / "after", HIDDEN[hidden])
    assert after == before, (hidden, json.loads(after))


def test_a_public_change_does_change_it(run_cli, tmp_path):
    """The check above can fail: a validation label the card shows moves the headline."""

    def relabel_validation(split: dict[str, Any]) -> None:
        split["domains"]["in_domain"]["splits"]["validation"]["acceptable_share"] = 0.1

    before = headline_bytes(run_cli, tmp_path / "before")
    assert headline_bytes(run_cli, tmp_path / "after", relabel_validation) != before
