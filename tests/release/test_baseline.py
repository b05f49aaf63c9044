"""The paper's non-neural baselines."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from identity import identity_yaml

from rucola.errors import RucolaError
from rucola.io import write_text
from rucola.release.baseline import baseline


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


def toy_rows() -> list[dict]:
    words = ["кот", "пёс", "дом", "сад", "лес"]
    return [
        {
            "sentence": f"{w} {v} стоит тут",
            "label": int(v == "красиво"),
            "split": "train" if i % 5 else "validation",
            "domain": "in_domain",
        }
        for i, (w, v) in enumerate((w, v) for w in words for v in ["красиво", "криво"] * 6)
    ]


def test_baseline_from_split_parquet(tmp_path):
    rows = toy_rows()
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


PIPELINE_REPORT = '{"pipeline": "report"}\n'


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project whose pipeline report must survive runs on outside files, and two files in
    the published RuCoLA CSV layout outside it."""
    root = tmp_path / "project"
    (root / "reports").mkdir(parents=True)
    write_text(PIPELINE_REPORT, root / "reports/baseline.json")  # as the pipeline wrote it
    (root / "params.yaml").write_text(
        identity_yaml("split:\n  out: split.parquet\nbaseline:\n  report: reports/baseline.json\n"),
        encoding="utf-8",
    )
    frame = pd.DataFrame(toy_rows())
    frame.to_parquet(root / "split.parquet")
    frame = frame.rename(columns={"label": "acceptable"})
    for name, split in (("in_domain_train.csv", "train"), ("in_domain_dev.csv", "validation")):
        part = frame[frame["split"] == split].reset_index(drop=True)
        part.insert(0, "id", range(len(part)))
        part[["id", "sentence", "acceptable"]].to_csv(tmp_path / name, index=False)
    return root


def on_outside_files(run_cli, project, *options: str) -> tuple[int, str, str]:
    files = project.parent
    train, dev = str(files / "in_domain_train.csv"), str(files / "in_domain_dev.csv")
    return run_cli("baseline", "--train", train, "--validation", dev, *options, cwd=project)


def test_outside_files_print_the_report(run_cli, project):
    code, stdout, stderr = on_outside_files(run_cli, project)
    assert code == 0, stderr
    report = json.loads(stdout)  # stdout is the JSON report alone
    assert report["train_rows"] == 48 and report["validation_rows"] == 12
    assert "baseline: majority MCC" in stderr
    assert (project / "reports/baseline.json").read_text() == PIPELINE_REPORT
    assert sorted(p.name for p in (project / "reports").iterdir()) == ["baseline.json"]


def test_outside_files_write_to_out(run_cli, project):
    files = project.parent
    code, stdout, stderr = on_outside_files(
        run_cli, project, "--out", str(files / "published.json")
    )
    assert code == 0, stderr
    assert "baseline: majority MCC" in stdout
    report = json.loads((files / "published.json").read_text())
    assert report["logistic_regression"]["validation"]["overall"]["mcc"] == 1.0
    assert (project / "reports/baseline.json").read_text() == PIPELINE_REPORT


@pytest.mark.parametrize("option", ["--train", "--validation"])
def test_one_outside_file_is_an_error(run_cli, project, option):
    code, _, stderr = run_cli(
        "baseline", option, str(project.parent / "in_domain_dev.csv"), cwd=project
    )
    assert code == 1 and "both --train and --validation" in stderr
    assert (project / "reports/baseline.json").read_text() == PIPELINE_REPORT


def test_the_split_stage_writes_the_pipeline_report(run_cli, project):
    code, stdout, stderr = run_cli("baseline", cwd=project)
    assert code == 0, stderr
    report = json.loads((project / "reports/baseline.json").read_text())
    assert report["train_rows"] == 48 and "baseline: majority MCC" in stdout


def test_baseline_without_out_writes_nothing(tmp_path, project):
    files = project.parent
    report = baseline(
        None, train=files / "in_domain_train.csv", validation=files / "in_domain_dev.csv"
    )
    assert report["validation_rows"] == 12
    assert (project / "reports/baseline.json").read_text() == PIPELINE_REPORT
