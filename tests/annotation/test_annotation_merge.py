"""Stage 1 by hand: the majority, the soft label, and the accounting of every vote."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from annotation_helpers import HAND, STAGE1_HEADER, stage1_rows, write_tsv
from identity import identity_yaml

from rucola.annotation.aggregate import aggregate_stage1
from rucola.annotation.answers import read_stage1
from rucola.annotation.merge import merge_votes
from rucola.io import read_parquet


def values(series: pd.Series) -> list:
    return [None if pd.isna(v) else v for v in series]


OPTIONS = {"min_votes": 3, "min_control_accuracy": 0.5, "min_page_seconds": 30}


def test_majority_matches_the_hand_computation(hand_export):
    result = merge_votes(read_stage1([hand_export]), None, method="majority", **OPTIONS)
    tasks = result.tasks.set_index("id")
    assert list(tasks.index) == ["t1", "t2", "t3", "t4", "t5"]  # the control c1 is no task
    assert values(tasks["label"]) == [1, None, None, None, 1]
    assert tasks["status"].tolist() == ["labelled", "pending", "pending", "pending", "labelled"]
    # t2 is unacceptable at stage 1 and waits for stage 2
    assert tasks["reason"].tolist() == [None, "awaiting_stage2", "too_few_votes", "tie", None]
    assert values(tasks["stage1_label"]) == [1, 0, None, None, 1]
    assert tasks["n_votes"].tolist() == [3, 4, 2, 4, 3]
    assert tasks["share_acceptable"].tolist() == pytest.approx([2 / 3, 1 / 4, 1 / 2, 1 / 2, 1])
    assert tasks["agreement"].tolist() == pytest.approx([2 / 3, 3 / 4, 1 / 2, 1 / 2, 1])
    assert tasks.loc["t2", "sentence"] == "Первая строка\nвторая строка."


def test_every_vote_is_used_or_counted(hand_export):
    result = merge_votes(read_stage1([hand_export]), None, method="majority", **OPTIONS)
    counts = result.stage1.counts()
    assert counts == {
        "read": len(HAND),
        "used": 16,
        "control": 5,
        "dropped": 3,
        "dropped_by_reason": {"low_control_accuracy": 1, "not_sure": 1, "status_expired": 1},
    }
    workers = result.stage1.workers.set_index("worker")
    assert workers.loc["w5", "control_accuracy"] == 0.0
    assert not workers.loc["w5", "kept"]
    assert workers.loc["w5", "reason"] == "low_control_accuracy"
    assert workers.loc["w1", "control_accuracy"] == 1.0 and workers.loc["w1", "kept"]


def test_long_csv_gives_the_same_labels(tmp_path, hand_export):
    mapping = {"yes": "unacceptable", "no": "1", "not_sure": "Not sure", "": ""}
    lines = ["task,worker,label,golden,assignment,status"]
    for task, worker, answer, gold, assignment, status in HAND:
        golden = {"no": "acceptable", "": ""}[gold]
        lines.append(f"{task},{worker},{mapping[answer]},{golden},{assignment},{status}")
    path = tmp_path / "votes.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    from_csv = merge_votes(read_stage1([], [path]), None, method="majority", **OPTIONS)
    from_tsv = merge_votes(read_stage1([hand_export]), None, method="majority", **OPTIONS)
    columns = ["id", "label", "n_votes", "share_acceptable", "status"]
    pd.testing.assert_frame_equal(from_csv.tasks[columns], from_tsv.tasks[columns])


def test_fast_pages_are_dropped_only_when_submitted_is_known(tmp_path):
    header = [*STAGE1_HEADER, "ASSIGNMENT:submitted"]
    rows = []
    for row in stage1_rows():
        fast = row[7] == "w3"  # w3 submits every page in 10 seconds
        rows.append([*row, "2024-02-04T19:13:33.631" if fast else "2024-02-04T19:15:00.000"])
    path = write_tsv(tmp_path / "timed.tsv", header, rows)
    result = merge_votes(read_stage1([path]), None, method="majority", **OPTIONS)
    dropped = result.stage1.counts()["dropped_by_reason"]
    assert dropped["fast_page"] == 6  # all of w3's rows (t1..t5, c1): the first rule wins
    assert dropped["status_expired"] == 1
    assert result.tasks.set_index("id").loc["t1", "n_votes"] == 2


def test_control_accuracy_at_the_threshold_is_dropped(tmp_path):
    rows = [r for r in HAND if r[1] != "w5"] + [
        ("c1", "w5", "no", "no", "a5", "APPROVED"),
        ("c2", "w5", "yes", "no", "a5", "APPROVED"),  # w5: 1 of 2 = 0.5, not above
        ("t1", "w5", "yes", "", "a5", "APPROVED"),
    ]
    path = write_tsv(tmp_path / "p.tsv", STAGE1_HEADER, stage1_rows(rows))
    result = merge_votes(read_stage1([path]), None, method="majority", **OPTIONS)
    workers = result.stage1.workers.set_index("worker")
    assert workers.loc["w5", "control_accuracy"] == 0.5 and not workers.loc["w5", "kept"]


def _spammer_votes(seed: int, n_tasks: int = 600) -> tuple[pd.DataFrame, np.ndarray]:
    """Overlap 5, 30 workers of whom a third answer at random."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n_tasks)
    spammer = np.zeros(30, dtype=bool)
    spammer[:10] = True
    accuracy = rng.uniform(0.7, 0.9, 30)
    rows = []
    for t, label in enumerate(truth):
        for w in rng.choice(30, 5, replace=False):
            if spammer[w]:
                answer = int(rng.integers(0, 2))
            else:
                answer = int(label) if rng.random() < accuracy[w] else 1 - int(label)
            rows.append((f"t{t:03d}", f"w{w:02d}", str(answer)))
    return pd.DataFrame(rows, columns=["task", "worker", "label"]), truth


@pytest.mark.parametrize("seed", [0, 1])
def test_dawid_skene_beats_majority_with_a_third_of_spammers(seed):
    votes, truth = _spammer_votes(seed)
    tasks = sorted(votes["task"].unique())
    scores = {}
    for method in ("majority", "dawid_skene"):
        result = aggregate_stage1(votes, tasks, method, min_votes=3)
        predicted = result["label"].to_numpy(dtype=float, na_value=-1)
        scores[method] = float((predicted == truth).mean())
    assert scores["dawid_skene"] > scores["majority"] + 0.02, scores


@pytest.mark.slow
def test_aggregation_is_deterministic():
    votes, _ = _spammer_votes(3, n_tasks=40)
    tasks = sorted(votes["task"].unique())
    for method in ("majority", "dawid_skene", "wawa", "glad"):
        first = aggregate_stage1(votes, tasks, method, min_votes=3)
        again = aggregate_stage1(votes.sample(frac=1.0, random_state=1), tasks, method, 3)
        pd.testing.assert_frame_equal(first, again)


@pytest.mark.slow
def test_cli_merge_writes_table_report_and_plot(run_cli, project, hand_export):
    code, stdout, stderr = run_cli("annotate", "merge", cwd=project)
    assert code == 0, stderr
    assert "5 tasks" in stdout
    tasks = read_parquet(project / "data/interim/annotated.parquet")
    assert tasks.columns[:8].tolist() == [
        "id",
        "sentence",
        "label",
        "error_type",
        "n_votes",
        "share_acceptable",
        "agreement",
        "confidence",
    ]
    report = json.loads((project / "reports/annotation.json").read_text(encoding="utf-8"))
    assert report["votes"]["stage1"]["read"] == len(HAND)
    assert report["tasks"]["by_status"] == {"labelled": 2, "pending": 3}
    assert report["workers"]["stage1"]["dropped_by_reason"] == {"low_control_accuracy": 1}
    assert report["agreement"]["stage1"]["krippendorff_alpha"] is not None
    assert "worker_table" not in report and not {"w1", "w5"} & set(json.dumps(report).split('"'))
    assert report["control_accuracies"] == [0.0, 1.0, 1.0, 1.0, 1.0]  # w5 failed c1
    workers = (project / "data/interim/annotation_workers.csv").read_text()
    assert {line.split(",")[1] for line in workers.splitlines()[1:]} == {
        "w1",
        "w2",
        "w3",
        "w4",
        "w5",
    }
    assert (project / "reports/plots/annotation_agreement.png").stat().st_size > 0
    assert (project / "data/interim/annotation_workers.csv").read_text().startswith("stage,worker")
    before = (project / "reports/annotation.json").read_bytes()
    assert run_cli("annotate", "merge", "--method", "dawid_skene", cwd=project)[0] == 0
    assert run_cli("annotate", "merge", cwd=project)[0] == 0
    assert (project / "reports/annotation.json").read_bytes() == before


def test_cli_rejects_an_unknown_method(run_cli, project, hand_export):
    code, _, stderr = run_cli("annotate", "merge", "--method", "mace", cwd=project)
    assert code == 1
    assert "error: --method: must be 'majority', 'dawid_skene', 'wawa' or 'glad'" in stderr
    assert not (project / "data/interim/annotated.parquet").exists()


def test_cli_merge_without_answers_writes_an_empty_round(run_cli, tmp_path):
    """Params that name no answers: no rows, a report that says so, no card section."""
    (tmp_path / "params.yaml").write_text(
        identity_yaml("annotate:\n  controls: []\n  stage1: []\n  stage2: []\n  votes: []\n"),
        encoding="utf-8",
    )
    code, stdout, stderr = run_cli("annotate", "merge", cwd=tmp_path)
    assert code == 0, stderr
    assert "0 tasks" in stdout
    annotated = tmp_path / "data/interim/annotated.parquet"
    assert read_parquet(annotated).empty
    from rucola.annotation.merge import ANNOTATED_SCHEMA

    assert pq.read_schema(annotated).names == ANNOTATED_SCHEMA.names
    report = json.loads((tmp_path / "reports/annotation.json").read_text(encoding="utf-8"))
    assert report["has_answers"] is False and "no annotation round" in report["note"]
    assert report["tasks"]["total"] == 0 and report["votes"]["stage1"]["read"] == 0
    assert report["control_accuracies"] == []
    workers = (tmp_path / "data/interim/annotation_workers.csv").read_text().splitlines()
    assert workers[0].startswith("stage,worker") and len(workers) == 1
    plot = (tmp_path / "reports/plots/annotation_agreement.csv").read_text().splitlines()
    assert plot == ["category,wawa"]
    assert (tmp_path / "reports/plots/annotation_agreement.png").stat().st_size > 0

    from rucola.release.card import _annotation

    assert _annotation(tmp_path / "reports/annotation.json") is None


def test_the_sample_round_reports_answers(run_cli, project, hand_export):
    assert run_cli("annotate", "merge", cwd=project)[0] == 0
    report = json.loads((project / "reports/annotation.json").read_text(encoding="utf-8"))
    assert report["has_answers"] is True and "note" not in report
