"""The published RuCoLA in-domain files through every stage (needs RUCOLA_SHARED_DATA)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest
import yaml

pytestmark = pytest.mark.slow

ALTERNATION = "Иван Грозный не убил (*не убивал) своего сына."
FILES = ["in_domain_train.csv", "in_domain_dev.csv"]


def write_params(root: Path, sources: list[Path], rnc: Path) -> None:
    params = {
        "extract": {"sources": [{"path": str(s), "type": "rucola_csv"} for s in sources]},
        "filter": {"frequency": {"source": "rnc", "path": str(rnc)}},
    }
    (root / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")


def stages(run_cli, root: Path, names: list[str]) -> dict[str, tuple]:
    results = {}
    for name in names:
        results[name] = run_cli(*name.split(), cwd=root)
        if name != "validate":
            assert results[name][0] == 0, results[name]
    return results


@pytest.fixture(scope="module")
def published(shared_data: Path) -> pd.DataFrame:
    return pd.concat([pd.read_csv(shared_data / "rucola" / f) for f in FILES])


def test_published_files_extract_filter_split_and_fail_validation_on_one_row(
        run_cli, tmp_path, shared_data, published):
    write_params(tmp_path, [shared_data / "rucola" / f for f in FILES],
                 shared_data / "rnc" / "freqrnc2011.tsv")
    results = stages(run_cli, tmp_path, ["extract", "measure", "filter", "split", "validate"])

    extract = json.loads((tmp_path / "reports/extract.json").read_text())
    assert extract["rows_read"] == extract["kept"] == len(published) == 8852
    assert extract["rejected"] == 0
    expected = published.groupby("detailed_source")["acceptable"].mean()
    for source, share in expected.items():
        assert extract["per_source"][source]["acceptable_share"] == round(share, 4)
        assert extract["per_source"][source]["sentences"] == int(
            (published["detailed_source"] == source).sum())

    report = json.loads((tmp_path / "reports/filter.json").read_text())
    assert report["kept"] / report["read"] >= 0.995
    assert 0.92 <= report["mean_high_freq_share"] <= 0.98

    code, _, stderr = results["validate"]
    assert code == 1
    validation = json.loads((tmp_path / "reports/validation.json").read_text())
    assert validation["success"] is False
    named = {row["sentence"] for e in validation["expectations"] if not e["success"]
             for row in e["rows"]}
    assert len(named) == 1
    assert ALTERNATION in next(iter(named))
    assert ALTERNATION in stderr


def test_without_the_alternation_the_release_loads(run_cli, tmp_path, shared_data, published):
    copies = []
    for name in FILES:
        frame = pd.read_csv(shared_data / "rucola" / name, dtype=str, keep_default_na=False)
        frame = frame[~frame["sentence"].str.contains(ALTERNATION, regex=False)]
        frame.to_csv(tmp_path / name, index=False)
        copies.append(tmp_path / name)
    assert sum(len(pd.read_csv(c)) for c in copies) == len(published) - 1
    write_params(tmp_path, copies, shared_data / "rnc" / "freqrnc2011.tsv")
    stages(run_cli, tmp_path, ["extract", "measure", "filter", "split", "validate",
                               "release build"])

    from datasets import ClassLabel, load_dataset

    release = tmp_path / "data/release/rucola"
    cwd = Path.cwd()
    os.chdir(release.parent)
    try:
        default = load_dataset("rucola")
    finally:
        os.chdir(cwd)
    in_domain = load_dataset(str(release), "in_domain")
    split = json.loads((tmp_path / "reports/split.json").read_text())["domains"]["in_domain"]
    for name in ("train", "validation", "test"):
        assert default[name].num_rows == split["splits"][name]["rows"]
        assert in_domain[name].num_rows == split["splits"][name]["rows"]
    assert isinstance(default["train"].features["label"], ClassLabel)
    assert default["train"].features["label"].names == ["unacceptable", "acceptable"]
    assert set(default["test"]["label"]) == {-1}
    gold = pd.read_parquet(tmp_path / "data/release/private/test_gold.parquet")
    assert len(gold) == default["test"].num_rows
    assert set(gold["label"]) == {0, 1}
