"""``rucola audit import``: a Label Studio export of the review in, an errata file out."""

from __future__ import annotations

import csv
import json
import random

from review_cases import annotation, data, task, write_export

from rucola.curation.review_answers import read_review
from rucola.settings import Params

ERRATA_HEADER = "split,domain,id,field,new,reason,old\n"


def review_export() -> list[dict]:
    """Six tasks, every case of the import once."""
    return [
        # relabel 1 -> 0 by two of three, with their category; users as ints (current exports)
        task(data("train", "in_domain", 3, label=1),
             annotation(2, "relabel", "Syntax"), annotation(3, "relabel", "Syntax"),
             annotation(4, "keep"), id=1),
        # a text fix by two of three, spaced differently; users as dicts (older exports)
        task(data("validation", "out_of_domain", 0, "Он пошёл в магазин ,", 1),
             annotation({"id": 2, "email": "r1@x"}, "fix text", text="Он пошёл в магазин.",
                        comment="a stray comma"),
             annotation({"id": 3, "email": "r2@x"}, "fix text", text=" Он пошёл  в магазин. "),
             annotation({"id": 4, "email": "r3@x"}, "keep"), id=2),
        # a removal: the second reviewer changed their mind (their last annotation counts)
        task(data("test", "in_domain", 7, "Мальчик спит.", 1),
             annotation(3, "keep", id=50), annotation(2, "remove", comment="leaks into train"),
             annotation(3, "remove", id=51), id=3),
        # a tie: the third reviewer skipped the task
        task(data("train", "in_domain", 12, "Кошка спать.", 1),
             annotation(2, "keep"), annotation(3, "remove"),
             annotation(4, None, cancelled=True), id=4),
        # a change of category by one expert
        task(data("train", "in_domain", 20, "Ихний дом.", 0, "Syntax"),
             annotation(9, "change category", "morphology"), id=5),
        # not answered yet
        task(data("train", "in_domain", 30, "Я читал.", 0, "Semantics"), id=6),
    ]  # fmt: skip


EXPECTED = [
    ["train", "in_domain", "3", "label", "0", "review: relabel by 2 of 3", "1"],
    ["train", "in_domain", "3", "error_type", "Syntax", "review: relabel by 2 of 3", ""],
    ["train", "in_domain", "20", "error_type", "Morphology", "review: change category by 1 of 1",
     "Syntax"],
    ["validation", "out_of_domain", "0", "sentence", "Он пошёл в магазин.", "a stray comma",
     "Он пошёл в магазин ,"],
    ["test", "in_domain", "7", "remove", "", "leaks into train", "Мальчик спит."],
]  # fmt: skip


def read_rows(path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def test_decisions_become_errata_and_ties_are_listed(run_cli, tmp_path):
    write_export(tmp_path / "export.json", review_export())
    code, stdout, stderr = run_cli("audit", "import", "export.json", "--out", "errata.csv",
                                   "--undecided", "undecided.csv", cwd=tmp_path)  # fmt: skip
    assert code == 0, stderr
    rows = read_rows(tmp_path / "errata.csv")
    assert rows[0] == ["split", "domain", "id", "field", "new", "reason", "old"]
    assert rows[1:] == EXPECTED
    assert read_rows(tmp_path / "undecided.csv") == [
        ["split", "domain", "id", "reviewers", "decision", "why", "sentence"],
        ["train", "in_domain", "12", "2", "keep 1, remove 1", "a tie: keep 1, remove 1",
         "Кошка спать."],
    ]  # fmt: skip
    assert stdout.splitlines() == [
        "6 tasks, 5 reviewed (1 without an answer): decided relabel 1, change category 1, "
        "fix text 1, remove 1; 1 undecided (not applied)",
        "5 errata rows -> errata.csv",
        "undecided train/in_domain/12: a tie: keep 1, remove 1",
        "undecided tasks -> undecided.csv",
        "next: name errata.csv in extract.errata and `dvc add` it (never git: it may name test "
        "rows)",
    ]


def test_the_same_answers_in_any_order_give_the_same_bytes(run_cli, tmp_path):
    tasks = review_export()
    write_export(tmp_path / "export.json", tasks)
    assert run_cli("audit", "import", "export.json", "--out", "errata.csv", cwd=tmp_path)[0] == 0
    first = (tmp_path / "errata.csv").read_bytes()
    shuffled = [dict(t, annotations=random.Random(1).sample(t["annotations"],
                                                            len(t["annotations"])))
                for t in random.Random(0).sample(tasks, len(tasks))]  # fmt: skip
    write_export(tmp_path / "export.json", shuffled)
    assert run_cli("audit", "import", "export.json", "--out", "errata.csv", cwd=tmp_path)[0] == 0
    assert (tmp_path / "errata.csv").read_bytes() == first
    assert first.decode("utf-8").startswith(ERRATA_HEADER)


def test_a_keep_everywhere_writes_an_empty_errata_file(run_cli, tmp_path):
    write_export(tmp_path / "export.json", [task(data(), annotation(2, "keep"))])
    code, stdout, _ = run_cli("audit", "import", "export.json", "--out", "errata.csv",
                              cwd=tmp_path)  # fmt: skip
    assert code == 0
    assert (tmp_path / "errata.csv").read_text(encoding="utf-8") == ERRATA_HEADER
    assert "decided keep 1; 0 undecided" in stdout


def test_an_export_without_answers_is_refused(run_cli, tmp_path):
    write_export(tmp_path / "export.json", [task(data()), task(data(id=4), id=2)])
    code, _, stderr = run_cli("audit", "import", "export.json", "--out", "errata.csv",
                              cwd=tmp_path)  # fmt: skip
    assert code == 1 and "no answers" in stderr
    assert not (tmp_path / "errata.csv").exists()


def test_the_undecided_list_cannot_be_the_errata_file(run_cli, tmp_path):
    write_export(tmp_path / "export.json", review_export())
    code, _, stderr = run_cli("audit", "import", "export.json", "--out", "e.csv", "--undecided",
                              "e.csv", cwd=tmp_path)  # fmt: skip
    assert code == 1 and "--undecided names the errata file itself" in stderr


def test_the_params_categories_are_the_ones_accepted(run_cli, tmp_path):
    (tmp_path / "params.yaml").write_text(
        "validate:\n  error_types: [Syntax, Semantics, Grammar]\n", encoding="utf-8"
    )
    write_export(tmp_path / "export.json",
                 [task(data(label=0, error_type="Syntax"),
                       annotation(2, "change category", "Grammar"))])  # fmt: skip
    code, _, stderr = run_cli("audit", "import", "export.json", "--out", "errata.csv",
                              cwd=tmp_path)  # fmt: skip
    assert code == 0, stderr
    assert read_rows(tmp_path / "errata.csv")[1][3:5] == ["error_type", "Grammar"]


def test_the_reader_keeps_one_answer_per_reviewer(tmp_path):
    path = write_export(tmp_path / "export.json", review_export())
    tasks = {t.name: t for t in read_review(path, Params().validate.error_types)}
    removal = tasks["test/in_domain/7"].answers
    assert [(x.reviewer, x.decision) for x in removal] == [("2", "remove"), ("3", "remove")]
    assert [x.reviewer for x in tasks["train/in_domain/12"].answers] == ["2", "3"]  # one skipped
    fix = tasks["validation/out_of_domain/0"].answers
    assert [x.text for x in fix] == ["Он пошёл в магазин.", "Он пошёл в магазин.", ""]


def test_a_real_label_studio_export_reads(tmp_path):
    """The exact text of a task Label Studio 1.23.2 exported (``json.dumps`` as it sends it)."""
    real = json.loads(
        '[{"id": 1, "annotations": [{"id": 3, "completed_by": 4, "result": [{"from_name": '
        '"decision", "to_name": "sentence", "type": "choices", "value": {"choices": ["keep"]}}],'
        ' "was_cancelled": false, "ground_truth": false, "created_at": '
        '"2026-11-24T10:59:27.417028Z", "updated_at": "2026-11-24T10:59:27.417046Z", '
        '"draft_created_at": null, "lead_time": null, "prediction": {}, "result_count": 1, '
        '"unique_id": "64404a12-a9c4-4d62-8898-d79d52343fd4", "import_id": null, "last_action":'
        ' null, "bulk_created": false, "task": 1, "project": 1, "updated_by": 4, '
        '"parent_prediction": null, "parent_annotation": null, "last_created_by": null}], '
        '"drafts": [], "predictions": [], "data": {"domain": "in_domain", "error_type": null, '
        '"evidence": "cross_split_duplicate: also in test: test/7", "header": "train", "id": 3,'
        ' "kinds": "cross_split_duplicate", "label": 1, "score": 1.0, "sentence": '
        '"\\u041c\\u0430\\u043b\\u044c\\u0447\\u0438\\u043a \\u0441\\u043f\\u0438\\u0442.", '
        '"split": "train"}, "meta": {}, "created_at": "2026-11-24T10:59:24.870927Z", '
        '"updated_at": "2026-11-24T10:59:27.478418Z", "inner_id": 1, "total_annotations": 1, '
        '"cancelled_annotations": 0, "total_predictions": 0, "comment_count": 0, '
        '"unresolved_comment_count": 0, "last_comment_updated_at": null, "project": 1, '
        '"updated_by": 4, "comment_authors": []}]'
    )
    path = write_export(tmp_path / "export.json", real)
    [one] = read_review(path, Params().validate.error_types)
    assert (one.name, one.sentence, one.label, one.error_type) == (
        "train/in_domain/3",
        "Мальчик спит.",
        1,
        None,
    )
    assert [(x.reviewer, x.decision) for x in one.answers] == [("4", "keep")]


def test_the_errata_file_is_what_the_split_stage_reads(run_cli, tmp_path):
    """The file passes the errata reader of the split stage (``corpus.errata``) line by line."""
    from rucola.corpus.errata import ErrataOptions, read_errata_file

    write_export(tmp_path / "export.json", review_export())
    assert run_cli("audit", "import", "export.json", "--out", "errata.csv", cwd=tmp_path)[0] == 0
    errata = read_errata_file(str(tmp_path / "errata.csv"), ErrataOptions())
    assert [(e.split, e.domain, e.id, e.field, e.new, e.old, e.line) for e in errata] == [
        ("train", "in_domain", 3, "label", 0, "1", 2),
        ("train", "in_domain", 3, "error_type", "Syntax", None, 3),
        ("train", "in_domain", 20, "error_type", "Morphology", "Syntax", 4),
        ("validation", "out_of_domain", 0, "sentence", "Он пошёл в магазин.",
         "Он пошёл в магазин ,", 5),
        ("test", "in_domain", 7, "remove", None, "Мальчик спит.", 6),
    ]  # fmt: skip
