"""The Hugging Face release folder: configs, hidden test labels, refusals, determinism."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml
from datasets import ClassLabel, load_dataset

from release.build import build_release
from rucola.errors import RucolaError
from rucola.io import file_sha256
from rucola.params import DEFAULTS

SECRET = "Hallucination"


def split_data(tmp_path: Path, with_ood: bool = True) -> Path:
    rows = []
    for i in range(40):
        label = i % 2
        split = ["train"] * 8 + ["validation", "test"]
        rows.append(
            {
                "sentence": f"Предложение номер {i} здесь.",
                "label": label,
                "error_type": None if label else "Syntax",
                "domain": "in_domain",
                "detailed_source": "Book",
                "mark": "",
                "group": f"g{i}",
                "origin": f"x:{i}",
                "n_tokens": 4,
                "high_freq_share": 1.0,
                "split": split[i % 10],
            }
        )
    if with_ood:
        for i in range(10):
            rows.append(
                {
                    "sentence": f"Кандидат {i} от модели.",
                    "label": 0,
                    "error_type": SECRET,
                    "domain": "out_of_domain",
                    "detailed_source": "Tatoeba",
                    "mark": "",
                    "group": f"o{i}",
                    "origin": f"y:{i}",
                    "n_tokens": 5,
                    "high_freq_share": 1.0,
                    "split": "validation" if i % 2 else "test",
                }
            )
    frame = pd.DataFrame(rows)
    frame["id"] = frame.groupby("split").cumcount()
    path = tmp_path / "split.parquet"
    frame.to_parquet(path)
    (tmp_path / "validation.json").write_text(
        json.dumps({"success": True, "data_sha256": file_sha256(path)})
    )
    return path


def build(tmp_path: Path, path: Path) -> dict:
    return build_release(
        path, tmp_path / "validation.json", DEFAULTS, tmp_path / "rucola", tmp_path / "private"
    )


@pytest.fixture(autouse=True)
def offline_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "cache"))


def test_every_config_loads_with_classlabel_and_hidden_test(tmp_path):
    counts = build(tmp_path, split_data(tmp_path))
    assert counts["out_of_domain"] == {"validation": 5, "test": 5}
    default = load_dataset(str(tmp_path / "rucola"))
    assert {s: default[s].num_rows for s in default} == {"train": 32, "validation": 9, "test": 9}
    label = default["train"].features["label"]
    assert isinstance(label, ClassLabel) and label.names == ["unacceptable", "acceptable"]
    assert set(default["test"]["label"]) == {-1}
    assert set(default["test"]["error_type"]) == {None}
    ood = load_dataset(str(tmp_path / "rucola"), "out_of_domain")
    assert set(ood) == {"validation", "test"}
    in_domain = load_dataset(str(tmp_path / "rucola"), "in_domain")
    assert in_domain["train"].num_rows == 32
    gold = pd.read_parquet(tmp_path / "private/test_gold.parquet")
    assert len(gold) == 9 and set(gold["label"]) == {0, 1}


def test_no_hidden_label_anywhere_in_the_public_folder(tmp_path):
    path = split_data(tmp_path)
    build(tmp_path, path)
    frame = pd.read_parquet(path)
    test_sources = set(frame.loc[frame["split"] == "test", "detailed_source"])
    card = (tmp_path / "rucola/README.md").read_text()
    for file in (tmp_path / "rucola").rglob("test.parquet"):
        public = pd.read_parquet(file)
        assert set(public["label"]) == {-1}
        assert public[["error_type", "domain", "detailed_source"]].isna().all().all()
    assert "test sentences" in card and test_sources  # counts only, never label shares


def test_card_yaml(tmp_path):
    build(tmp_path, split_data(tmp_path, with_ood=False))
    text = (tmp_path / "rucola/README.md").read_text()
    header = yaml.safe_load(text.split("---")[1])
    assert header["language"] == ["ru"] and header["task_categories"] == ["text-classification"]
    assert {c["config_name"] for c in header["configs"]} == {"default", "in_domain"}
    assert header["size_categories"] == ["n<1K"]
    assert {"license", "pretty_name", "dataset_info"} <= set(header)


@pytest.mark.parametrize("problem", ["failed", "other_hash", "missing"])
def test_refuses_unvalidated_data(tmp_path, problem):
    path = split_data(tmp_path)
    report = tmp_path / "validation.json"
    if problem == "failed":
        report.write_text(json.dumps({"success": False, "data_sha256": file_sha256(path)}))
    elif problem == "other_hash":
        report.write_text(json.dumps({"success": True, "data_sha256": "0" * 64}))
    else:
        report.unlink()
    with pytest.raises(RucolaError):
        build(tmp_path, path)
    assert not (tmp_path / "rucola").exists() and not (tmp_path / "private").exists()


def test_two_builds_are_byte_identical(tmp_path):
    path = split_data(tmp_path)
    build(tmp_path, path)
    first = {
        p.relative_to(tmp_path): p.read_bytes()
        for p in sorted(tmp_path.rglob("*"))
        if p.is_file() and "cache" not in p.parts
    }
    build(tmp_path, path)
    second = {
        p.relative_to(tmp_path): p.read_bytes()
        for p in sorted(tmp_path.rglob("*"))
        if p.is_file() and "cache" not in p.parts
    }
    assert first == second
