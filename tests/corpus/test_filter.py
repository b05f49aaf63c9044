"""Measure once, filter by thresholds: rules, shares and the stage's side file."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from identity import identity_yaml

from rucola.corpus.filters.frequency import HighFrequencyShareRule, high_freq_share
from rucola.corpus.filters.length import TokenCountRule
from rucola.corpus.filters.stage import run_filter
from rucola.corpus.frequency import RncFrequencies
from rucola.corpus.measure import measure, measure_batch
from rucola.corpus.measured import MEASURED_ATTRIBUTES, MeasureContext
from rucola.errors import RucolaError
from rucola.io import write_parquet
from rucola.params import with_overrides
from rucola.rules import apply_rules
from rucola.settings import Filter, Frequency

RNC = (
    "Lemma\tPoS\tFreq(ipm)\tR\tD\tDoc\nмальчик\ts\t300.0\t1\t1\t1\nчитать\tv\t500.0\t1\t1\t1\n"
    "книга\ts\t400.0\t1\t1\t1\nеще\tadv\t2000.0\t1\t1\t1\nеще\tpart\t80.0\t1\t1\t1\n"
    "сбитенщик\ts\t0.2\t1\t1\t1\n"
)


@pytest.fixture
def rnc(tmp_path: Path) -> Path:
    path = tmp_path / "freq.tsv"
    path.write_text(RNC, encoding="utf-8")
    return path


def test_rnc_sums_parts_of_speech_and_ignores_yo(rnc):
    freq = RncFrequencies(rnc)
    assert freq.ipm("ещё") == pytest.approx(2080.0)
    assert freq.ipm("нет-такого") == 0.0


def test_meter_counts_tokens_and_lemmatises(rnc):
    attributes = [MEASURED_ATTRIBUTES[name]() for name in ("n_tokens", "word_ipm")]
    context = MeasureContext(RncFrequencies(rnc))
    n, ipm = measure_batch(["Мальчик ещё читает 3 книги."], context, attributes)
    assert n.to_pylist() == [6]  # Мальчик ещё читает 3 книги .
    assert ipm.to_pylist() == [[300.0, 2080.0, 500.0, 400.0]]  # мальчик, ещё, читать, книга


def test_share_from_word_ipm():
    values = pa.array([[300.0, 0.5, 2.0, 0.0], [], [5.0]], pa.list_(pa.float32()))
    assert high_freq_share(values, 1.0).tolist() == [0.5, 0.0, 1.0]
    assert high_freq_share(values, 3.0).tolist() == [0.25, 0.0, 1.0]


def test_rules_first_reason_wins():
    batch = pa.table(
        {
            "row": [0, 1, 2, 3, 4],
            "n_tokens": [3, 4, 30, 31, 10],
            "high_freq_share": [0.1, 0.6, 0.61, 1, 1],
        }
    )
    outcome = apply_rules(batch, [TokenCountRule(4, 30), HighFrequencyShareRule(0.6)])
    assert outcome.kept.column("row").to_pylist() == [2, 4]
    assert [
        (row, reason)
        for part in outcome.set_aside
        for row, reason in zip(part.rows.column("row").to_pylist(), part.reason, strict=True)
    ] == [(0, "too_few_tokens"), (3, "too_many_tokens"), (1, "low_frequency_words")]
    assert outcome.counts == {"too_few_tokens": 1, "low_frequency_words": 1, "too_many_tokens": 1}


def test_stage_measures_then_filters(tmp_path, rnc):
    rows = pd.DataFrame(
        {
            "sentence": [
                "Мальчик читает книгу каждый день.",
                "Мальчик читает.",
                "Сбитенщик сбитенщик сбитенщик мальчик.",
            ],
            "label": [1, 1, 0],
            "domain": "in_domain",
        }
    )
    write_parquet(rows, tmp_path / "in.parquet")
    measure(
        tmp_path / "in.parquet",
        tmp_path / "m.parquet",
        Frequency(source="rnc", path=[str(rnc)]),
        progress=False,
    )
    params = Filter(
        out=str(tmp_path / "f.parquet"),
        rejected=str(tmp_path / "r.parquet"),
        report=str(tmp_path / "f.json"),
        min_high_freq_share=0.3,
    )
    report = run_filter(params, tmp_path / "m.parquet")
    kept = pd.read_parquet(tmp_path / "f.parquet")
    rejected = pd.read_parquet(tmp_path / "r.parquet")
    assert kept["sentence"].tolist() == ["Мальчик читает книгу каждый день."]
    assert dict(zip(rejected["sentence"], rejected["reason"], strict=True)) == {
        "Мальчик читает.": "too_few_tokens",
        "Сбитенщик сбитенщик сбитенщик мальчик.": "low_frequency_words",
    }
    assert "word_ipm" not in kept.columns
    assert kept["high_freq_share"].iloc[0] == pytest.approx(3 / 5)  # каждый, день unknown
    assert report == json.loads((tmp_path / "f.json").read_text())
    assert report["read"] == report["kept"] + sum(report["set_aside"].values()) == 3
    # A stricter threshold needs no new measurement: the attributes are kept.
    stricter = with_overrides(params, min_high_freq_share=0.7)
    assert run_filter(stricter, tmp_path / "m.parquet")["kept"] == 0


def test_missing_attributes_are_reported(tmp_path):
    write_parquet(pd.DataFrame({"sentence": ["a"]}), tmp_path / "m.parquet")
    with pytest.raises(RucolaError, match="rucola measure"):
        run_filter(Filter(), tmp_path / "m.parquet")


def test_rnc_bad_row_names_line(tmp_path):
    path = tmp_path / "freq.tsv"
    path.write_text("Lemma\tPoS\tFreq(ipm)\nдом\ts\tmany\n", encoding="utf-8")
    with pytest.raises(RucolaError, match=r"freq.tsv:2"):
        RncFrequencies(path)


def test_share_handles_all_empty():
    values = pa.array([[], []], pa.list_(pa.float32()))
    assert np.array_equal(high_freq_share(values, 1.0), [0.0, 0.0])


def test_screen_reads_its_own_thresholds_never_the_filters(run_cli, tmp_path):
    """``screen`` takes thresholds and near-duplicate settings from the ``screen`` section
    alone: a corpus-filter experiment (``filter.*``) cannot change which candidates are sent
    out for annotation, so it never reruns screening nor invalidates paid answers."""
    candidates = pa.table(
        {
            "candidate_id": ["c1", "c2", "c3", "c4"],
            "sentence": [
                "Мальчик читает.",
                "Мальчик читает книгу каждый день.",
                "Мальчик читает книгу каждый день!",
                "Мальчик читает интересную книгу в парке каждый день утром.",
            ],
            "n_tokens": [3, 6, 6, 10],
            "word_ipm": pa.array(
                [[100.0] * 2, [100.0] * 5, [100.0] * 5, [100.0] * 9], pa.list_(pa.float32())
            ),  # fmt: skip
        }
    )
    write_parquet(candidates, tmp_path / "measured.parquet")
    # screen's reference is always the in-domain rows extract writes (here unrelated ones)
    in_domain = pa.table({"sentence": ["Кошка спит на диване."], "origin": ["s.tsv:2"]})
    write_parquet(in_domain, tmp_path / "in_domain.parquet")
    screen = {
        "input": "measured.parquet",
        "out": "screened.parquet",
        "rejected": "rejected.parquet",
        "report": "screen.json",
        "plot": "plot.csv",
        "plot_png": "plot.png",
        "min_tokens": 4,
        "max_tokens": 8,
        "min_high_freq_share": 0.5,
        "near_duplicates": {"threshold": 0.9},
    }
    # thresholds under which the filter would keep none of them, exact duplicates only
    corpus_filter = {"min_tokens": 20, "max_tokens": 30, "min_high_freq_share": 0.99,
                     "near_duplicates": {"enabled": False}}  # fmt: skip
    text = json.dumps(
        {"screen": screen, "filter": corpus_filter, "extract": {"out": "in_domain.parquet"}}
    )
    (tmp_path / "params.yaml").write_text(identity_yaml(text), encoding="utf-8")
    code, stdout, stderr = run_cli("screen", cwd=tmp_path)
    assert code == 0, stderr
    report = json.loads((tmp_path / "screen.json").read_text(encoding="utf-8"))
    assert report["set_aside"] == {"near_duplicate": 1, "too_few_tokens": 1, "too_many_tokens": 1}
    assert report["rules"]["token_count"] == {"min_tokens": 4, "max_tokens": 8}
    assert report["duplicates"]["settings"]["threshold"] == 0.9
    kept = pq.read_table(tmp_path / "screened.parquet").column("candidate_id").to_pylist()
    assert kept == ["c2"]


def test_screen_min_tokens_above_max_tokens_names_the_key(run_cli, tmp_path):
    (tmp_path / "params.yaml").write_text(
        identity_yaml("screen:\n  min_tokens: 9\n  max_tokens: 5\n"), encoding="utf-8"
    )
    code, _, stderr = run_cli("screen", cwd=tmp_path)
    assert code == 1
    assert stderr.startswith("error: params.yaml:2: screen.min_tokens: 9 is more than")
