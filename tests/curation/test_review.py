"""``rucola audit export`` and the review's decisions: tasks, configuration, majorities."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from identity import identity_yaml, rucola_categories
from review_cases import QUEUE, rucola_project, write_queue

from rucola.curation.decisions import decide
from rucola.curation.review_answers import Answer, ReviewTask
from rucola.curation.review_config import DECISIONS, NO_CATEGORY, review_config

ERROR_TYPES = rucola_categories().all()


def export(run_cli, folder: Path, *options: str) -> list[dict]:
    rucola_project(folder)
    code, stdout, stderr = run_cli("audit", "export", "--input", "audit.parquet", "--out",
                                   "review", *options, cwd=folder)  # fmt: skip
    assert code == 0, stderr
    return json.loads((folder / "review/tasks.json").read_text(encoding="utf-8"))


# -- the configuration -------------------------------------------------------------------


def test_the_config_offers_every_decision_and_category_and_two_text_areas():
    view = ET.fromstring(review_config(ERROR_TYPES))
    texts = {t.get("name") for t in view.iter("Text")}
    controls = [*view.iter("Choices"), *view.iter("TextArea")]
    assert {c.get("toName") for c in controls} <= texts
    names = [c.get("name") for c in controls]
    assert sorted(names) == ["category", "comment", "decision", "text"]
    choices = {c.get("name"): [x.get("value") for x in c] for c in view.iter("Choices")}
    assert choices["decision"] == list(DECISIONS)
    assert choices["category"] == [*ERROR_TYPES, NO_CATEGORY]
    decision = next(c for c in view.iter("Choices") if c.get("name") == "decision")
    assert decision.get("choice") == "single" and decision.get("required") == "true"
    # the category and the corrected text show only for the decisions that need them
    shown = {
        child.get("name"): view_.get("whenChoiceValue")
        for view_ in view.iter("View")
        if view_.get("visibleWhen") == "choice-selected"
        for child in view_
        if child.get("name")
    }
    assert shown == {"category": "relabel,change category", "text": "fix text"}
    headers = [h.get("value") for h in view.iter("Header")]
    assert "$header" in headers


def test_the_config_follows_the_params_categories():
    view = ET.fromstring(review_config(["Syntax", "Semantics"]))
    category = next(c for c in view.iter("Choices") if c.get("name") == "category")
    assert [x.get("value") for x in category] == ["Syntax", "Semantics", "none"]


# -- the export --------------------------------------------------------------------------


def test_one_task_per_row_kinds_and_evidence_joined(run_cli, tmp_path):
    write_queue(tmp_path / "audit.parquet")
    tasks = export(run_cli, tmp_path)
    names = [(t["data"]["split"], t["data"]["id"]) for t in tasks]
    # queue order: kinds in order, most suspicious first; train 3 once, at its first place
    assert names == [("train", 3), ("test", 7), ("train", 30), ("train", 12),
                     ("validation", 0), ("train", 20)]  # fmt: skip
    first = tasks[0]["data"]
    assert first["kinds"] == "cross_split_duplicate, likely_label_error"
    assert first["evidence"] == (
        "cross_split_duplicate: also in test: test/7 | likely_label_error: P(label 1) = 0.5"
    )
    assert first["score"] == 1.0
    assert set(first) == {"split", "domain", "id", "sentence", "label", "error_type", "kinds",
                          "evidence", "score", "header"}  # fmt: skip
    assert first["error_type"] is None and first["label"] == 1
    assert "label 1 (acceptable), category none" in first["header"]
    assert all(set(t) == {"data"} for t in tasks)
    config = (tmp_path / "review/review_config.xml").read_text(encoding="utf-8")
    assert config == review_config(ERROR_TYPES)


def test_top_n_per_kind(run_cli, tmp_path):
    write_queue(tmp_path / "audit.parquet")
    (tmp_path / "params.yaml").write_text(
        identity_yaml("audit:\n  export:\n    top: 1\n"), encoding="utf-8"
    )
    tasks = export(run_cli, tmp_path)
    assert [(t["data"]["split"], t["data"]["id"], t["data"]["kinds"]) for t in tasks] == [
        ("train", 3, "cross_split_duplicate"),
        ("train", 30, "conflicting_duplicate"),
        ("train", 12, "likely_label_error"),
        ("train", 20, "category_mismatch"),
    ]


def test_the_same_queue_in_any_order_gives_the_same_bytes(run_cli, tmp_path):
    write_queue(tmp_path / "audit.parquet")
    export(run_cli, tmp_path)
    first = (tmp_path / "review/tasks.json").read_bytes()
    write_queue(tmp_path / "audit.parquet", list(reversed(QUEUE)))
    export(run_cli, tmp_path)  # replaces its own folder
    assert (tmp_path / "review/tasks.json").read_bytes() == first
    assert sorted(p.name for p in (tmp_path / "review").iterdir()) == [
        ".rucola-output.json", "review_config.xml", "tasks.json"
    ]  # fmt: skip


def test_an_empty_queue_gives_no_tasks(run_cli, tmp_path):
    write_queue(tmp_path / "audit.parquet", [])
    assert export(run_cli, tmp_path) == []


def test_an_unlabelled_test_row_keeps_its_null_domain(run_cli, tmp_path):
    row = ("cross_split_duplicate", "test", None, 9, "Тест.", -1, None, 1.0, "x", "g")
    write_queue(tmp_path / "audit.parquet", [row])
    [task] = export(run_cli, tmp_path)
    assert task["data"]["domain"] is None and task["data"]["label"] == -1
    assert "test · test · id 9 · now: label -1 (no label)" in task["data"]["header"]


def test_an_unknown_kind_is_one_line(run_cli, tmp_path):
    write_queue(tmp_path / "audit.parquet", [("leak", *QUEUE[0][1:])])
    rucola_project(tmp_path)
    code, _, stderr = run_cli("audit", "export", "--input", "audit.parquet", "--out", "review",
                              cwd=tmp_path)  # fmt: skip
    assert code == 1 and "audit.parquet: audit queue has kind 'leak'" in stderr
    assert not (tmp_path / "review").exists()


# -- the decisions -----------------------------------------------------------------------


def row(label: int = 1, error_type: str | None = None, *answers: Answer) -> ReviewTask:
    return ReviewTask("train", "in_domain", 5, "Он  спит.", label, error_type, answers)


def a(reviewer: str, decision: str, category=None, text="", comment="") -> Answer:
    return Answer(reviewer, decision, category, text, comment)


def fields(outcome) -> list[tuple[str, str, str, str]]:
    return [(e.field, e.new, e.old, e.reason) for e in outcome.errata]


def test_one_expert_is_a_majority_of_one():
    outcome = decide(row(0, "Syntax", a("7", "relabel")))
    assert outcome.status == "erratum"
    assert fields(outcome) == [("label", "1", "0", "review: relabel by 1 of 1")]


def test_a_relabel_to_0_takes_the_category_of_the_relabelling_majority():
    outcome = decide(row(1, None, a("1", "relabel", "Syntax"), a("2", "relabel", "Syntax"),
                         a("3", "keep")))  # fmt: skip
    assert fields(outcome) == [
        ("label", "0", "1", "review: relabel by 2 of 3"),
        ("error_type", "Syntax", "", "review: relabel by 2 of 3"),
    ]
    # two of three relabelling reviewers are a majority of them, whatever the third chose
    outcome = decide(row(1, None, a("1", "relabel", "Syntax"), a("2", "relabel", "Syntax"),
                         a("3", "relabel", NO_CATEGORY)))  # fmt: skip
    assert fields(outcome)[1][:2] == ("error_type", "Syntax")


@pytest.mark.parametrize(
    "answers",
    [
        (a("1", "relabel", "Syntax"), a("2", "relabel", "Semantics"), a("3", "keep")),
        (a("1", "relabel"), a("2", "relabel")),
        (a("1", "relabel", NO_CATEGORY),),
    ],
)
def test_a_relabel_to_0_without_a_majority_category_is_undecided(answers):
    outcome = decide(row(1, None, *answers))
    assert outcome.status == "undecided" and not outcome.errata
    assert "needs a category from a majority" in outcome.why


def test_ties_and_split_decisions_are_undecided():
    tie = decide(row(1, None, a("1", "keep"), a("2", "remove")))
    assert (tie.status, tie.why) == ("undecided", "a tie: keep 1, remove 1")
    split = decide(row(1, None, a("1", "keep"), a("2", "keep"), a("3", "remove"),
                       a("4", "relabel")))  # fmt: skip
    assert split.status == "undecided"
    assert split.why == "a split decision: keep 2, relabel 1, remove 1"
    three = decide(row(1, None, a("1", "keep"), a("2", "remove"), a("3", "relabel")))
    assert three.why == "a tie: keep 1, relabel 1, remove 1"


def test_a_text_fix_needs_the_same_text_from_a_majority():
    same = decide(row(1, None, a("1", "fix text", text="Он спит ."),
                      a("2", "fix text", text="Он спит ."), a("3", "keep")))  # fmt: skip
    assert fields(same) == [("sentence", "Он спит .", "Он  спит.", "review: fix text by 2 of 3")]
    differ = decide(row(1, None, a("1", "fix text", text="Он спит ."),
                        a("2", "fix text", text="Она спит."), a("3", "keep")))  # fmt: skip
    assert differ.status == "undecided" and "no text from a majority of 3" in differ.why
    empty = decide(row(1, None, a("1", "fix text")))
    assert empty.status == "undecided" and "no corrected text" in empty.why
    unchanged = decide(row(1, None, a("1", "fix text", text="Он спит.")))
    assert unchanged.status == "unchanged" and not unchanged.errata


def test_a_change_of_category():
    outcome = decide(row(0, "Syntax", a("1", "change category", "Morphology")))
    assert fields(outcome) == [
        ("error_type", "Morphology", "Syntax", "review: change category by 1 of 1")
    ]
    assert decide(row(0, "Syntax", a("1", "change category", "Syntax"))).status == "unchanged"
    for task in (
        row(1, None, a("1", "change category", "Syntax")),  # an acceptable row has none
        row(0, "Syntax", a("1", "change category", NO_CATEGORY)),  # an unacceptable one needs one
        row(
            0,
            "Syntax",
            a("1", "change category", "Morphology"),
            a("2", "change category", "Semantics"),
            a("3", "keep"),
        ),  # fmt: skip
    ):
        assert decide(task).status == "undecided", task


def test_remove_keep_and_no_answer():
    removed = decide(row(1, None, a("1", "remove")))
    assert fields(removed) == [("remove", "", "Он  спит.", "review: remove by 1 of 1")]
    assert decide(row(1, None, a("1", "keep"))).status == "keep"
    assert decide(row(1, None)).status == "unreviewed"


def test_the_reason_is_the_majoritys_comments_in_reviewer_order():
    outcome = decide(row(1, None, a("10", "remove", comment="duplicate of a test row"),
                         a("9", "remove", comment="leakage"),
                         a("2", "keep", comment="looks fine"),
                         a("11", "remove", comment="leakage")))  # fmt: skip
    # reviewers in the answers' order (the reader sorts them numerically)
    assert fields(outcome)[0][3] == "duplicate of a test row; leakage"


def test_an_unlabelled_test_row_cannot_be_relabelled():
    task = ReviewTask("test", None, 9, "Тест.", -1, None, (a("1", "relabel", "Syntax"),))
    outcome = decide(task)
    assert outcome.status == "undecided" and "no label to flip" in outcome.why


def test_a_decision_the_split_would_refuse_is_undecided():
    """What ``corpus.errata`` refuses is never an erratum: a relabel to 0 that keeps the
    row's category (an error_type erratum that changes nothing), a corrected text with a
    bidi override, a reason with a terminal escape."""
    keeps = decide(row(1, "Syntax", a("1", "relabel", "Syntax")))
    assert keeps.status == "undecided" and not keeps.errata
    assert keeps.why.startswith("relabel by 1 of 1, but the row already has category Syntax")
    bidi = decide(row(1, None, a("1", "fix text", text="Он \u202eспит.")))
    assert bidi.status == "undecided" and not bidi.errata
    assert bidi.why == (
        "fix text by 1 of 1, but the corrected text holds U+202E RIGHT-TO-LEFT OVERRIDE"
    )
    escape = decide(row(1, None, a("1", "remove", comment="\x1b[2Jgone")))
    assert escape.status == "undecided" and "holds U+001B ESC" in escape.why
    # the same decisions without those characters are errata
    assert decide(row(1, "Syntax", a("1", "relabel", "Morphology"))).status == "erratum"
    assert decide(row(1, None, a("1", "fix text", text="Он спит!"))).status == "erratum"
    assert decide(row(1, None, a("1", "remove", comment="gone"))).status == "erratum"


def test_every_decision_a_reviewer_can_make_has_its_handler():
    """``decide`` hands the majority's decision to one handler per decision: a decision
    added to the review's choices without one would fail on the first task that takes it."""
    from rucola.curation.decisions import HANDLERS
    from rucola.curation.review_config import DECISIONS

    assert set(HANDLERS) == set(DECISIONS)
