"""``rucola audit import``: a Label Studio export of the review in, an errata file out."""

from __future__ import annotations

import csv
import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest
from identity import identity_yaml, rucola_categories
from review_cases import annotation, data, rucola_project, task, write_export, write_queue

from rucola.curation.review_answers import read_review

ERRATA_HEADER = "split,domain,id,field,new,reason,old\n"
QUEUE_FILE = "data/interim/audit.parquet"  # audit.out by default


def queue_row(task_data: dict[str, Any], kind: str = "likely_label_error") -> tuple:
    """The audit queue's row a task was exported from."""
    d = task_data
    return (kind, d["split"], d["domain"], d["id"], d["sentence"], d["label"],
            d["error_type"], 0.5, "P(label 1) = 0.5", None)  # fmt: skip


def write_review(folder: Path, tasks: list[dict], queued: list[dict] | None = None) -> Path:
    """The export (``export.json``) and the audit queue it came from, at ``audit.out``: a
    row per task as exported, or one per task data of ``queued``."""
    rucola_project(folder)
    rows = [queue_row(d) for d in (queued if queued is not None else [t["data"] for t in tasks])]
    (folder / QUEUE_FILE).parent.mkdir(parents=True, exist_ok=True)
    write_queue(folder / QUEUE_FILE, rows)
    return write_export(folder / "export.json", tasks)


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
    write_review(tmp_path, review_export())
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
        "next: move errata.csv into a folder of errata, `rucola salt` it, name the folder in "
        "extract.errata and `dvc add` it (never git: it may name test rows)",
    ]


def test_errata_written_into_a_folder_salt_it_once(run_cli, tmp_path):
    """Issue 32, 2: the folder of an errata file is salted, so that its hash in dvc.lock or
    a .dvc file cannot be recomputed from a guess of the file; a second import keeps the
    salt (a new one would change every hash for nothing)."""
    write_review(tmp_path, review_export())
    code, stdout, stderr = run_cli("audit", "import", "export.json", "--out",
                                   "errata/review.csv", cwd=tmp_path)  # fmt: skip
    assert code == 0, stderr
    salt = tmp_path / "errata/rucola-salt"
    first = salt.read_bytes()
    assert len(first) >= 32 and "salted errata" in stdout
    assert "next: name errata (salted) in extract.errata" in stdout
    code, stdout, stderr = run_cli("audit", "import", "export.json", "--out",
                                   "errata/review.csv", cwd=tmp_path)  # fmt: skip
    assert code == 0, stderr
    assert salt.read_bytes() == first and "salted" not in stdout.split("next:")[0]


def test_errata_folder_whose_name_git_reads_as_a_pattern_stays_out_of_git(run_cli, tmp_path):
    """The folder's entry is escaped (``/err\\[1\\]``): unescaped, git ignored ``err1``
    and showed the errata and the salt as untracked, one ``git add -A`` from a commit."""
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    write_review(tmp_path, review_export())
    code, _, stderr = run_cli("audit", "import", "export.json", "--out",
                              "data/raw/err[1]/review.csv", cwd=tmp_path)  # fmt: skip
    assert code == 0, stderr
    assert (tmp_path / "data/raw/.gitignore").read_text(encoding="utf-8") == "/err\\[1\\]\n"
    status = subprocess.run(["git", "status", "--porcelain", "-uall"], cwd=tmp_path,
                            capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert "err[1]/" not in status and "data/raw/.gitignore" in status


def test_a_rule_hiding_the_errata_folders_dvc_file_is_refused_before_writing(run_cli, tmp_path):
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    write_review(tmp_path, review_export())
    (tmp_path / "data/raw").mkdir(parents=True)
    (tmp_path / "data/raw/.gitignore").write_text("/*\n", encoding="utf-8")
    code, stdout, stderr = run_cli("audit", "import", "export.json", "--out",
                                   "data/raw/errata/review.csv", cwd=tmp_path)  # fmt: skip
    assert code == 1 and stdout == ""
    assert "data/raw/errata.dvc" in stderr and len(stderr.strip().splitlines()) == 1
    assert not (tmp_path / "data/raw/errata").exists()
    assert (tmp_path / "data/raw/.gitignore").read_text(encoding="utf-8") == "/*\n"


def test_the_same_answers_in_any_order_give_the_same_bytes(run_cli, tmp_path):
    tasks = review_export()
    write_review(tmp_path, tasks)
    assert run_cli("audit", "import", "export.json", "--out", "errata.csv", cwd=tmp_path)[0] == 0
    first = (tmp_path / "errata.csv").read_bytes()
    shuffled = [dict(t, annotations=random.Random(1).sample(t["annotations"],
                                                            len(t["annotations"])))
                for t in random.Random(0).sample(tasks, len(tasks))]  # fmt: skip
    write_review(tmp_path, shuffled)
    assert run_cli("audit", "import", "export.json", "--out", "errata.csv", cwd=tmp_path)[0] == 0
    assert (tmp_path / "errata.csv").read_bytes() == first
    assert first.decode("utf-8").startswith(ERRATA_HEADER)


def test_a_keep_everywhere_writes_an_empty_errata_file(run_cli, tmp_path):
    write_review(tmp_path, [task(data(), annotation(2, "keep"))])
    code, stdout, _ = run_cli("audit", "import", "export.json", "--out", "errata.csv",
                              cwd=tmp_path)  # fmt: skip
    assert code == 0
    assert (tmp_path / "errata.csv").read_text(encoding="utf-8") == ERRATA_HEADER
    assert "decided keep 1; 0 undecided" in stdout


def test_an_export_without_answers_is_refused(run_cli, tmp_path):
    write_review(tmp_path, [task(data()), task(data(id=4), id=2)])
    code, _, stderr = run_cli("audit", "import", "export.json", "--out", "errata.csv",
                              cwd=tmp_path)  # fmt: skip
    assert code == 1 and "no answers" in stderr
    assert not (tmp_path / "errata.csv").exists()


def test_the_undecided_list_cannot_be_the_errata_file(run_cli, tmp_path):
    write_review(tmp_path, review_export())
    code, _, stderr = run_cli("audit", "import", "export.json", "--out", "e.csv", "--undecided",
                              "e.csv", cwd=tmp_path)  # fmt: skip
    assert code == 1 and "--undecided names the errata file itself" in stderr


def test_the_params_categories_are_the_ones_accepted(run_cli, tmp_path):
    (tmp_path / "params.yaml").write_text(
        identity_yaml("corpus:\n  categories:\n    in_domain: [Syntax, Semantics, Grammar]\n"),
        encoding="utf-8",
    )
    write_review(tmp_path,
                 [task(data(label=0, error_type="Syntax"),
                       annotation(2, "change category", "Grammar"))])  # fmt: skip
    code, _, stderr = run_cli("audit", "import", "export.json", "--out", "errata.csv",
                              cwd=tmp_path)  # fmt: skip
    assert code == 0, stderr
    assert read_rows(tmp_path / "errata.csv")[1][3:5] == ["error_type", "Grammar"]


def test_the_reader_keeps_one_answer_per_reviewer(tmp_path):
    path = write_export(tmp_path / "export.json", review_export())
    tasks = {t.name: t for t in read_review(path, rucola_categories().all())}
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
    [one] = read_review(path, rucola_categories().all())
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

    write_review(tmp_path, review_export())
    assert run_cli("audit", "import", "export.json", "--out", "errata.csv", cwd=tmp_path)[0] == 0
    errata = read_errata_file(str(tmp_path / "errata.csv"), ErrataOptions(rucola_categories()))
    assert [(e.split, e.domain, e.id, e.field, e.new, e.old, e.line) for e in errata] == [
        ("train", "in_domain", 3, "label", 0, "1", 2),
        ("train", "in_domain", 3, "error_type", "Syntax", None, 3),
        ("train", "in_domain", 20, "error_type", "Morphology", "Syntax", 4),
        ("validation", "out_of_domain", 0, "sentence", "Он пошёл в магазин.",
         "Он пошёл в магазин ,", 5),
        ("test", "in_domain", 7, "remove", None, "Мальчик спит.", 6),
    ]  # fmt: skip


# -- errata the build would refuse are undecided, never written ---------------------------


def test_a_decision_on_a_row_the_queue_does_not_hold_is_undecided(run_cli, tmp_path):
    """An unknown id (a task the audit queue never held) and a row that changed since the
    export (the erratum would be stale) are undecided; the queue is ``audit.out`` or
    ``--queue``."""
    tasks = review_export()
    queued = [dict(t["data"]) for t in tasks if t["data"]["id"] != 3]  # train/in_domain/3 gone
    queued[0]["sentence"] = "Он пошёл в магазин."  # validation/out_of_domain/0, fixed since
    queued[1]["domain"] = "out_of_domain"  # test/in_domain/7 is another test row 7 now
    write_review(tmp_path, tasks, queued)
    code, stdout, stderr = run_cli("audit", "import", "export.json", "--out", "errata.csv",
                                   "--undecided", "undecided.csv", cwd=tmp_path)  # fmt: skip
    assert code == 0, stderr
    assert read_rows(tmp_path / "errata.csv")[1:] == [EXPECTED[2]]  # only train/in_domain/20
    assert stdout.splitlines()[2:-2] == [
        "undecided train/in_domain/3: relabel by 2 of 3, but unknown id: train/in_domain/3 is "
        f"not a row of the audit queue {QUEUE_FILE}",
        "undecided train/in_domain/12: a tie: keep 1, remove 1",
        "undecided validation/out_of_domain/0: fix text by 2 of 3, but the row changed since "
        "the export: its sentence is 'Он пошёл в магазин.' in the audit queue "
        f"{QUEUE_FILE}, 'Он пошёл в магазин ,' in the export (the erratum would be stale)",
        "undecided test/in_domain/7: remove by 2 of 2, but the row changed since the export: "
        f"its domain is 'out_of_domain' in the audit queue {QUEUE_FILE}, 'in_domain' in the "
        "export (the erratum would be stale)",
    ]
    assert len(read_rows(tmp_path / "undecided.csv")) == 1 + 4
    # --queue names the queue the tasks came from instead
    write_queue(tmp_path / "mine.parquet", [queue_row(t["data"]) for t in tasks])
    code, stdout, stderr = run_cli("audit", "import", "export.json", "--out", "errata.csv",
                                   "--queue", "mine.parquet", cwd=tmp_path)  # fmt: skip
    assert code == 0, stderr
    assert read_rows(tmp_path / "errata.csv")[1:] == EXPECTED


SENTENCE = "Мальчик спит."  # data()'s
# (the task's data, its one answer, what the undecided line says after "<decision> by 1 of 1")
REFUSED = {
    "NUL": (data(), ("fix text", None, "Мальчик\x00 спит!"), "the corrected text holds U+0000 NUL"),
    "a terminal escape": (data(), ("fix text", None, "Мальчик \x1b[31mспит!"),
                          "the corrected text holds U+001B ESC"),
    "a C1 escape": (data(), ("fix text", None, "Мальчик \x9b31mспит!"),
                    "the corrected text holds U+009B C1 control"),
    "an information separator": (data(), ("fix text", None, "Мальчик\x1fспит!"),
                                 "the corrected text holds U+001F US"),
    **{f"U+{ord(c):04X}": (data(), ("fix text", None, f"Мальчик {c}спит!"),
                           f"the corrected text holds U+{ord(c):04X} ")
       for c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"},
    "a comment with a terminal escape": (
        data(), ("remove", None, None, "see \x1b]8;;http://x\x07here"),
        "the reason (the deciding reviewers' comments) holds U+001B ESC, U+0007 BEL"),
    "a text of invisible characters only": (data(), ("fix text", None, "\u200b\u2060"),
                                            "no corrected text was written"),
    "a relabel to 0 keeping the row's category": (
        data(label=1, error_type="Syntax"), ("relabel", "Syntax"),
        "the row already has category Syntax, and the split takes neither an error_type "
        "erratum that changes nothing nor a relabel to 0 without one"),
}  # fmt: skip


def _answer(decision: str, category=None, text=None, comment=None) -> dict:
    return annotation(2, decision, category, text, comment)


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_an_erratum_the_build_would_refuse_is_undecided(run_cli, tmp_path, case):
    """Exit 0, no erratum written, the task listed undecided with why (each case is one
    ``corpus.errata`` refuses: see the test below)."""
    task_data, answer, why = REFUSED[case]
    write_review(tmp_path, [task(task_data, _answer(*answer))])
    code, stdout, stderr = run_cli("audit", "import", "export.json", "--out", "errata.csv",
                                   cwd=tmp_path)  # fmt: skip
    assert code == 0, stderr
    assert (tmp_path / "errata.csv").read_text(encoding="utf-8") == ERRATA_HEADER
    [line] = [x for x in stdout.splitlines() if x.startswith("undecided ")]
    assert line.startswith(f"undecided train/in_domain/3: {answer[0]} by 1 of 1, but "), line
    assert why in line


def test_a_text_that_is_the_sentence_once_normalised_changes_nothing(run_cli, tmp_path):
    """The split normalises the corrected text (NFC, invisible characters dropped) and
    refuses an erratum that changes nothing: decided, without an erratum."""
    for text in ("Мальчик\u200b спит.", "\ufeffМальчик спит.", "Мальчик\u00ad спит."):
        write_review(tmp_path, [task(data(sentence=SENTENCE), _answer("fix text", None, text))])
        code, stdout, stderr = run_cli("audit", "import", "export.json", "--out", "errata.csv",
                                       cwd=tmp_path)  # fmt: skip
        assert code == 0, stderr
        assert read_rows(tmp_path / "errata.csv")[1:] == [], text
        assert "1 decided without a change" in stdout


def _split_rows(tasks: list[dict]) -> Any:
    """The rows the tasks were exported from as the split stage holds them (published)."""
    import pandas as pd

    columns = ["split", "domain", "id", "sentence", "label", "error_type"]
    frame = pd.DataFrame([{c: t["data"][c] for c in columns} for t in tasks])
    frame["pinned_split"] = frame["split"]
    return frame


def _apply(path: Path, tasks: list[dict]) -> Any:
    """What the split stage does with an errata file: read it, check and apply it."""
    from rucola.corpus.errata import ErrataOptions, apply_errata, read_errata_file

    options = ErrataOptions(rucola_categories(), paths=(str(path),))
    return apply_errata(_split_rows(tasks), read_errata_file(str(path), options), set(), options)


def test_every_erratum_import_writes_the_split_applies(run_cli, tmp_path):
    tasks = review_export()
    write_review(tmp_path, tasks)
    assert run_cli("audit", "import", "export.json", "--out", "errata.csv", cwd=tmp_path)[0] == 0
    applied = _apply(tmp_path / "errata.csv", tasks)
    assert applied.report["errata"] == len(EXPECTED)


@pytest.mark.parametrize("case", sorted(set(REFUSED) - {"a comment with a terminal escape"}))
def test_what_import_leaves_undecided_the_split_refuses(tmp_path, case):
    """The erratum the import would have written for each case of ``REFUSED`` (the text as
    the reviewer typed it) is one the split stage refuses: the import mirrors its rules."""
    from rucola.errors import RucolaError

    task_data, answer, _ = REFUSED[case]
    reason = "review: x by 1 of 1"
    if answer[0] == "fix text":
        lines = [["sentence", answer[2], SENTENCE]]
    else:  # the relabel to 0 with the category the row has
        lines = [["label", "0", "1"], ["error_type", answer[1], task_data["error_type"]]]
    with open(tmp_path / "errata.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["split", "domain", "id", "field", "new", "reason", "old"])
        writer.writerows(["train", "in_domain", "3", f, new, reason, old] for f, new, old in lines)
    with pytest.raises(RucolaError):
        _apply(tmp_path / "errata.csv", [task(task_data)])


@pytest.mark.parametrize("text", ["Мальчик\u200b спит.", "\ufeffМальчик спит."])
def test_the_split_refuses_a_text_that_is_the_sentence_once_normalised(tmp_path, text):
    from rucola.errors import RucolaError

    (tmp_path / "errata.csv").write_text(
        f"{ERRATA_HEADER}train,in_domain,3,sentence,{text},r,{SENTENCE}\n", encoding="utf-8"
    )
    with pytest.raises(RucolaError, match="changes nothing"):
        _apply(tmp_path / "errata.csv", [task(data())])
