"""Duplicates across published splits (issue 42): the train row is kept, then the
validation row, then the test row, then a row of no split, whatever the order in which the
sources are listed; within a split, the first read. The kept rows stay in the order read,
and every repeat is set aside as ``duplicate`` naming the row kept."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import yaml
from identity import with_identity


def _extract(run_cli, tmp_path: Path, sources: list[dict]) -> tuple[list[dict], list[dict]]:
    params = {
        "extract": {
            "sources": sources,
            "out": "out.parquet",
            "rejected": "rejected.parquet",
            "report": "report.json",
            "private_report": "private.json",
            "require_error_type": False,
        }
    }
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(with_identity(params)), encoding="utf-8")
    code, _, stderr = run_cli("extract", cwd=tmp_path)
    assert code == 0, stderr
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["read"] == report["kept"] + sum(report["set_aside"].values())
    kept = pq.read_table(tmp_path / "out.parquet").to_pylist()
    aside = pq.read_table(tmp_path / "rejected.parquet").to_pylist()
    return kept, aside


def _table(tmp_path: Path, name: str, *sentences: str) -> dict:
    body = "".join(f"{s}\t1\n" for s in sentences)
    (tmp_path / f"{name}.tsv").write_text(f"sentence\tlabel\n{body}", encoding="utf-8")
    return {"path": f"{name}.tsv", "columns": {"label": "label"}, "split": name}


def test_the_train_row_is_kept_whatever_the_order_of_the_sources(run_cli, tmp_path: Path):
    test = _table(tmp_path, "test", "The cat sleeps.", "A dog barks.", "Only in test.")
    validation = _table(tmp_path, "validation", "A dog barks.", "The cat sleeps.")
    train = _table(tmp_path, "train", "Only in train.", "The cat sleeps.")
    kept, aside = _extract(run_cli, tmp_path, [test, validation, train])
    # the kept rows in the order read: test's, validation's, train's
    assert [(r["sentence"], r["published_split"]) for r in kept] == [
        ("Only in test.", "test"),
        ("A dog barks.", "validation"),
        ("Only in train.", "train"),
        ("The cat sleeps.", "train"),
    ]
    assert [(r["origin"], r["reason"], r["detail"]) for r in aside] == [
        ("test.tsv:2", "duplicate", "train.tsv:3"),
        ("test.tsv:3", "duplicate", "validation.tsv:2"),
        ("validation.tsv:3", "duplicate", "train.tsv:3"),
    ]


def test_within_a_split_and_without_one_the_first_read_is_kept(run_cli, tmp_path: Path):
    (tmp_path / "sheet.tsv").write_text(
        "sentence\tmark\nThe cat sleeps.\t\nThe cat sleeps.\t\n", encoding="utf-8"
    )
    train = _table(tmp_path, "train", "A dog barks.", "A dog barks.", "The cat sleeps.")
    kept, aside = _extract(run_cli, tmp_path, [{"path": "sheet.tsv"}, train])
    assert [(r["sentence"], r["origin"]) for r in kept] == [
        ("A dog barks.", "train.tsv:2"),
        ("The cat sleeps.", "train.tsv:4"),
    ]
    assert [(r["origin"], r["detail"]) for r in aside] == [
        ("sheet.tsv:2", "train.tsv:4"),
        ("sheet.tsv:3", "train.tsv:4"),
        ("train.tsv:3", "train.tsv:2"),
    ]
