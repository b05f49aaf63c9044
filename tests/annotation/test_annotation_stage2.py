"""Stage 2: a majority per category; several, other or none set aside; no violation relabels."""

from __future__ import annotations

import json

import pandas as pd
from annotation_helpers import FORM, STAGE1_HEADER, write_tsv

from rucola.annotation.answers import read_stage1, read_stage2
from rucola.annotation.merge import merge_votes

OPTIONS = {"min_votes": 3, "min_control_accuracy": 0.5, "min_page_seconds": 30, "form": FORM}
STAGE2_FIELDS = FORM.fields
STAGE2_HEADER = [
    "INPUT:id",
    "INPUT:sentence",
    *(f"OUTPUT:{f}" for f in STAGE2_FIELDS),
    "ASSIGNMENT:assignment_id",
    "ASSIGNMENT:worker_id",
    "ASSIGNMENT:status",
    "ASSIGNMENT:started",
    "ASSIGNMENT:submitted",
]
STAGE2_ANSWERS = {
    "s1": ["syntax", "syntax", "syntax|semantics"],
    "s2": ["morphology|syntax", "morphology|syntax", "morphology"],
    "s3": ["other", "other", "semantics"],
    "s4": ["no_violation", "no_violation", "hallucination"],
    "s5": ["syntax", "semantics", "morphology"],
    "s6": ["hallucination", "hallucination", "not_sure"],
    "a1": ["syntax", "syntax", "syntax"],  # acceptable at stage 1: not in the stage-2 pool
}


def write_exports(folder):
    rows1 = []
    for task in ["s1", "s2", "s3", "s4", "s5", "s6", "s7", "a1"]:
        for w in ("w1", "w2", "w3"):
            answer = "no" if task == "a1" else "yes"
            rows1.append(
                [task, f"Предложение {task}.", answer, "", "", f"id-{task}", f"p-{w}", w,
                 "APPROVED", "2024-02-04T10:00:00"]
            )  # fmt: skip
    stage1 = write_tsv(folder / "stage1" / "results.tsv", STAGE1_HEADER, rows1)
    rows2 = []
    for task, answers in STAGE2_ANSWERS.items():
        for w, answer in zip(("s-w1", "s-w2", "s-w3"), answers, strict=True):
            checked = set(answer.split("|"))
            rows2.append(
                [task, f"Предложение {task}.", *(str(f in checked).lower() for f in STAGE2_FIELDS),
                 f"q-{w}", w, "APPROVED", "2024-02-05T10:00:00", "2024-02-05T10:02:00"]
            )  # fmt: skip
    stage2 = write_tsv(folder / "stage2" / "results.tsv", STAGE2_HEADER, rows2)
    return stage1, stage2


def test_stage2_outcomes(tmp_path):
    stage1, stage2 = write_exports(tmp_path)
    result = merge_votes(
        read_stage1([stage1]), read_stage2([stage2], FORM), method="majority", **OPTIONS
    )
    tasks = result.tasks.set_index("id")
    expected = {
        "s1": ("labelled", 0, "Syntax"),
        "s2": ("set_aside:several_categories", None, None),
        "s3": ("set_aside:other", None, None),
        "s4": ("labelled", 1, None),
        "s5": ("set_aside:no_category_majority", None, None),
        "s6": ("pending", None, None),
        "s7": ("pending", None, None),
        "a1": ("labelled", 1, None),
    }
    for task, (status, label, error_type) in expected.items():
        row = tasks.loc[task]
        got = (row["status"], None if pd.isna(row["label"]) else int(row["label"]))
        assert got == (status, label), task
        assert row["error_type"] == error_type, task
    assert tasks.loc["s4", "reason"] == "relabelled_acceptable"
    assert tasks.loc["s6", "reason"] == "stage2_too_few_votes"
    assert tasks.loc["s7", "reason"] == "awaiting_stage2"
    assert tasks.loc["s1", "categories"] == "syntax"
    assert tasks.loc["s2", "categories"] == "morphology|syntax"
    assert tasks.loc["s1", "agreement_stage2"] == 2 / 3
    counts = result.stage2.counts()
    assert counts["dropped_by_reason"] == {"not_in_stage2_pool": 3, "not_sure": 1}
    assert counts["used"] + counts["dropped"] == counts["read"] == 21


def test_cli_two_stage_report(run_cli, project):
    write_exports(project)
    params = (project / "params.yaml").read_text().replace("stage2: []", "stage2: [stage2]")
    (project / "params.yaml").write_text(params)
    code, stdout, stderr = run_cli("annotate", "merge", cwd=project)
    assert code == 0, stderr
    report = json.loads((project / "reports/annotation.json").read_text())
    assert report["tasks"]["by_status"] == {
        "labelled": 3,
        "pending": 2,
        "set_aside:no_category_majority": 1,
        "set_aside:other": 1,
        "set_aside:several_categories": 1,
    }
    # per label and category: only in the private report (future test rows among them)
    assert "labelled" not in report["tasks"]
    assert set(report["agreement"]["stage2"]["wawa"]) == {"overall"}
    private = json.loads((project / "reports/private/annotation.json").read_text())
    assert private["tasks"]["labelled"]["relabelled_by_stage2"] == 1
    # WAWA counts exact answers: "syntax|semantics" does not agree with "syntax"
    assert private["agreement"]["stage2"]["wawa"]["Syntax"]["wawa"] == 0.6667
    assert report["workers"]["stage2"]["without_controls"] == 3
