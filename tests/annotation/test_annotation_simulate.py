"""The round trip on the published out-of-domain dev labels: simulate, merge, compare."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from annotation_helpers import FORM

from rucola.annotation.simulate import evaluate, read_truth
from rucola.io import read_parquet


@pytest.mark.slow
def test_simulated_two_stage_export_recovers_the_published_labels(run_cli, project, shared_data):
    truth_path = shared_data / "rucola" / "out_of_domain_dev.csv"
    code, stdout, stderr = run_cli(
        "annotate", "simulate", "--truth", str(truth_path), "--out-dir", "sim",
        "--method", "majority", "--method", "dawid_skene", "--report", "sim.json",
        cwd=project,
    )  # fmt: skip
    assert code == 0, stderr
    assert "majority" in stdout and "dawid_skene" in stdout
    simulated = json.loads((project / "sim.json").read_text())
    by_method = {row["method"]: row for row in simulated["methods"]}
    assert by_method["majority"]["sentences"] == 1804

    # The files are ordinary exports: the merge reads them like a real one.
    code, _, stderr = run_cli(
        "annotate", "merge", "--stage1", "sim/stage1", "--stage2", "sim/stage2", cwd=project
    )
    assert code == 0, stderr
    tasks = read_parquet(project / "data/interim/annotated.parquet")
    truth = read_truth(truth_path, FORM)
    scores = evaluate(tasks, truth)
    assert scores == {k: by_method["majority"][k] for k in scores}  # same as simulate says
    assert scores["accuracy"] >= 0.95
    assert scores["error_type_accuracy"] >= 0.95
    assert scores["coverage"] >= 0.85
    assert scores["labelled"] + scores["pending"] + scores["set_aside"] == 1804

    labelled = tasks[tasks["status"] == "labelled"]
    assert labelled["error_type"].isna().eq(labelled["label"] == 1).all()
    assert set(labelled["error_type"].dropna()) <= {"Morphology", "Syntax", "Semantics",
                                                    "Hallucination"}  # fmt: skip
    assert tasks["share_acceptable"].between(0, 1).all()

    report = json.loads((project / "reports/annotation.json").read_text())
    votes = report["votes"]["stage1"]
    assert votes["used"] + votes["control"] + votes["dropped"] == votes["read"]
    assert report["workers"]["stage1"]["dropped"] > 0  # spammers fail the controls
    # agreement per category is private (future test rows' labels), overall is public
    assert set(report["agreement"]["stage2"]["wawa"]) == {"overall"}
    private = json.loads((project / "reports/private/annotation.json").read_text())
    assert set(private["agreement"]["stage2"]["wawa"]) >= {"Hallucination", "Syntax"}


def test_evaluate_counts_statuses():
    truth = pd.DataFrame(
        {
            "id": ["1", "2", "3"],
            "sentence": "x",
            "label": [1, 0, 0],
            "error_type": [None, "Syntax", "Semantics"],
        }
    )
    tasks = pd.DataFrame(
        {
            "id": ["1", "2", "3"],
            "label": pd.array([1, 0, None], dtype="Int64"),
            "error_type": [None, "Morphology", None],
            "status": ["labelled", "labelled", "set_aside:other"],
        }
    )
    scores = evaluate(tasks, truth)
    assert scores["coverage"] == round(2 / 3, 4)
    assert scores["accuracy"] == 1.0
    assert scores["error_type_accuracy"] == 0.0
    assert scores["full_accuracy"] == 0.5
    assert scores["set_aside"] == 1
