"""Every measured attribute keeps the promises of ``rucola measure`` and ``rucola filter``,
tried on each registered attribute (``corpus.measured.MEASURED_ATTRIBUTES``), so a new
attribute meets them without a test of its own: its columns are its own (no base column,
no other attribute's); it gives one value of its declared type per sentence, whatever the
sentence; ``measure`` writes the input's columns, then every attribute's; every rule's
``needs`` names a registered attribute. An attribute registered anywhere (here, in a test)
joins measure's output and passes filter and split; a rule needing an attribute its input
lacks is one line naming the file and the attribute, exit 1, nothing written.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from guards import one_error_line, snapshot
from identity import identity_yaml

from rucola.corpus import schema
from rucola.corpus.filters.duplicates import DuplicateRule
from rucola.corpus.filters.stage import STAGE_NEEDS
from rucola.corpus.measure import measure_batch
from rucola.corpus.measured import (
    MEASURED_ATTRIBUTES,
    MeasureContext,
    Sentence,
    SentenceAttribute,
    attribute_fields,
)
from rucola.corpus.thresholds import THRESHOLDS
from rucola.io import write_parquet
from rucola.rules import RowRule

ATTRIBUTES = MEASURED_ATTRIBUTES.names()
# Sentences an attribute must take: empty, punctuation or digits only, Latin, ё, mixed
# scripts, emoji, a long one.
SENTENCES = [
    "Мальчик ещё читает 3 книги.",
    "",
    "...",
    "2024",
    "The boy reads.",
    "Ёж, ель и ёлка — «тут»?!",
    "Кот🙂 спит на окне.",
    " ".join(["слово"] * 200) + ".",
]
# The columns a measured row has besides its attributes, at any stage.
OTHER_COLUMNS = {
    *schema.BASE_COLUMNS,
    *(f.name for f in schema.OUT_OF_DOMAIN_FIELDS),
    *(f.name for f in schema.FILTER_FIELDS),
    *(f.name for f in schema.SPLIT_FIELDS),
    schema.REVIEW_FIELD.name,
}


class StubFrequencies:
    name = "stub"

    def ipm(self, lemma: str) -> float:
        return float(len(lemma))


@pytest.fixture(scope="module")
def context() -> MeasureContext:
    return MeasureContext(StubFrequencies())


def test_the_registry_holds_what_measure_always_wrote():
    """The columns, types and order of the measured rows before attributes registered
    (any other attribute's columns fall in by name)."""
    defaults = [pa.field("n_tokens", pa.int64()), pa.field("word_ipm", pa.list_(pa.float32()))]
    fields = attribute_fields(list(MEASURED_ATTRIBUTES))
    assert [f for f in fields if f.name in ("n_tokens", "word_ipm")] == defaults


def test_no_two_attributes_write_one_column():
    names = [field.name for field in attribute_fields(list(MEASURED_ATTRIBUTES))]
    assert len(names) == len(set(names)), names


@pytest.mark.parametrize("name", ATTRIBUTES)
def test_its_columns_are_its_own(name: str):
    attribute = MEASURED_ATTRIBUTES[name]
    assert attribute.name == name and attribute.fields, name
    assert not {f.name for f in attribute.fields} & OTHER_COLUMNS, attribute.fields


@pytest.mark.parametrize("name", ATTRIBUTES)
def test_it_gives_one_value_of_its_type_per_sentence(context: MeasureContext, name: str):
    attribute = MEASURED_ATTRIBUTES[name]()
    arrays = measure_batch(SENTENCES, context, [attribute])  # checks count, length, type
    assert [a.type for a in arrays] == [f.type for f in attribute.fields]
    # one batch or one sentence at a time: the same values (nothing leaks between rows)
    alone = [measure_batch([s], context, [attribute]) for s in SENTENCES]
    for i, array in enumerate(arrays):
        assert array.to_pylist() == [one[i].to_pylist()[0] for one in alone]


def test_every_rule_needs_registered_attributes():
    needs = {n: "the stage" for n in STAGE_NEEDS} | {
        n: rule.name for rule in [*THRESHOLDS.classes, DuplicateRule] for n in rule.needs
    }
    unknown = {n: who for n, who in needs.items() if n not in MEASURED_ATTRIBUTES}
    assert not unknown, unknown
    assert {"n_tokens", "word_ipm"} <= set(needs)


# --- through the command line ------------------------------------------------------------


def corpus_rows() -> pd.DataFrame:
    """Rows as extract writes them: the base columns split and filter read."""
    sentences = [
        "Мальчик читает книгу каждый день.",
        "Девочка пишет 2 письма бабушке.",
        "Кот спит на тёплом окне.",
        "Собака бежит по 12 улицам.",
        "Мы идём в школу утром.",
        "Они читают 3 книги вечером.",
    ]
    n = len(sentences)
    return pd.DataFrame(
        {
            "sentence": sentences,
            "label": [1, 0] * (n // 2),
            "error_type": ["0", "Syntax"] * (n // 2),
            "domain": "in_domain",
            "detailed_source": "s",
            "group": [f"g{i}" for i in range(n)],
            "origin": [f"s.tsv:{i + 2}" for i in range(n)],
        }
    )


def project(tmp_path: Path) -> Path:
    (tmp_path / "params.yaml").write_text(
        identity_yaml("filter:\n  min_high_freq_share: null\n  min_tokens: 1\n"), encoding="utf-8"
    )
    write_parquet(corpus_rows(), tmp_path / "in.parquet")
    return tmp_path


def measure(run_cli, root: Path, workers: str = "2") -> pa.Schema:
    code, _, stderr = run_cli(
        "measure", "--input", "in.parquet", "--out", "m.parquet", "--report", "m.json",
        "--workers", workers, cwd=root,
    )  # fmt: skip
    assert code == 0, stderr
    return pq.read_schema(root / "m.parquet")


def test_measure_writes_the_input_then_every_attribute(run_cli, tmp_path: Path):
    root = project(tmp_path)
    written = measure(run_cli, root)
    expected = pq.read_schema(root / "in.parquet").remove_metadata()
    for field in attribute_fields(list(MEASURED_ATTRIBUTES)):
        expected = expected.append(field)
    assert written.remove_metadata() == expected


class DigitCount(SentenceAttribute):
    """A made-up attribute: digits in the sentence."""

    name = "n_digits_test"
    fields = (pa.field("n_digits_test", pa.int32()),)

    def value(self, sentence: Sentence) -> int:
        return sum(c.isdigit() for c in sentence.text)


class NoDigits(RowRule):
    """A made-up rule on the made-up attribute: a sentence holding a digit goes."""

    name = "no_digits_test"
    needs = ("n_digits_test",)

    @classmethod
    def from_settings(cls, section) -> NoDigits:  # noqa: ANN001 - Filter | Screen
        return cls()

    def reasons(self, rows: pa.Table) -> np.ndarray:
        digits = rows.column("n_digits_test").to_numpy()
        out = np.full(len(digits), None, dtype=object)
        out[digits > 0] = "has_digits"
        return out


@pytest.fixture
def digit_count():
    MEASURED_ATTRIBUTES.register(DigitCount)
    yield DigitCount
    MEASURED_ATTRIBUTES.unregister(DigitCount)
    assert "n_digits_test" not in MEASURED_ATTRIBUTES


@pytest.fixture
def no_digits():
    THRESHOLDS.register(order=999)(NoDigits)
    yield NoDigits
    THRESHOLDS.unregister(NoDigits)


def test_a_registered_attribute_joins_measure_filter_and_split(
    run_cli, tmp_path: Path, digit_count, no_digits
):
    """Registered in this test alone: its column is measured (in the worker processes
    too), the rule that needs it sets rows aside, and the split keeps the column."""
    root = project(tmp_path)
    written = measure(run_cli, root)
    assert written.names[-3:] == ["n_digits_test", "n_tokens", "word_ipm"]  # by name
    assert written.field("n_digits_test").type == pa.int32()
    measured = pd.read_parquet(root / "m.parquet")
    assert measured["n_digits_test"].tolist() == [0, 1, 0, 2, 0, 1]
    code, _, stderr = run_cli("filter", "--input", "m.parquet", cwd=root)
    assert code == 0, stderr
    report = json.loads((root / "reports/filter.json").read_text(encoding="utf-8"))
    assert report["set_aside"] == {"has_digits": 3}
    code, _, stderr = run_cli("split", cwd=root)
    assert code == 0, stderr
    split = pd.read_parquet(root / "data/interim/split.parquet")
    assert len(split) == 3 and set(split["n_digits_test"]) == {0}


def test_without_it_measure_writes_what_it_always_wrote(run_cli, tmp_path: Path):
    written = measure(run_cli, project(tmp_path), workers="1")
    assert "n_digits_test" not in written.names
    assert written.names[-2:] == ["n_tokens", "word_ipm"]


def test_a_rule_needing_an_attribute_the_input_lacks_is_one_line(
    run_cli, tmp_path: Path, no_digits
):
    """The input was measured before the attribute existed: filter names the file and the
    attribute, exits 1 and writes nothing (no KeyError mid-rule)."""
    root = project(tmp_path)
    measure(run_cli, root, workers="1")
    with_attribute = MEASURED_ATTRIBUTES.register(DigitCount)
    try:
        before = snapshot(root)
        code, _, stderr = run_cli("filter", "--input", "m.parquet", cwd=root)
    finally:
        MEASURED_ATTRIBUTES.unregister(with_attribute)
    assert code == 1
    one_error_line(stderr, "m.parquet", "n_digits_test", "no_digits_test", "rucola measure")
    assert snapshot(root) == before


def test_an_input_without_the_stages_own_attributes_is_one_line(run_cli, tmp_path: Path):
    root = project(tmp_path)
    measure(run_cli, root, workers="1")
    table = pq.read_table(root / "m.parquet").drop_columns("word_ipm")
    pq.write_table(table, root / "m.parquet")
    before = snapshot(root)
    code, _, stderr = run_cli("filter", "--input", "m.parquet", cwd=root)
    assert code == 1
    one_error_line(stderr, "m.parquet", "word_ipm", "filter stage")
    assert snapshot(root) == before
