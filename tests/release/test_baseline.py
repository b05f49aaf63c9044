"""The paper's non-neural baselines."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from release.baseline import baseline
from rucola.errors import RucolaError


def test_baseline_on_the_published_files(shared_data, tmp_path):
    report = baseline(
        tmp_path / "b.json",
        train=shared_data / "rucola/in_domain_train.csv",
        validation=shared_data / "rucola/in_domain_dev.csv",
    )
    lr = report["logistic_regression"]
    assert lr["features"] == 2509  # as the RuCoLA paper reports
    assert lr["C"] in (0.01, 0.1, 1.0)
    assert lr["validation"]["overall"]["mcc"] == max(g["mcc"] for g in lr["grid"].values())
    assert report["majority"]["validation"]["overall"]["mcc"] == 0.0
    assert lr["validation"]["overall"]["mcc"] > 0.1
    assert json.loads((tmp_path / "b.json").read_text()) == report


def test_baseline_from_split_parquet(tmp_path):
    words = ["кот", "пёс", "дом", "сад", "лес"]
    rows = [
        {
            "sentence": f"{w} {v} стоит тут",
            "label": int(v == "красиво"),
            "split": "train" if i % 5 else "validation",
            "domain": "in_domain",
        }
        for i, (w, v) in enumerate((w, v) for w in words for v in ["красиво", "криво"] * 6)
    ]
    pd.DataFrame(rows).to_parquet(tmp_path / "split.parquet")
    report = baseline(tmp_path / "b.json", split_path=tmp_path / "split.parquet")
    assert report["train_rows"] + report["validation_rows"] == len(rows)
    assert report["logistic_regression"]["validation"]["in_domain"]["mcc"] == 1.0


def test_baseline_needs_rows(tmp_path):
    pd.DataFrame({"sentence": ["a"], "label": [1], "split": ["train"]}).to_parquet(
        tmp_path / "s.parquet"
    )
    with pytest.raises(RucolaError):
        baseline(tmp_path / "b.json", split_path=tmp_path / "s.parquet")
