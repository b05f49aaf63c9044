"""Label Studio round trip: config and tasks out, a JSON export back in, merged like Toloka."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from annotation_helpers import CONTROLS, FORM, HAND, ROOT
from identity import identity_yaml
from test_annotation_export import candidates

from rucola.annotation.answers import read_stage1, read_stage2
from rucola.annotation.label_studio import label_config, read_export, write_export
from rucola.annotation.merge import merge_votes
from rucola.annotation.pools import Pools
from rucola.annotation.votes import VOTE_COLUMNS
from rucola.errors import RucolaError
from rucola.io import read_parquet, write_parquet

TRUTH = ROOT / "data" / "sample" / "annotations" / "truth.tsv"
OPTIONS = {"min_votes": 3, "min_control_accuracy": 0.5, "min_page_seconds": 30, "form": FORM}


def annotation(
    number: int,
    user: Any,
    choices: list[str],
    *,
    lead_time: float | None = 40.0,
    from_name: str = "violation",
    cancelled: bool = False,
    ground_truth: bool = False,
) -> dict[str, Any]:
    region = {"from_name": from_name, "to_name": "sentence", "type": "choices",
              "value": {"choices": choices}}  # fmt: skip
    return {
        "id": number,
        "completed_by": user,
        "result": [] if cancelled else [region],
        "lead_time": lead_time,
        "was_cancelled": cancelled,
        "ground_truth": ground_truth,
    }


def ls_task(number: int, task: str, annotations: list[dict], **data: Any) -> dict[str, Any]:
    return {"id": number, "data": {"id": task, "sentence": f"Предложение {task}.", **data},
            "annotations": annotations}  # fmt: skip


def write(path: Path, tasks: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(tasks, ensure_ascii=False), encoding="utf-8")
    return path


# -- out: the labelling config and the tasks -------------------------------------------


@pytest.mark.parametrize(
    ("stage", "name", "mode", "choices"),
    [
        (1, "violation", "single", ["yes", "no", "not_sure"]),
        (2, "category", "multiple", FORM.fields),
    ],
)
def test_label_config_is_xml_with_the_stage_choices(stage, name, mode, choices):
    text = label_config(stage, form=FORM)
    assert text == label_config(stage, form=FORM) and text.endswith("\n")
    view = ET.fromstring(text)
    assert view.tag == "View"
    assert view.find("Text").attrib == {"name": "sentence", "value": "$sentence"}
    tag = view.find("Choices")
    assert tag.get("name") == name and tag.get("toName") == "sentence"
    assert tag.get("choice") == mode and tag.get("required") == "true"
    assert [c.get("value") for c in tag.findall("Choice")] == choices
    assert ET.fromstring(label_config(1, "answer")).find("Choices").get("name") == "answer"


def test_cli_export_writes_the_config_and_ground_truth(run_cli, project, hand_export):
    write_parquet(candidates(12), project / "cands.parquet")
    code, _, stderr = run_cli(
        "annotate", "export", "--input", "cands.parquet", "--out", "pool", cwd=project
    )
    assert code == 0, stderr
    assert (project / "pool/stage1_label_config.xml").read_text() == label_config(1)
    tasks = json.loads((project / "pool/stage1_tasks.json").read_text(encoding="utf-8"))
    controls = [t for t in tasks if t["data"]["control"]]
    assert len(controls) == 3  # a page of five holds one
    for task in tasks:
        if not task["data"]["control"]:
            assert "annotations" not in task
            continue
        (truth,) = task["annotations"]
        assert truth["ground_truth"] is True and truth["was_cancelled"] is False
        (region,) = truth["result"]
        assert region["from_name"] == "violation" and region["to_name"] == "sentence"
        assert region["value"]["choices"] == [task["data"]["golden"]["violation"]]

    code, _, stderr = run_cli("annotate", "export", "--stage", "2", "--out", "pool", cwd=project)
    assert code == 0, stderr
    assert (project / "pool/stage2_label_config.xml").read_text() == label_config(2, form=FORM)
    tasks = json.loads((project / "pool/stage2_tasks.json").read_text(encoding="utf-8"))
    (control,) = [t for t in tasks if t["data"]["control"]]
    golden = [k for k, v in control["data"]["golden"].items() if v == "true"]
    assert control["annotations"][0]["result"][0]["value"]["choices"] == golden
    assert control["annotations"][0]["result"][0]["from_name"] == "category"


def test_an_exported_pool_read_back_takes_its_golden_answers(tmp_path):
    """Our own task file, once annotated, reads back: the ground truth is no vote."""
    from rucola.annotation.export import export_pool, read_controls

    tasks = pd.DataFrame({"id": ["a", "b", "c", "d"], "sentence": ["А.", "Б.", "В.", "Г."]})
    export_pool(1, tasks, read_controls(CONTROLS, FORM), tmp_path, page_size=5,
                controls_per_page=1, seed=3, form=FORM)  # fmt: skip
    pool = json.loads((tmp_path / "stage1_tasks.json").read_text(encoding="utf-8"))
    for n, task in enumerate(pool):
        task.setdefault("annotations", []).append(annotation(100 + n, 7, ["no"]))
    votes = read_export(write(tmp_path / "done.json", pool), 1, form=FORM)
    assert len(votes) == 5 and set(votes["worker"]) == {"7"}
    control = votes[votes["golden"].notna()]
    assert len(control) == 1 and control["golden"].iloc[0] in ("0", "1")
    assert votes["seconds"].tolist() == [200.0] * 5  # one page of five answers, 40 s each


# -- back in: the same answers as Toloka's, merged alike ----------------------------------


def simulate(run_cli, project: Path, fmt: str) -> None:
    code, _, stderr = run_cli(
        "annotate", "simulate", "--truth", str(TRUTH), "--out-dir", fmt, "--format", fmt,
        "--workers", "15", "--method", "majority", "--report", f"{fmt}.json", cwd=project,
    )  # fmt: skip
    assert code == 0, stderr


@pytest.fixture
def simulated(run_cli, project) -> Path:
    (project / "params.yaml").write_text(
        identity_yaml(
            f"annotate:\n  controls: [{CONTROLS}]\n  stage1: []\n  stage2: []\n"
            f"screen:\n  out: {TRUTH}\ngenerate:\n  merge:\n    out: {TRUTH}\n"
        ),
        encoding="utf-8",
    )
    for fmt in ("toloka", "label_studio"):
        simulate(run_cli, project, fmt)
    return project


def test_simulate_rejects_an_unknown_format(run_cli, project):
    code, _, stderr = run_cli("annotate", "simulate", "--truth", str(TRUTH), "--format", "csv",
                              cwd=project)  # fmt: skip
    assert code == 1 and "--format: must be 'toloka' or 'label_studio', not 'csv'" in stderr


def test_simulated_export_holds_the_toloka_answers(run_cli, simulated):
    ls_file = simulated / "label_studio/stage1/results.json"
    first = ls_file.read_bytes()
    simulate(run_cli, simulated, "label_studio")
    assert ls_file.read_bytes() == first  # same seed, same bytes
    assert not (simulated / "label_studio/stage1/results.tsv").exists()
    for stage in (1, 2):
        folder = [simulated / f"toloka/stage{stage}"]
        toloka = read_stage1(folder) if stage == 1 else read_stage2(folder, FORM)
        ls = read_export(simulated / f"label_studio/stage{stage}/results.json", stage, form=FORM)
        assert ls.columns.tolist() == VOTE_COLUMNS
        assert ls.dtypes.equals(toloka.dtypes)
        for column in ("task", "sentence", "label", "golden"):
            assert ls[column].fillna("-").tolist() == toloka[column].fillna("-").tolist()
        # one Label Studio user per worker, one page per assignment, the page's seconds
        assert (
            len(set(zip(ls["worker"], toloka["worker"], strict=True))) == toloka["worker"].nunique()
        )
        pairs = set(zip(ls["assignment"], toloka["assignment"], strict=True))
        assert len(pairs) == len(toloka)  # every annotation its own assignment
        answered = ls["status"] == "ACCEPTED"
        assert ls.loc[answered, "seconds"].tolist() == toloka.loc[answered, "seconds"].tolist()
        assert (toloka.loc[~answered, "status"] == "EXPIRED").all()
        assert (ls.loc[~answered, "status"] == "CANCELLED").all()
        assert ls.loc[~answered, "label"].isna().all()


@pytest.mark.slow  # a simulated crowd through both exports: about 50 s
def test_label_studio_and_toloka_answers_merge_alike(simulated):
    def votes(fmt: str, stage: int) -> pd.DataFrame:
        if fmt == "toloka":
            folder = [simulated / f"toloka/stage{stage}"]
            return read_stage1(folder) if stage == 1 else read_stage2(folder, FORM)
        return read_export(simulated / f"label_studio/stage{stage}/results.json", stage, form=FORM)

    toloka = merge_votes(votes("toloka", 1), votes("toloka", 2), method="majority", **OPTIONS)
    ls = merge_votes(votes("label_studio", 1), votes("label_studio", 2), method="majority",
                     **OPTIONS)  # fmt: skip
    pd.testing.assert_frame_equal(ls.tasks, toloka.tasks)
    assert ls.tasks["status"].eq("labelled").sum() > 50
    counts, expected = ls.stage1.counts(), toloka.stage1.counts()
    cancelled = counts["dropped_by_reason"].pop("status_cancelled")
    assert cancelled == expected["dropped_by_reason"].pop("status_expired") > 0
    assert counts == expected and counts["dropped_by_reason"]["fast_page"] > 0
    # crowd-kit's models depend on the order of worker ids: the same labels, the
    # confidences only close
    for method in ("dawid_skene", "wawa", "glad"):
        a = merge_votes(votes("label_studio", 1), votes("label_studio", 2), method=method,
                        **OPTIONS).tasks  # fmt: skip
        b = merge_votes(votes("toloka", 1), votes("toloka", 2), method=method, **OPTIONS).tasks
        for column in ("label", "error_type", "status", "reason"):
            assert a[column].equals(b[column]), (method, column)


@pytest.mark.slow
def test_cli_merge_reads_label_studio_exports(run_cli, simulated):
    args = ["annotate", "merge", "--out", "{}.parquet", "--report", "merged-{}/report.json"]
    for fmt in ("toloka", "label_studio"):
        code, stdout, stderr = run_cli(
            *(a.format(fmt) for a in args), "--stage1", f"{fmt}/stage1", "--stage2",
            f"{fmt}/stage2", cwd=simulated,
        )  # fmt: skip
        assert code == 0, stderr
    assert "status_cancelled" in stdout
    ls, toloka = (read_parquet(simulated / f"{fmt}.parquet") for fmt in ("label_studio", "toloka"))
    pd.testing.assert_frame_equal(ls, toloka)

    # a task the pool never held: one line naming the file and the task
    path = simulated / "label_studio/stage1/results.json"
    tasks = json.loads(path.read_text(encoding="utf-8"))
    stray = next(t for t in tasks if not t["data"]["control"])  # controls carry answers
    stray["data"]["id"] = "stray-id"
    write(path, tasks)
    code, _, stderr = run_cli(*(a.format("x") for a in args), "--stage1", "label_studio/stage1",
                              cwd=simulated)  # fmt: skip
    assert code == 1
    assert "results.json: task 'stray-id': task was never exported" in stderr
    assert not (simulated / "x.parquet").exists()


def test_the_hand_example_reads_the_same_from_label_studio(tmp_path, hand_export):
    toloka = read_stage1([hand_export])
    path = tmp_path / "hand.json"
    write_export(toloka, path, 1)
    ls = read_export(path, 1, form=FORM)
    expected = merge_votes(toloka, None, method="majority", **OPTIONS)
    result = merge_votes(ls, None, method="majority", **OPTIONS)
    pd.testing.assert_frame_equal(result.tasks, expected.tasks)
    assert result.stage1.counts()["dropped_by_reason"] == {
        "low_control_accuracy": 1,
        "not_sure": 1,
        "status_cancelled": 1,  # HAND's expired assignment
    }
    assert len(ls) == len(HAND) and ls["seconds"].isna().all()  # no times: no speed filter


# -- the rules of the reader ----------------------------------------------------------


def test_ground_truth_cancelled_and_lead_time(tmp_path):
    tasks = [
        ls_task(1, "t1", [annotation(1, 5, ["no"], lead_time=3), annotation(2, 6, ["yes"])],
                page=1),
        ls_task(2, "c1", [annotation(3, 1, ["yes"], ground_truth=True),
                          annotation(4, 5, ["yes"], lead_time=4),
                          annotation(5, 6, ["yes"], lead_time=30)], page=1),
        ls_task(3, "t2", [annotation(6, 5, [], cancelled=True, lead_time=99),
                          annotation(7, 6, ["not sure"])], page=1),
        ls_task(4, "c2", [annotation(8, 6, ["no"])], page=2, control=True,
                golden={"violation": "no"}),
        ls_task(5, "t3", [annotation(9, 6, ["No"], lead_time=2)]),
    ]  # fmt: skip
    path = write(tmp_path / "export.json", tasks)
    votes = read_export(path, 1, form=FORM)
    assert votes["task"].tolist() == ["t1", "t1", "c1", "c1", "t2", "t2", "c2", "t3"]
    assert votes["label"].fillna("-").tolist() == ["1", "0", "0", "0", "-", "not_sure", "1", "1"]
    assert votes["golden"].fillna("-").tolist() == ["-", "-", "0", "0", "-", "-", "1", "-"]
    assert votes["status"].tolist() == ["ACCEPTED"] * 4 + ["CANCELLED"] + ["ACCEPTED"] * 3
    # worker 5's page 1: 3 + 4 s (the skipped task's time is no answer's); worker 6: 110 s
    assert votes["seconds"].fillna(-1).tolist() == [7, 110, 7, 110, 7, 110, 40, -1]
    assert votes["assignment"].tolist() == [f"{path}#{n}" for n in (1, 2, 4, 5, 6, 7, 8, 9)]
    assert votes["origin"].iloc[0] == f"{path}: task t1 annotation 1"
    assert (votes["line"] == 0).all() and votes["started"].isna().all()

    result = merge_votes(votes, None, method="majority", **OPTIONS)
    fates = dict(zip(result.stage1.votes["assignment"], result.stage1.votes["fate"], strict=True))
    assert [fates[f"{path}#{n}"] for n in (1, 2, 4, 6, 7, 9)] == [
        "fast_page", "used", "fast_page", "status_cancelled", "not_sure", "used",
    ]  # fmt: skip
    assert result.stage1.counts()["dropped_by_reason"]["status_cancelled"] == 1


def test_stage2_labels_and_golden(tmp_path):
    tasks = [
        ls_task(1, "t1", [annotation(1, 5, ["semantics", "syntax"], from_name="category"),
                          annotation(2, 6, ["syntax", "not_sure"], from_name="category"),
                          annotation(3, 7, [], from_name="category")]),
        ls_task(2, "c1", [annotation(4, 5, ["morphology"], from_name="category")],
                control=True, golden={"morphology": "true", "syntax": "false"}),
    ]  # fmt: skip
    votes = read_export(write(tmp_path / "s2.json", tasks), 2, form=FORM)
    assert votes["label"].tolist() == ["syntax|semantics", "not_sure", "", "morphology"]
    assert votes["golden"].fillna("-").tolist() == ["-", "-", "-", "morphology"]


def test_annotations_without_ids_are_still_apart(tmp_path):
    answers = [annotation(1, 5, ["no"]), annotation(2, 6, ["yes"])]
    for answer in answers:
        del answer["id"]
    votes = read_export(write(tmp_path / "bare.json", [ls_task(8, "t1", answers)]), 1, form=FORM)
    assert votes["assignment"].str.endswith(("#8.1", "#8.2")).all()
    assert votes["assignment"].is_unique


def test_completed_by_as_int_dict_and_str(tmp_path):
    tasks = [
        ls_task(1, "t1", [annotation(1, 7, ["no"]), annotation(2, "anna", ["no"])], page=1),
        ls_task(2, "t2", [annotation(3, {"id": 7, "email": "a@example.org"}, ["yes"]),
                          annotation(4, {"email": "b@example.org"}, ["yes"])], page=1),
    ]  # fmt: skip
    votes = read_export(write(tmp_path / "users.json", tasks), 1, form=FORM)
    assert votes["worker"].tolist() == ["7", "anna", "7", "b@example.org"]
    assert votes["seconds"].tolist() == [80.0, 40.0, 80.0, 40.0]  # user 7 is one worker


def test_a_control_need_not_be_in_the_current_golden_set(tmp_path):
    """A control carries its golden answer; only sentences to label must be candidates."""
    tasks = [ls_task(1, "c-retired", [annotation(1, 5, ["no"])], control=True,
                     golden={"violation": "no"}),
             ls_task(2, "c000", [annotation(2, 5, ["no"])])]  # fmt: skip
    votes = read_export(write(tmp_path / "old.json", tasks), 1, form=FORM)
    assert votes["golden"].fillna("-").tolist() == ["1", "-"]
    write_parquet(candidates(2), tmp_path / "today.parquet")  # c000 and c001
    pools = Pools(tmp_path / "today.parquet", tmp_path / "every.parquet")
    result = merge_votes(votes, None, method="majority", pools=pools, **OPTIONS)  # no error
    assert result.tasks["id"].tolist() == ["c000"]


@pytest.mark.parametrize(
    ("tasks", "message"),
    [
        ([ls_task(1, "t1", [annotation(1, 5, ["no"], from_name="verdict")])],
         "task 't1': unknown from_name 'verdict' in annotation 1"),
        ([ls_task(1, "t1", [annotation(1, 5, ["maybe"])])],
         "task 't1': unknown choice 'maybe' in annotation 1"),
        ([ls_task(1, "t1", [annotation(1, 5, ["no", "yes"])])],
         "task 't1': 2 choices in annotation 1"),
        ([ls_task(1, "t1", [annotation(1, 5, [])])], "task 't1': no choice in annotation 1"),
        ([ls_task(1, "t1", [annotation(1, None, ["no"])])],
         "task 't1': annotation 1 has no completed_by"),
        ([ls_task(1, "c1", [annotation(1, 5, ["no"])], control=True, golden={"violation": "x"})],
         "task 'c1': unknown choice 'x' in data.golden"),
        ([{"id": 4, "data": {"sentence": "Без id."}, "annotations": []}],
         "Label Studio task 4 has no data.id"),
        ({"tasks": []}, "not a Label Studio export: expected a JSON list of tasks"),
        ([], "no answers: the export holds no annotations"),
    ],
)  # fmt: skip
def test_malformed_exports_name_the_file_and_task(tmp_path, tasks, message):
    path = write(tmp_path / "bad.json", tasks)
    with pytest.raises(RucolaError) as info:
        read_export(path, 1, form=FORM)
    assert info.value.path == str(path)
    assert message in info.value.message


def test_not_json_and_stage2_names(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('[{"id": 1,\n', encoding="utf-8")
    with pytest.raises(RucolaError, match="not valid JSON") as info:
        read_export(path, 1, form=FORM)
    assert info.value.path == str(path)
    stage1 = write(tmp_path / "s1.json", [ls_task(1, "t1", [annotation(1, 5, ["no"])])])
    with pytest.raises(RucolaError, match="unknown from_name 'violation'.*'category'"):
        read_export(stage1, 2, form=FORM)
    with pytest.raises(RucolaError, match="unknown choice 'no'"):
        read_export(
            write(tmp_path / "s2.json", [ls_task(1, "t1", [annotation(1, 5, ["no"],
                                                                       from_name="category")])]),
            2,
            form=FORM,
        )  # fmt: skip
