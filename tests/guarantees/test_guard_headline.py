"""Guarantee: the headline metrics, the split's report and its plot tell no more than the
dataset card (issue 24, 3; issue 32).

``reports/metrics.json`` is tracked by git and shown by ``dvc metrics show`` and ``dvc exp
show`` wherever experiments are compared; it is drawn from ``reports/split.json``, tracked by
git too, like the token-length plot. Whatever the hidden test rows hide, their bytes stay
the same: which domain a RuCoLA test row is in, any test label, category or source. Only
the private report (DVC cache) changes.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from corpora import corpus, split_settings
from headline_reports import reports, write_reports

from rucola.corpus.split import run_split
from rucola.io import write_parquet

Change = Callable[[pd.DataFrame], None]
CATEGORIES = ["Morphology", "Syntax", "Semantics"]


def _relabel_the_tests(rows: pd.DataFrame) -> None:
    test = rows.index[rows["split"] == "test"]
    rows.loc[test, "label"] = 1 - rows.loc[test, "label"]
    rows.loc[test, "error_type"] = [
        None if y else CATEGORIES[i % 3] for i, y in enumerate(rows.loc[test, "label"])
    ]


def _move_test_rows_between_domains(rows: pd.DataFrame) -> None:
    """Every RuCoLA test row swaps domain (a learner row would change its config, which
    the release shows)."""
    test = rows.index[rows["split"] == "test"]
    other = {"in_domain": "out_of_domain", "out_of_domain": "in_domain"}
    rows.loc[test, "domain"] = rows.loc[test, "domain"].map(other)


def _swap_test_sources(rows: pd.DataFrame) -> None:
    test = rows.index[rows["split"] == "test"]
    rows.loc[test, "detailed_source"] = "Secret"


HIDDEN: dict[str, Change] = {
    "domains of RuCoLA test rows": _move_test_rows_between_domains,
    "test labels and categories": _relabel_the_tests,
    "test sources": _swap_test_sources,
}


def split_outputs(root: Path, rows: pd.DataFrame, pin: Path | None) -> dict[str, bytes]:
    """The public files of the real split stage over ``rows`` (pinned to ``pin``), and the
    headline drawn from its report: every file git would track of them."""
    root.mkdir(parents=True)
    write_parquet(rows, root / "in.parquet")
    run_split(split_settings(root, pin=[str(pin)] if pin else []), root / "in.parquet")
    return {
        name: (root / name).read_bytes()
        for name in ("split.json", "token_lengths.csv", "token_lengths.png")
    }


def headline_bytes(run_cli, root: Path) -> bytes:
    contents = copy.deepcopy(reports())
    contents["reports/split.json"] = json.loads((root / "split.json").read_text())
    write_reports(root, contents)
    code, _, err = run_cli("summarize", "--params", "params.yaml", cwd=root)
    assert code == 0, err
    return (root / "m.json").read_bytes()


@pytest.fixture(scope="module")
def pinned(tmp_path_factory) -> tuple[Path, pd.DataFrame]:
    """A first split of the corpus, and its rows with their splits, to pin."""
    root = tmp_path_factory.mktemp("first") / "split"
    rows = corpus(400).assign(n_tokens=3)
    split_outputs(root, rows, None)
    first = pd.read_parquet(root / "split.parquet")
    return root / "split.parquet", first[[*rows.columns, "split"]]


@pytest.mark.slow
@pytest.mark.parametrize("hidden", sorted(HIDDEN))
def test_what_test_rows_hide_changes_no_byte_the_split_or_the_headline_show(
    run_cli, tmp_path, pinned, hidden
):
    """Issue 32: the split's report and plot (git-tracked) and the headline drawn from them
    keep their bytes whatever the test rows hide; only the private report changes."""
    pin, rows = pinned
    changed = rows.copy()
    HIDDEN[hidden](changed)
    assert not changed.equals(rows)
    outputs = {}
    for name, frame in (("before", rows), ("after", changed)):
        root = tmp_path / name
        outputs[name] = split_outputs(root, frame.drop(columns="split"), pin)
        outputs[name]["m.json"] = headline_bytes(run_cli, root)
    assert (tmp_path / "after/split.parquet").read_bytes() != (
        tmp_path / "before/split.parquet"
    ).read_bytes()
    assert outputs["after"] == outputs["before"], hidden
    private = [(tmp_path / n / "private_split.json").read_bytes() for n in ("before", "after")]
    assert private[0] != private[1]


def test_a_public_change_does_change_it(run_cli, tmp_path, pinned):
    """The check above can fail: a validation label the card shows moves the headline."""
    pin, rows = pinned
    changed = rows.copy()
    validation = changed.index[changed["split"] == "validation"][:5]
    changed.loc[validation, "label"] = 1 - changed.loc[validation, "label"]
    changed.loc[validation, "error_type"] = [
        None if y else "Syntax" for y in changed.loc[validation, "label"]
    ]
    heads = []
    for name, frame in (("before", rows), ("after", changed)):
        split_outputs(tmp_path / name, frame.drop(columns="split"), pin)
        heads.append(headline_bytes(run_cli, tmp_path / name))
    assert heads[0] != heads[1]
