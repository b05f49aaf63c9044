"""Reading exports: the real Toloka layout parses; bad input fails with file and line."""

from __future__ import annotations

from pathlib import Path

import pytest
from annotation_helpers import FORM, HAND, STAGE1_HEADER, stage1_rows, write_tsv

from rucola.annotation.answers import read_stage1, read_stage2
from rucola.annotation.cleaning import clean
from rucola.annotation.toloka import read_toloka
from rucola.annotation.votes import stage1_from_toloka
from rucola.errors import RucolaError

REAL = "toloka/assignments_sample.tsv"


def test_real_export_parses(shared_data):
    frame = read_toloka(shared_data / REAL)
    assert len(frame) == 600
    assert frame["ASSIGNMENT:assignment_id"].nunique() == 120  # pages of five
    assert frame["ASSIGNMENT:worker_id"].nunique() == 38
    assert frame["ASSIGNMENT:task_id"].nunique() == 188
    assert (frame["GOLDEN:R-4"] != "").sum() == 120  # one control per page
    assert "ASSIGNMENT:submitted" not in frame.columns
    # quoted multi-line cells: a record spans five physical lines
    assert frame["INPUT:input"].iloc[0].count("\n") == 4
    assert frame["_line"].tolist()[:3] == [2, 7, 12]


def test_real_export_without_our_field_names_the_missing_column(shared_data):
    frame = read_toloka(shared_data / REAL)
    with pytest.raises(RucolaError, match="missing column INPUT:id") as info:
        stage1_from_toloka(frame, shared_data / REAL)  # its sentences carry no id of ours
    assert info.value.line == 1 and "INPUT:input" in info.value.hint
    frame["INPUT:id"] = frame["ASSIGNMENT:task_id"]
    with pytest.raises(RucolaError, match=r"missing column\(s\) OUTPUT:violation") as info:
        stage1_from_toloka(frame, shared_data / REAL)
    assert info.value.line == 1 and info.value.path.endswith(REAL)
    with pytest.raises(RucolaError, match="unknown answer '2' in OUTPUT:R-4") as info:
        stage1_from_toloka(frame, shared_data / REAL, field="R-4")
    assert info.value.line == 2


def test_real_export_round_trip_with_expired_rows(shared_data, tmp_path):
    """The real layout with our vocabulary: every vote used, a control, or counted."""
    text = (shared_data / REAL).read_text(encoding="utf-8")
    frame = read_toloka(shared_data / REAL)
    scale = {"0": "yes", "1": "yes", "2": "no", "3": "no", "": ""}
    frame["OUTPUT:violation"] = frame["OUTPUT:R-4"].map(scale)
    frame["GOLDEN:violation"] = frame["GOLDEN:R-4"].map(scale)
    frame["INPUT:id"] = frame["ASSIGNMENT:task_id"]  # the real export has no id of ours
    expired = frame["ASSIGNMENT:assignment_id"].isin(
        frame["ASSIGNMENT:assignment_id"].drop_duplicates().iloc[:3]
    )
    frame.loc[expired, "ASSIGNMENT:status"] = "EXPIRED"
    frame.loc[expired, "OUTPUT:violation"] = ""  # expired assignments have empty outputs
    from rucola.annotation.toloka import write_toloka

    path = tmp_path / "ours.tsv"
    write_toloka(frame.drop(columns=["_line"]), path)
    assert text.count("\n") > 600  # the multi-line cells survive the round trip
    votes = read_stage1([path])
    assert len(votes) == 600
    cleaned = clean(votes, min_control_accuracy=0.5, min_page_seconds=30)
    counts = cleaned.counts()
    assert counts["dropped_by_reason"]["status_expired"] == int(expired.sum()) == 15
    assert counts["used"] + counts["control"] + counts["dropped"] == counts["read"] == 600


def _bad(tmp_path: Path, rows: list[list[str]], header: list[str] = STAGE1_HEADER) -> Path:
    return write_tsv(tmp_path / "stage1" / "bad.tsv", header, rows)


def test_missing_column(tmp_path):
    header = [h for h in STAGE1_HEADER if h != "ASSIGNMENT:worker_id"]
    rows = [r[:7] + r[8:] for r in stage1_rows()]
    path = _bad(tmp_path, rows, header)
    with pytest.raises(RucolaError, match=r"missing column\(s\) ASSIGNMENT:worker_id") as info:
        read_stage1([path])
    assert (info.value.path, info.value.line) == (str(path), 1)


def test_unknown_output_value(tmp_path):
    rows = stage1_rows()
    rows[5][2] = "maybe"  # t2's second row; t2's sentences span two lines each
    path = _bad(tmp_path, rows)
    with pytest.raises(RucolaError, match="unknown answer 'maybe' in OUTPUT:violation") as info:
        read_stage1([path])
    assert info.value.line == 8  # header, 4 one-line rows, one two-line row: line 8


def test_duplicated_assignment_id(tmp_path):
    rows = stage1_rows()
    rows.append(list(rows[0]))  # the same assignment answers the same task again
    path = _bad(tmp_path, rows)
    with pytest.raises(RucolaError, match="duplicated assignment id 'a1' for task 't1'") as info:
        read_stage1([path])
    assert info.value.line == 1 + len(HAND) + 4 + 1  # header, rows (four span two lines)
    assert f"{path}:2" in info.value.message


def test_assignment_id_shared_by_two_workers(tmp_path):
    rows = stage1_rows()
    rows[1][6] = "a1"  # w2's row claims w1's assignment
    path = _bad(tmp_path, rows)
    with pytest.raises(RucolaError, match="duplicated assignment id 'a1': worker 'w2'") as info:
        read_stage1([path])
    assert info.value.line == 3


def test_same_worker_answers_a_task_twice_differently(tmp_path):
    rows = stage1_rows()
    again = list(rows[0])
    again[2] = "yes"  # w1 said no to t1 on line 2
    again[6] = "a1-second"  # w1 on t1 in another assignment
    rows.append(again)
    path = _bad(tmp_path, rows)
    with pytest.raises(RucolaError, match="worker 'w1' answered task 't1' twice") as info:
        clean(read_stage1([path]), min_control_accuracy=0.5, min_page_seconds=None)
    assert info.value.line == 1 + len(HAND) + 4 + 1
    assert f"{path}:2" in info.value.message  # the other answer is named too


def test_the_same_file_given_twice_is_refused(tmp_path):
    path = _bad(tmp_path, stage1_rows())
    with pytest.raises(RucolaError, match="duplicated assignment id"):
        read_stage1([path, path])


def test_long_csv_errors_name_the_line(tmp_path):
    path = tmp_path / "votes.csv"
    path.write_text("task,worker,label\nt1,w1,1\nt1,w2,perhaps\n", encoding="utf-8")
    with pytest.raises(RucolaError, match="unknown answer 'perhaps' in label") as info:
        read_stage1([], [path])
    assert (info.value.path, info.value.line) == (str(path), 3)
    path.write_text("task,label\nt1,1\n", encoding="utf-8")
    with pytest.raises(RucolaError, match=r"missing column\(s\) worker"):
        read_stage1([], [path])


def test_stage2_requires_its_fields_and_booleans(tmp_path):
    header = ["INPUT:id", "OUTPUT:syntax", "ASSIGNMENT:assignment_id", "ASSIGNMENT:worker_id"]
    path = write_tsv(tmp_path / "s2.tsv", header, [["t1", "true", "a", "w"]])
    with pytest.raises(RucolaError, match="missing column.*OUTPUT:morphology"):
        read_stage2([path], FORM)


def test_malformed_quoting_names_the_line(tmp_path):
    path = tmp_path / "stage1" / "broken.tsv"
    path.parent.mkdir()
    body = "\t".join(STAGE1_HEADER) + "\n" + "\t".join(stage1_rows()[0]) + "\n"
    path.write_text(body + 't9\t"unterminated\tno\n', encoding="utf-8")
    with pytest.raises(RucolaError) as info:
        read_stage1([path])
    assert info.value.line == 3


@pytest.mark.parametrize(
    "case", ["missing_column", "unknown_value", "duplicated_assignment", "worker_twice"]
)
def test_cli_exits_1_with_file_and_line_and_writes_nothing(run_cli, project, case):
    rows = stage1_rows()
    header = STAGE1_HEADER
    if case == "missing_column":
        header = [h for h in STAGE1_HEADER if h != "OUTPUT:violation"]
        rows = [r[:2] + r[3:] for r in rows]
        where = "bad.tsv:1"
    elif case == "unknown_value":
        rows[0][2] = "да"
        where = "bad.tsv:2"
    elif case == "duplicated_assignment":
        rows.append(list(rows[0]))
        where = f"bad.tsv:{len(HAND) + 6}"
    else:  # w1 answers t1 again, differently (repeated_votes: error)
        rows.append([*rows[0][:2], "yes", *rows[0][3:6], "a-other", *rows[0][7:]])
        where = f"bad.tsv:{len(HAND) + 6}"
    _bad(project, rows, header)
    code, _, stderr = run_cli("annotate", "merge", cwd=project)
    assert code == 1
    assert where in stderr
    assert not (project / "data").exists()
    assert not (project / "reports").exists()


def test_cli_on_the_real_export_names_the_missing_field(run_cli, project, shared_data):
    real = str(shared_data / REAL)
    code, _, stderr = run_cli("annotate", "merge", "--stage1", real, cwd=project)
    assert code == 1
    assert f"{REAL}:1: missing column INPUT:id" in stderr  # no sentence id of ours
    code, _, stderr = run_cli(
        "annotate", "merge", "--stage1", real, "--output-field", "R-4", cwd=project
    )
    assert code == 1
    assert f"{REAL}:1: missing column INPUT:id" in stderr
    assert not (project / "data").exists()


def test_stage2_unknown_value_names_the_line(tmp_path):
    fields = ["morphology", "syntax", "semantics", "hallucination", "other", "no_violation"]
    header = [
        "INPUT:id",
        *(f"OUTPUT:{f}" for f in fields),
        "ASSIGNMENT:assignment_id",
        "ASSIGNMENT:worker_id",
        "ASSIGNMENT:status",
        "ASSIGNMENT:started",
    ]
    ok = ["t1", "true", "false", "false", "false", "false", "false", "a1", "w1", "APPROVED", ""]
    bad = ["t1", "false", "yes", "false", "false", "false", "false", "a2", "w2", "APPROVED", ""]
    path = write_tsv(tmp_path / "s2.tsv", header, [ok, bad])
    with pytest.raises(RucolaError, match="unknown answer 'yes' in OUTPUT:syntax") as info:
        read_stage2([path], FORM)
    assert info.value.line == 3


def test_a_control_shown_twice_to_a_worker_is_allowed(tmp_path):
    rows = [*HAND, ("c1", "w1", "no", "no", "a1-again", "APPROVED")]
    votes = read_stage1([_bad(tmp_path, stage1_rows(rows))])
    cleaned = clean(votes, min_control_accuracy=0.5, min_page_seconds=30)
    assert cleaned.counts()["control"] == 6
    assert cleaned.workers.set_index("worker").loc["w1", "control_answers"] == 2


def test_a_control_id_reused_for_a_sentence_fails(tmp_path):
    rows = [*HAND, ("c1", "w6", "no", "", "a6", "APPROVED")]
    path = _bad(tmp_path, stage1_rows(rows))
    with pytest.raises(RucolaError, match="task 'c1' has no golden answer here") as info:
        read_stage1([path])
    assert info.value.line == 1 + len(HAND) + 4 + 1
