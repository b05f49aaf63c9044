"""Issue 23, "readers are strict": the adversarial cases of every input reader.

A reader that guesses loses data without a word: a second ``mark`` column silently won, a
non-list ``annotations`` dropped its votes, ``"false"`` cancelled a vote, a Toloka export
without ``INPUT:id`` was keyed by a per-pool id and its stage-2 votes matched nothing, a
misspelt ``# sourc:`` was a comment. Each case here goes through the real command line and
must end in exit 1 with one line naming the file and the line or task, and no output
written; the last one proves that ``rucola measure`` leaves no worker behind when killed.
"""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pyarrow as pa
import pytest
from guards import one_error_line
from identity import identity_yaml, rucola_categories

from rucola.io import write_parquet

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample" / "annotations"
MERGE_OUTPUTS = ["data/interim/annotated.parquet", "reports/annotation.json"]


def write_rows(path: Path, rows: list[list[str]], delimiter: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, delimiter=delimiter, lineterminator="\n").writerows(rows)
    return path


# -- duplicate header columns -----------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "row", "column"),
    [
        (["sentence", "mark", "mark"], ["Мальчик спит.", "*", ""], "mark"),
        (["sentence", "mark", "sentence"], ["Мальчик спит.", "*", "Мальчик спит"], "sentence"),
    ],
)
def test_a_sheet_with_a_repeated_column_is_refused(run_cli, tmp_path, header, row, column):
    """Issue 23, defect 7: a judgment sheet with two ``mark`` (or two ``sentence``) columns;
    the last one won silently, and the ``*`` row became label 1."""
    (tmp_path / "params.yaml").write_text(identity_yaml(""), encoding="utf-8")
    write_rows(tmp_path / "sheet.tsv", [header, row], "\t")
    code, _, stderr = run_cli("extract", "--sources", "sheet.tsv", "--out", "o.parquet",
                              cwd=tmp_path)  # fmt: skip
    assert code == 1
    one_error_line(stderr, "sheet.tsv:1:", f"duplicated column(s) {column}")
    assert not (tmp_path / "o.parquet").exists()


def test_a_published_rucola_file_with_a_repeated_column_is_refused(run_cli, tmp_path):
    """Issue 23, defect 7 (every tabular reader): a published RuCoLA CSV with two
    ``acceptable`` columns; ``csv.DictReader`` kept the last cell, and the label with it."""
    (tmp_path / "params.yaml").write_text(identity_yaml(""), encoding="utf-8")
    header = ["id", "sentence", "acceptable", "error_type", "detailed_source", "acceptable"]
    write_rows(tmp_path / "release/in_domain_train.csv",
               [header, ["0", "Мальчик спит.", "0", "Syntax", "Paducheva", "1"]], ",")  # fmt: skip
    code, _, stderr = run_cli("extract", "--sources", "release", "--out", "o.parquet",
                              cwd=tmp_path)  # fmt: skip
    assert code == 1
    one_error_line(stderr, "in_domain_train.csv:1:", "duplicated column(s) acceptable")
    assert not (tmp_path / "o.parquet").exists()


def annotate_project(tmp_path: Path) -> Path:
    (tmp_path / "params.yaml").write_text(
        identity_yaml(
            f"annotate:\n  controls: [{SAMPLE / 'controls.tsv'}]\n  stage1: []\n  stage2: []\n"
            f"screen:\n  out: {SAMPLE / 'truth.tsv'}\n"
        ),  # the candidates annotate reads
        encoding="utf-8",
    )
    return tmp_path


def nothing_merged(project: Path) -> None:
    assert not any((project / name).exists() for name in MERGE_OUTPUTS)


def test_a_vote_table_with_a_repeated_column_is_refused(run_cli, tmp_path):
    """Issue 23, defect 7 (every tabular reader): a votes CSV whose ``label`` and ``Label``
    become one name once the header is read without case."""
    project = annotate_project(tmp_path)
    write_rows(project / "votes.csv",
               [["task", "worker", "label", "Label"], ["t1", "w1", "1", "0"]], ",")  # fmt: skip
    code, _, stderr = run_cli("annotate", "merge", "--votes", "votes.csv", cwd=project)
    assert code == 1
    one_error_line(stderr, "votes.csv:1:", "duplicated column(s) label")
    nothing_merged(project)


def test_a_toloka_export_with_a_repeated_column_is_refused(run_cli, tmp_path):
    """Issue 23, defect 7 (every tabular reader): a Toloka TSV whose ``INPUT:id`` is there
    twice, spelt in two cases: which one keys the votes was a guess."""
    project = annotate_project(tmp_path)
    header = ["INPUT:id", "INPUT:ID", "OUTPUT:violation", "ASSIGNMENT:assignment_id",
              "ASSIGNMENT:worker_id", "ASSIGNMENT:status", "ASSIGNMENT:started"]  # fmt: skip
    row = ["t1", "t2", "no", "a1", "w1", "APPROVED", "2024-01-01T00:00:00"]
    write_rows(project / "stage1/results.tsv", [header, row], "\t")
    code, _, stderr = run_cli("annotate", "merge", "--stage1", "stage1", cwd=project)
    assert code == 1
    one_error_line(stderr, "results.tsv:1:", "duplicated column(s) INPUT:id")
    nothing_merged(project)


def test_a_golden_set_with_a_repeated_column_is_refused(tmp_path):
    """Issue 23, defect 7 (every tabular reader): the controls TSV with ``label`` twice
    (in two cases), which the golden answers of every control page come from."""
    from rucola.annotation.export import read_controls
    from rucola.annotation.votes import Stage2Form
    from rucola.errors import RucolaError

    path = write_rows(tmp_path / "controls.tsv",
                      [["id", "sentence", "label", "Label"], ["c1", "Он спит.", "1", "0"]],
                      "\t")  # fmt: skip
    with pytest.raises(RucolaError, match=r"duplicated column\(s\) label") as info:
        read_controls([path], Stage2Form.of(rucola_categories()))
    assert (info.value.path, info.value.line) == (str(path), 1)


def test_a_submission_with_a_repeated_column_is_refused(tmp_path):
    """Issue 23, defect 7 (every tabular reader): predictions with two ``acceptable``
    columns were scored on the last one."""
    from rucola.errors import RucolaError
    from rucola.release.evaluate import read_predictions

    path = write_rows(tmp_path / "sub.csv", [["id", "acceptable", "acceptable"], ["0", "1", "0"]],
                      ",")  # fmt: skip
    with pytest.raises(RucolaError, match=r"duplicated column\(s\) acceptable") as info:
        read_predictions(path)
    assert (info.value.path, info.value.line) == (str(path), 1)


def test_a_generation_source_with_a_repeated_column_is_refused(tmp_path):
    """Issue 23, defect 7 (every tabular reader): a parallel TSV with two ``ru`` columns
    sent the last one to the generators."""
    from rucola.errors import RucolaError
    from rucola.generation.sources import _read_tsv
    from rucola.settings import GenerationSource

    path = write_rows(tmp_path / "pairs.tsv", [["ru", "en", "ru"], ["Он спит.", "He sleeps.", "x"]],
                      "\t")  # fmt: skip
    with pytest.raises(RucolaError, match=r"duplicated column\(s\) ru") as info:
        _read_tsv(path, GenerationSource(path=str(path)), "pairs")
    assert (info.value.path, info.value.line) == (str(path), 1)


# -- Label Studio exports: wrong shapes, non-boolean booleans, every vote a fate ----------


@pytest.fixture
def label_studio(run_cli, tmp_path) -> Path:
    """A real-sized simulated Label Studio round (443 stage-1 answers, as the sample's)."""
    project = annotate_project(tmp_path)
    code, _, stderr = run_cli(
        "annotate", "simulate", "--truth", str(SAMPLE / "truth.tsv"), "--out-dir", "ls",
        "--format", "label_studio", "--workers", "15", "--method", "majority",
        "--report", "sim.json", cwd=project,
    )  # fmt: skip
    assert code == 0, stderr
    return project


def answered_votes(path: Path) -> int:
    tasks = json.loads(path.read_text(encoding="utf-8"))
    return sum(not a["ground_truth"] for t in tasks for a in t.get("annotations", []))


def test_every_label_studio_vote_read_has_a_fate(run_cli, label_studio):
    """Issue 23, defect 8: every annotation of the export is read, and every vote read is
    used, a control answer or dropped with a counted reason (read == sum of the fates).

    The invariant the wrong-shape cases below broke (443 read became 442); on a well-formed
    export it held before the fix too, and stays here so no later reader breaks it."""
    code, _, stderr = run_cli("annotate", "merge", "--stage1", "ls/stage1", "--stage2",
                              "ls/stage2", cwd=label_studio)  # fmt: skip
    assert code == 0, stderr
    report = json.loads((label_studio / "reports/annotation.json").read_text(encoding="utf-8"))
    for stage in (1, 2):
        counts = report["votes"][f"stage{stage}"]
        in_file = answered_votes(label_studio / f"ls/stage{stage}/results.json")
        assert counts["read"] == in_file
        fates = counts["used"] + counts["control"] + sum(counts["dropped_by_reason"].values())
        assert fates == counts["dropped"] + counts["used"] + counts["control"] == in_file
    assert report["votes"]["stage1"]["read"] == 443


def _voted_task(tasks: list[dict[str, Any]]) -> dict[str, Any]:
    """The first task with an answer that is not a ground truth and is not cancelled."""
    return next(
        t
        for t in tasks
        if not t["data"]["control"]
        and any(not a["ground_truth"] and not a["was_cancelled"] for a in t["annotations"])
    )


def _annotation(task: dict[str, Any]) -> dict[str, Any]:
    return next(a for a in task["annotations"] if not a["ground_truth"])


BROKEN = {
    "annotations is a string": (
        lambda t: t.update(annotations="oops"),
        "annotations must be a list",
    ),
    "annotations is null": (lambda t: t.update(annotations=None), "annotations must be a list"),
    "annotations holds a number": (
        lambda t: t.update(annotations=[5]),
        "annotations[0] must be a JSON object",
    ),
    "result is not a list": (
        lambda t: _annotation(t).update(result="x"),
        "annotations[0].result must be a list",
    ),
    "result holds a number": (
        lambda t: _annotation(t).update(result=[5]),
        "annotations[0].result[0] must be",
    ),
    "was_cancelled is a string": (
        lambda t: _annotation(t).update(was_cancelled="false"),
        "annotations[0].was_cancelled must be a boolean",
    ),
    "ground_truth is a string": (
        lambda t: _annotation(t).update(ground_truth="false"),
        "annotations[0].ground_truth must be a boolean",
    ),
    "data.control is a string": (
        lambda t: t["data"].update(control="false"),
        "data.control must be a boolean",
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(BROKEN))
def test_a_label_studio_export_of_the_wrong_shape_is_refused(run_cli, label_studio, case):
    """Issue 23, defect 8: ``annotations`` of ``"oops"``, ``null`` or ``[5]`` made its vote
    vanish (443 read became 442, exit 0, no fate); ``was_cancelled: "false"`` counted as
    cancelled. Each wrong shape is exit 1 naming the file and our task id (``data.id``)."""
    change, where = BROKEN[case]
    path = label_studio / "ls/stage1/results.json"
    tasks = json.loads(path.read_text(encoding="utf-8"))
    task = _voted_task(tasks)
    change(task)
    path.write_text(json.dumps(tasks, ensure_ascii=False), encoding="utf-8")
    code, _, stderr = run_cli("annotate", "merge", "--stage1", "ls/stage1", cwd=label_studio)
    assert code == 1
    one_error_line(stderr, "results.json", f"task {task['data']['id']!r}", where)
    nothing_merged(label_studio)


def test_a_label_studio_task_without_an_id_is_named_by_its_position(run_cli, label_studio):
    """Issue 23, defect 8: a wrong shape in a task that has no ``data.id`` names the task by
    its position in the export."""
    path = label_studio / "ls/stage1/results.json"
    tasks = json.loads(path.read_text(encoding="utf-8"))
    tasks[2] = {"id": 3, "data": "oops", "annotations": []}
    path.write_text(json.dumps(tasks, ensure_ascii=False), encoding="utf-8")
    code, _, stderr = run_cli("annotate", "merge", "--stage1", "ls/stage1", cwd=label_studio)
    assert code == 1
    one_error_line(stderr, "results.json", "task #3", "data must be a JSON object")
    nothing_merged(label_studio)


@pytest.mark.parametrize(
    "deep", ["[" * 100_000 + "]" * 100_000, "[" + "[" * 5000 + "]" * 5000 + "]"]
)
def test_a_crowd_export_nested_too_deeply_is_one_line(run_cli, label_studio, deep):
    """Issue 32 (as for the review's import): JSON too deep for the reader, or a task that
    is a deeply nested list, was a RecursionError traceback; now one line naming the file."""
    path = label_studio / "ls/stage1/results.json"
    path.write_text(deep, encoding="utf-8")
    code, _, stderr = run_cli("annotate", "merge", "--stage1", "ls/stage1", cwd=label_studio)
    assert code == 1
    one_error_line(stderr, "results.json", "not a Label Studio export")
    nothing_merged(label_studio)


# -- Toloka exports without INPUT:id ------------------------------------------------------


def test_the_real_toloka_export_without_input_id_is_refused(run_cli, tmp_path, shared_data):
    """Issue 23, minor (Toloka TSV without ``INPUT:id``): the real export, in our vocabulary,
    has no ``INPUT:id``; it was keyed by ``ASSIGNMENT:task_id`` instead, silently."""
    from rucola.annotation.toloka import read_toloka, write_toloka

    frame = read_toloka(shared_data / "toloka/assignments_sample.tsv").drop(columns=["_line"])
    scale = {"0": "yes", "1": "yes", "2": "no", "3": "no", "": ""}
    frame["OUTPUT:violation"] = frame["OUTPUT:R-4"].map(scale)
    frame["GOLDEN:violation"] = frame["GOLDEN:R-4"].map(scale)
    project = annotate_project(tmp_path)
    write_toloka(frame, project / "stage1/results.tsv")
    code, _, stderr = run_cli("annotate", "merge", "--stage1", "stage1", cwd=project)
    assert code == 1
    one_error_line(stderr, "results.tsv:1:", "INPUT:id")
    nothing_merged(project)


def test_a_stage2_toloka_export_without_input_id_is_refused(run_cli, tmp_path):
    """Issue 23, minor (Toloka TSV without ``INPUT:id``): keyed by Toloka's task id, which is
    new in every pool, the stage-2 votes matched no stage-1 sentence and were dropped (137
    in one trial), exit 0."""
    project = annotate_project(tmp_path)
    code, _, stderr = run_cli(
        "annotate", "simulate", "--truth", str(SAMPLE / "truth.tsv"), "--out-dir", "tol",
        "--format", "toloka", "--workers", "15", "--method", "majority",
        "--report", "sim.json", cwd=project,
    )  # fmt: skip
    assert code == 0, stderr
    path = project / "tol/stage2/results.tsv"
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle, delimiter="\t"))
    drop = rows[0].index("INPUT:id")
    write_rows(project / "stage2/results.tsv", [r[:drop] + r[drop + 1 :] for r in rows], "\t")
    code, _, stderr = run_cli("annotate", "merge", "--stage1", "tol/stage1", "--stage2",
                              "stage2", cwd=project)  # fmt: skip
    assert code == 1
    one_error_line(stderr, "stage2/results.tsv:1:", "INPUT:id")
    nothing_merged(project)


# -- example lists: a misspelt directive --------------------------------------------------


@pytest.mark.parametrize(
    ("line", "hint"),
    [("# sourc: T1", "# source:"), ("#errortype: Syntax", "# error_type:")],
)
def test_a_misspelt_list_directive_is_refused(run_cli, tmp_path, line, hint):
    """Issue 23, minor: ``# sourc: T1`` was a silent comment, so the section's examples
    kept the previous source. ``#``, an identifier and ``:`` is a directive; an unknown one
    is exit 1 naming file:line, with the nearest directive as a hint."""
    (tmp_path / "params.yaml").write_text(identity_yaml(""), encoding="utf-8")
    (tmp_path / "list.txt").write_text(
        f"# source: Book\n(1) Он пришёл.\n{line}\n(2) *Он пришла.\n", encoding="utf-8"
    )
    code, _, stderr = run_cli("extract", "--sources", "list.txt", "--out", "o.parquet",
                              cwd=tmp_path)  # fmt: skip
    assert code == 1
    one_error_line(stderr, "list.txt:3:", "unknown directive", f"did you mean '{hint}'")
    assert not (tmp_path / "o.parquet").exists()


# -- measure: no worker outlives a killed parent ------------------------------------------


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SIGKILL of a process tree")
def test_measure_workers_die_with_their_parent(tmp_path):
    """Issue 23, minor: ``rucola measure``'s worker processes survived a kill -9 of their
    parent for more than 30 s. Killed mid-run, no worker may be alive 5 s later."""
    (tmp_path / "params.yaml").write_text(identity_yaml(""), encoding="utf-8")
    words = ["Мальчик читает книгу.", "Девочка пишет письмо бабушке.", "Кот спит на окне."]
    sentences = pa.array([f"{words[i % 3]} {i}" for i in range(600_000)])
    write_parquet(pa.table({"sentence": sentences}), tmp_path / "in.parquet")
    env = {**os.environ, "COLUMNS": "120"}
    parent = subprocess.Popen(
        [sys.executable, "-m", "rucola", "measure", "--input", "in.parquet", "--out",
         "out.parquet", "--report", "r.json", "--workers", "2"],
        cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and parent.poll() is None:
            workers = [c.pid for c in psutil.Process(parent.pid).children(recursive=True)]
            if len(workers) >= 2:
                break
            time.sleep(0.05)
        assert len(workers) >= 2, "the workers never started (is the input too small?)"
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(_alive(pid) for pid in workers):
            time.sleep(0.1)
        assert not [pid for pid in workers if _alive(pid)], "workers outlived their parent"
    finally:
        if parent.poll() is None:
            parent.kill()
        for pid in workers:  # on a failure, leave no orphan behind
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
