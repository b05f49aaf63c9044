"""Answers given on an earlier pool: set aside as ``not_in_pool`` in every answer format;
a task in no pool at all is exit 1 (``rucola.annotation.pools``)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from annotation_helpers import CONTROLS, FORM, HAND, STAGE1_HEADER, stage1_rows, write_tsv
from identity import identity_yaml

from rucola.annotation.answers import read_stage1
from rucola.annotation.label_studio import read_export, write_export
from rucola.annotation.merge import merge_votes
from rucola.annotation.pools import Pools
from rucola.errors import RucolaError
from rucola.io import read_parquet, write_parquet

OPTIONS = {"min_votes": 3, "min_control_accuracy": 0.5, "min_page_seconds": 30, "form": FORM}
FORMATS = ["toloka", "label_studio", "long"]
LONG_LABELS = {"no": "1", "yes": "0", "not_sure": "not_sure", "": ""}


def pool_file(path: Path, ids: list[str]) -> Path:
    """A candidates file as ``screen`` and ``merge-candidates`` write them (parquet)."""
    frame = pd.DataFrame({"candidate_id": ids, "sentence": [f"Предложение {i}." for i in ids]})
    write_parquet(frame, path)
    return path


def answers(folder: Path, fmt: str, rows: list[tuple] = HAND) -> Path:
    """HAND's answers in one format: a Toloka TSV, a Label Studio export or a long CSV."""
    tsv = write_tsv(folder / "toloka" / "pool.tsv", STAGE1_HEADER, stage1_rows(rows))
    if fmt == "toloka":
        return tsv
    if fmt == "label_studio":
        path = folder / "ls" / "results.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_export(read_stage1([tsv]), path, 1)
        return path
    lines = ["task,worker,label,golden,assignment,status"]
    for task, worker, answer, gold, assignment, status in rows:
        lines.append(
            f"{task},{worker},{LONG_LABELS[answer]},{LONG_LABELS[gold]},{assignment},{status}"
        )
    path = folder / "long" / "votes.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def votes_of(path: Path, fmt: str) -> pd.DataFrame:
    if fmt == "label_studio":
        return read_export(path, 1)
    if fmt == "long":
        return read_stage1([], [path])
    return read_stage1([path])


def pools(tmp_path: Path, today: list[str], earlier: list[str]) -> Pools:
    return Pools(
        pool_file(tmp_path / "screened.parquet", today),
        pool_file(tmp_path / "candidates.parquet", today + earlier),
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_task_outside_todays_pool_is_set_aside_in_every_format(tmp_path, fmt):
    """t2 was exported in an earlier pool (a stricter screen has dropped it since): its
    answers are kept on file, counted as ``not_in_pool`` and its task set aside; the other
    tasks come out exactly as without a pool check."""
    votes = votes_of(answers(tmp_path, fmt), fmt)
    checked = merge_votes(
        votes, None, method="majority", pools=pools(tmp_path, ["t1", "t3", "t4", "t5"], ["t2"]),
        **OPTIONS,
    )  # fmt: skip
    plain = merge_votes(votes, None, method="majority", **OPTIONS)
    tasks = checked.tasks.set_index("id")
    assert tasks.loc["t2", "status"] == "set_aside:not_in_pool"
    assert tasks.loc["t2", "reason"] == "not_in_pool" and pd.isna(tasks.loc["t2", "label"])
    assert plain.tasks.set_index("id").loc["t2", "stage1_label"] == 0  # judged without it
    others = checked.tasks["id"] != "t2"
    pd.testing.assert_frame_equal(
        checked.tasks[others].reset_index(drop=True),
        plain.tasks[plain.tasks["id"] != "t2"].reset_index(drop=True),
    )
    counts = checked.stage1.counts()
    assert counts["dropped_by_reason"]["not_in_pool"] == int((votes["task"] == "t2").sum()) == 4
    assert counts["read"] == len(votes)
    assert counts["used"] + counts["control"] + counts["dropped"] == len(votes)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_task_in_no_pool_is_one_error_naming_file_line_and_task(tmp_path, fmt):
    path = answers(tmp_path, fmt)
    with pytest.raises(RucolaError) as info:
        merge_votes(
            votes_of(path, fmt), None, method="majority",
            pools=pools(tmp_path, ["t1", "t3", "t4"], ["t2"]), **OPTIONS,
        )  # fmt: skip
    assert info.value.message == "task 't5': task was never exported"
    assert info.value.path == str(path)
    # t5's first answer is the 16th vote: line 17 of the CSV, 21 of the TSV (t2's four
    # sentence cells span two lines); a JSON export has no line to name
    assert info.value.line == {"toloka": 21, "label_studio": None, "long": 17}[fmt]
    assert "generate.merge.out" in info.value.hint


def test_controls_are_never_looked_up_and_every_pool_only_when_needed(tmp_path):
    """c1 is in no pool (a control carries its own answer); with every task in today's
    pool the file of every candidate is not even read."""
    votes = read_stage1([answers(tmp_path, "toloka")])
    today = pool_file(tmp_path / "screened.parquet", ["t1", "t2", "t3", "t4", "t5"])
    result = merge_votes(
        votes, None, method="majority", pools=Pools(today, tmp_path / "missing.parquet"),
        **OPTIONS,
    )  # fmt: skip
    assert "not_in_pool" not in result.stage1.counts()["dropped_by_reason"]
    with pytest.raises(RucolaError, match="generate.merge.out"):
        merge_votes(
            votes, None, method="majority",
            pools=Pools(pool_file(today, ["t1"]), tmp_path / "missing.parquet"), **OPTIONS,
        )  # fmt: skip


def test_a_conflicting_repeat_outside_the_pool_is_not_fatal(tmp_path):
    rows = [*HAND, ("t2", "w1", "no", "", "a9", "APPROVED")]  # w1 answered t2 twice, apart
    votes = read_stage1([answers(tmp_path, "toloka", rows)])
    with pytest.raises(RucolaError, match="twice with different answers"):
        merge_votes(votes, None, method="majority", **OPTIONS)
    result = merge_votes(
        votes, None, method="majority", pools=pools(tmp_path, ["t1", "t3", "t4", "t5"], ["t2"]),
        **OPTIONS,
    )  # fmt: skip
    assert result.stage1.counts()["dropped_by_reason"]["not_in_pool"] == 5


def test_stage2_answers_outside_todays_pool_are_set_aside(tmp_path):
    """A stage-2 vote on a task of an earlier pool is ``not_in_pool`` (before the stage-2
    pool's own rule), and never an error."""
    votes1 = read_stage1([answers(tmp_path, "toloka")])
    votes2 = pd.DataFrame(
        {
            **{c: votes1[c].iloc[:3].to_numpy() for c in votes1.columns},
            "task": ["t2", "t2", "t1"],
            "label": ["syntax", "syntax", "morphology"],
            "golden": [None, None, None],
        }
    )[votes1.columns]
    result = merge_votes(
        votes1, votes2, method="majority",
        pools=pools(tmp_path, ["t1", "t3", "t4", "t5"], ["t2"]), **OPTIONS,
    )  # fmt: skip
    fates = result.stage2.votes["fate"].tolist()
    assert fates == ["not_in_pool", "not_in_pool", "not_in_stage2_pool"]


def annotate_project(tmp_path: Path, today: list[str], earlier: list[str]) -> Path:
    answers(tmp_path, "toloka")
    pool_file(tmp_path / "screened.parquet", today)
    pool_file(tmp_path / "candidates.parquet", today + earlier)
    (tmp_path / "params.yaml").write_text(
        identity_yaml(
            f"annotate:\n  controls: [{CONTROLS}]\n  stage1: [toloka]\n  stage2: []\n"
            # today's pool is what screen writes, every pool what merge-candidates writes
            "screen:\n  out: screened.parquet\n"
            "generate:\n  merge:\n    out: candidates.parquet\n"
        ),
        encoding="utf-8",
    )
    return tmp_path


def test_merge_reports_and_corpus_sets_aside_answers_of_an_earlier_pool(run_cli, tmp_path):
    project = annotate_project(tmp_path, ["t1", "t3", "t4", "t5"], ["t2"])
    code, stdout, stderr = run_cli("annotate", "merge", cwd=project)
    assert code == 0, stderr
    stdout = " ".join(stdout.split())  # the console wraps long lines
    assert "'not_in_pool': 4" in stdout and "'set_aside:not_in_pool': 1" in stdout
    report = json.loads((project / "reports/annotation.json").read_text(encoding="utf-8"))
    assert report["votes"]["stage1"]["dropped_by_reason"]["not_in_pool"] == 4
    assert report["tasks"]["by_status"]["set_aside:not_in_pool"] == 1
    assert report["set_aside"]["set_aside:not_in_pool"] == 1  # the stage's row accounting
    assert report["read"] == report["kept"] + sum(report["set_aside"].values()) == 5
    assert report["pools"] == {
        "checked": True,
        "candidates": "screened.parquet",
        "all_candidates": "candidates.parquet",
    }
    annotated = read_parquet(project / "data/interim/annotated.parquet").set_index("id")
    assert annotated.loc["t2", "status"] == "set_aside:not_in_pool"


def test_a_task_in_no_pool_stops_the_merge_with_one_line(run_cli, tmp_path):
    project = annotate_project(tmp_path, ["t1", "t3", "t4"], ["t2"])
    code, _, stderr = run_cli("annotate", "merge", cwd=project)
    assert code == 1
    assert stderr.startswith("error: toloka/pool.tsv:21: task 't5': task was never exported")
    assert len(stderr.strip().splitlines()) == 1
    assert not (project / "data/interim/annotated.parquet").exists()


def test_without_todays_pool_nothing_is_checked_and_the_report_says_so(run_cli, tmp_path):
    """A merge outside the pipeline (no screened candidates here): every task as it comes."""
    project = annotate_project(tmp_path, ["t1"], [])
    (project / "screened.parquet").unlink()
    code, stdout, stderr = run_cli("annotate", "merge", cwd=project)
    assert code == 0, stderr
    stdout = " ".join(stdout.split())
    assert "no pool check (screened.parquet, screen.out, does not exist)" in stdout
    report = json.loads((project / "reports/annotation.json").read_text(encoding="utf-8"))
    assert report["pools"]["checked"] is False
    assert "not_in_pool" not in report["votes"]["stage1"]["dropped_by_reason"]


def test_stage2_export_leaves_out_a_task_of_an_earlier_pool(run_cli, tmp_path):
    project = annotate_project(tmp_path, ["t1", "t3", "t4", "t5"], ["t2"])
    code, _, stderr = run_cli("annotate", "export", "--stage", "2", "--out", "pool2", cwd=project)
    assert code == 0, stderr
    manifest = json.loads((project / "pool2/stage2_manifest.json").read_text(encoding="utf-8"))
    assert manifest["tasks"] == 0  # t2, the only unacceptable sentence, is not in the pool
    assert manifest["set_aside"]["set_aside:not_in_pool"] == 1
