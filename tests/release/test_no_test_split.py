"""A corpus without a test split, stage by stage as ``dvc repro`` runs them (issue 35, item
6: CoLA publishes train and validation only): split ratios give test 0, and extract,
measure, filter, split, validate, baseline, release, annotate merge and summarize all
finish; the release has no test file and its card says so; a later build pinned to that
release keeps every row where it was and still has no test rows."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

SAMPLE = Path(__file__).resolve().parents[2] / "data/sample/in_domain"
# sheets of the sample with the layout sentence, mark, error_type, source
SHEETS = ["agreement.tsv", "government.tsv", "aspect_semantics.tsv"]
PARAMS = {
    "corpus": {
        "name": "notest",
        "language": "ru",  # the sample's sentences
        "license": "apache-2.0",
        "pretty_name": "A corpus without a test split",
        "description": "Judged sentences in train and validation only.",
        "domain_descriptions": {"out_of_domain": None},
        "citations": [],
        "categories": {"in_domain": [], "out_of_domain": [], "learner": []},
    },
    "extract": {"sources": [{"path": "data/sheet.tsv"}]},
    "filter": {"min_high_freq_share": None, "workers": 1},
    "split": {"ratios": {"in_domain": [0.8, 0.2, 0.0]}},
}
STAGES = [
    ["extract"],
    ["measure", "--input", "data/interim/in_domain.parquet"],
    ["filter"],
    ["split"],
    ["validate"],
    ["baseline"],
    ["release", "build"],
    ["annotate", "merge"],
    ["summarize"],
]


def sheet(folder: Path) -> None:
    """The sample's sheets without their categories (CoLA has none)."""
    rows = [
        pd.read_csv(SAMPLE / name, sep="\t", dtype=str, keep_default_na=False) for name in SHEETS
    ]
    frame = pd.concat(rows, ignore_index=True)[["sentence", "mark", "source"]]
    (folder / "data").mkdir(parents=True)
    frame.to_csv(folder / "data/sheet.tsv", sep="\t", index=False)


def run_stages(run_cli, folder: Path) -> dict[str, str]:
    outputs = {}
    for args in STAGES:
        code, stdout, stderr = run_cli(*args, cwd=folder)
        assert code == 0, f"{' '.join(args)}: {stdout}{stderr}"
        outputs[" ".join(args)] = stdout
    return outputs


@pytest.mark.slow
def test_every_stage_handles_a_corpus_without_test_rows(run_cli, tmp_path):
    sheet(tmp_path)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(PARAMS), encoding="utf-8")
    outputs = run_stages(run_cli, tmp_path)
    assert "test 0" in outputs["split"]
    assert "all expectations met" in outputs["validate"]

    split = json.loads((tmp_path / "reports/split.json").read_text("utf-8"))
    assert split["test"]["rows"] == 0
    release = tmp_path / "data/release/dataset"  # release.out and .compat: the defaults
    assert not list(release.rglob("test.parquet"))
    assert not (tmp_path / "data/release/dataset_csv/test.csv").exists()
    card = (release / "README.md").read_text("utf-8")
    assert "**This release has train and validation splits only" in card
    assert "RuCoLA" not in card and "error_types.png" not in card
    metrics = json.loads((tmp_path / "reports/metrics.json").read_text("utf-8"))
    assert metrics["test"] == 0 and metrics["train"] + metrics["val"] == split_rows(tmp_path)
    assert metrics["mcc"] is not None
    baseline = json.loads((tmp_path / "reports/baseline.json").read_text("utf-8"))
    assert baseline["validation_rows"] == metrics["val"]

    # the next version, pinned to this one: every row keeps its split, none goes to test
    first = pd.read_parquet(tmp_path / "data/interim/split.parquet")
    (tmp_path / "data/pinned").mkdir()
    first.to_parquet(tmp_path / "data/pinned/split.parquet", index=False)
    pinned = {**PARAMS, "split": {**PARAMS["split"], "pin": ["data/pinned/split.parquet"]}}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(pinned), encoding="utf-8")
    run_stages(run_cli, tmp_path)
    second = pd.read_parquet(tmp_path / "data/interim/split.parquet")
    assert not (second["split"] == "test").any()
    merged = first.merge(second, on="sentence", suffixes=("_first", "_second"))
    assert len(merged) == len(first)
    assert (merged["split_first"] == merged["split_second"]).all()
    assert (merged["id_first"] == merged["id_second"]).all()


def split_rows(folder: Path) -> int:
    return len(pd.read_parquet(folder / "data/interim/split.parquet"))
