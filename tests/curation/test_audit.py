"""The ``audit`` stage: every enabled kind over the split rows, one queue in a fixed order,
a report of counts per kind and split, the command's lines; and ``category_mismatch``."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow.parquet as pq
import pytest
from audit_frames import corpus, write
from identity import identity_yaml, rucola_categories, rucola_params

from rucola.curation.audit import run_audit, summary_lines
from rucola.curation.categories import category_mismatches, rule_findings
from rucola.curation.queue import KINDS, QUEUE_SCHEMA, read_queue, sort_queue
from rucola.io import file_sha256
from rucola.settings import Audit, Categories, LabelErrors

FLIPS = [0, 5, 11, 23, 42]


def settings(tmp_path, **sections) -> Audit:
    """Near-duplicates off: the corpus's short sentences of a few words are near each other."""
    exact = {"near_duplicates": {"enabled": False}}
    return Audit.model_validate(
        {
            "out": str(tmp_path / "audit.parquet"),
            "report": str(tmp_path / "audit.json"),
            "private_report": str(tmp_path / "private_audit.json"),
            "cross_split_duplicate": exact,
        }
        | sections
    )


@pytest.fixture
def split_rows(tmp_path):
    rows = corpus(flips=FLIPS, recategorised={3: "Semantics"})
    rows.loc[len(rows)] = [rows.loc[1, "sentence"], -1, None, None, "gT", "test", 999]
    return write(rows, tmp_path / "split.parquet")


def test_the_stage_writes_the_queue_and_counts_per_kind_and_split(tmp_path, split_rows):
    report = run_audit(settings(tmp_path), rucola_params(), str(split_rows))
    table = pq.read_table(tmp_path / "audit.parquet")
    assert table.schema == QUEUE_SCHEMA
    queue = table.to_pandas()
    assert report["read"] == 201 and report["queue"] == len(queue)
    private = json.loads((tmp_path / "private_audit.json").read_text())
    assert private.pop("data_sha256") == file_sha256(tmp_path / "audit.parquet")
    assert private == report
    public = json.loads((tmp_path / "audit.json").read_text())
    assert set(public) == {"read", "kinds", "params", "separation"}
    assert all(set(counts) == {"train", "validation"} for counts in public["kinds"].values())
    for kind in KINDS:
        counts = queue[queue["kind"] == kind]["split"].value_counts().to_dict()
        assert report["kinds"][kind] == {
            s: counts.get(s, 0) for s in ("train", "validation", "test")
        }
    assert queue.equals(sort_queue(queue.sample(frac=1, random_state=1)))
    kinds = dict(tuple(queue.groupby("kind")))
    leak = kinds["cross_split_duplicate"]
    assert sorted(zip(leak["split"], leak["id"], strict=True)) == [("test", 999), ("train", 1)]
    errors = kinds["likely_label_error"]
    flipped = corpus(flips=FLIPS).iloc[FLIPS]
    top = errors.head(len(FLIPS))
    assert set(zip(top["split"], top["id"], strict=True)) == set(
        zip(flipped["split"], flipped["id"], strict=True)
    )
    assert (errors["label"] != -1).all()
    mismatch = kinds["category_mismatch"]
    row3 = corpus().iloc[3]
    assert (row3["split"], row3["id"]) in set(zip(mismatch["split"], mismatch["id"], strict=True))
    assert read_queue(tmp_path / "audit.parquet").equals(queue)


def test_test_rows_that_hide_nothing_are_audited_once_for_the_same_public_report(
    tmp_path, monkeypatch
):
    """A corpus without private gold (the published RuCoLA: unlabelled test rows) is its
    own public form, so the stage audits it once; its public report is the one auditing
    the public rows again would give. A labelled test row (or any category, domain or
    source on one) still gets the second audit."""
    from rucola.curation import audit as stage

    calls = []
    real = stage.audit_rows
    monkeypatch.setattr(stage, "audit_rows", lambda *a: calls.append(1) or real(*a))
    labelled = stage.read_rows(write(corpus(flips=FLIPS), tmp_path / "labelled.parquet"))
    assert not stage.hides_nothing(labelled)
    hidden = stage.public_rows(labelled)
    assert stage.hides_nothing(hidden)
    revealed = {"label": 1, "error_type": "Syntax", "domain": "in_domain", "detailed_source": "B"}
    for column, value in revealed.items():
        one = hidden.copy()
        one.loc[one.index[one["split"] == "test"][0], column] = value
        assert not stage.hides_nothing(one), column
    path = write(hidden, tmp_path / "unlabelled.parquet")
    audit, params = settings(tmp_path / "once"), rucola_params()
    run_audit(audit, params, str(path))
    assert len(calls) == 1
    twice = real(stage.public_rows(stage.read_rows(path)), audit, params)[1]
    public = json.loads((tmp_path / "once" / "audit.json").read_text(encoding="utf-8"))
    assert public == json.loads(json.dumps(stage.public_report(twice)))
    calls.clear()
    run_audit(settings(tmp_path / "labelled"), params, str(tmp_path / "labelled.parquet"))
    assert len(calls) == 2


def test_summary_has_one_line_per_kind_with_counts_per_split(tmp_path, split_rows):
    audit = settings(tmp_path, conflicting_duplicate={"enabled": False})
    report = run_audit(audit, rucola_params(), str(split_rows))
    lines = summary_lines(report)
    assert lines[0] == f"audit: 201 rows read, {report['queue']} in the review queue"
    assert lines[2] == "audit: conflicting_duplicate: off"
    assert lines[1].startswith("audit: cross_split_duplicate: train 1, validation 0, test 1")
    assert lines[3].startswith("audit: likely_label_error: train ")
    assert lines[3].endswith("(of 200 rows scored)")
    assert "conflicting_duplicate" not in report["kinds"]


def test_a_domain_the_model_does_not_separate_is_ranked_in_the_queue_and_counted_nowhere(
    tmp_path, split_rows
):
    """Issue 45: below ``min_auc`` the report counts no likely label error and says why,
    the queue still ranks every scored row (``rucola audit export`` takes its top), and
    the same rows and params give the same bytes."""
    strict = {"likely_label_error": {"min_auc": 0.99}, "category_mismatch": {"enabled": False}}
    report = run_audit(settings(tmp_path / "a", **strict), rucola_params(), str(split_rows))
    auc = report["separation"]["in_domain"]
    assert 0.5 < auc < 0.99
    assert report["kinds"]["likely_label_error"] == {"train": 0, "validation": 0, "test": 0}
    assert report["params"]["min_auc"] == 0.99
    queue = read_queue(tmp_path / "a" / "audit.parquet")
    ranked = queue[queue["kind"] == "likely_label_error"]
    assert len(ranked) == report["scored"]["likely_label_error"] == 200
    assert ranked["evidence"].str.startswith("ranked only, not flagged").all()
    flipped = corpus(flips=FLIPS).iloc[FLIPS]
    assert set(zip(ranked["split"].head(5), ranked["id"].head(5), strict=True)) == set(
        zip(flipped["split"], flipped["id"], strict=True)
    )
    lines = summary_lines(report)
    assert lines[4] == (
        "audit: likely_label_error: in_domain: ranked only, not flagged: the out-of-fold "
        f"model does not separate the labels (ROC AUC {auc:.4f} < min_auc 0.99)"
    )
    public = json.loads((tmp_path / "a" / "audit.json").read_text(encoding="utf-8"))
    # the public audit fits no test label: its own figure, naming no domain
    assert set(public["separation"]) == {"lowest_auc", "domains_flagged", "domains_ranked_only"}
    assert public["separation"]["domains_ranked_only"] == 1
    assert public["separation"]["domains_flagged"] == 0
    run_audit(settings(tmp_path / "b", **strict), rucola_params(), str(split_rows))
    for name in ("audit.parquet", "audit.json", "private_audit.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_every_kind_off_writes_an_empty_queue(tmp_path, split_rows):
    off = {kind: {"enabled": False} for kind in KINDS}
    report = run_audit(settings(tmp_path, **off), rucola_params(), str(split_rows))
    assert report["queue"] == 0 and report["kinds"] == {}
    table = pq.read_table(tmp_path / "audit.parquet")
    assert table.num_rows == 0 and table.schema == QUEUE_SCHEMA


def test_the_command_runs_the_stage_and_prints_its_lines(run_cli, tmp_path, split_rows):
    (tmp_path / "params.yaml").write_text(
        identity_yaml(
            "audit:\n  cross_split_duplicate:\n    near_duplicates:\n      enabled: false\n"
        ),
        encoding="utf-8",
    )
    code, out, err = run_cli(
        "audit", "--input", str(split_rows), "--out", str(tmp_path / "q" / "audit.parquet"),
        cwd=tmp_path,
    )  # fmt: skip
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("audit: 201 rows read")
    assert [line.split(":")[1].strip() for line in lines[1:]] == KINDS
    assert lines[1] == "audit: cross_split_duplicate: train 1, validation 0, test 1"
    assert (tmp_path / "q" / "audit.json").is_file()


# -- category_mismatch -------------------------------------------------------------------


def rows_with(*records: tuple) -> pd.DataFrame:
    return pd.DataFrame(records, columns=["sentence", "label", "error_type", "domain"])


def test_the_rules_name_what_contradicts_the_row():
    rows = rows_with(
        ("a", 1, "Syntax", "in_domain"),
        ("b", 0, None, "in_domain"),
        ("c", 0, "Typo", "in_domain"),
        ("d", 0, "Hallucination", "in_domain"),
        ("e", 0, "Hallucination", "out_of_domain"),
        ("f", -1, "Syntax", None),
        ("g", -1, None, None),
        ("h", 1, None, "learner"),
    )
    types = rucola_categories()  # RuCoLA's: Hallucination out of domain only
    assert rule_findings(rows, types) == {
        0: ["acceptable but has the category Syntax"],
        1: ["unacceptable without a category"],
        2: ["Typo is not one of corpus.categories"],
        3: ["Hallucination outside out_of_domain"],
        5: ["unlabelled but has the category Syntax"],
    }
    found, _ = category_mismatches(
        rows.assign(group="g", split="train", id=0), LabelErrors(), types
    )
    assert found["score"].tolist() == [1.0] * 5


def test_a_corpus_without_categories_asks_for_none():
    """Issue 35: CoLA and ItaCoLA have no categories; an unacceptable row without one is
    no finding there, and any category is one."""
    rows = rows_with(
        ("a", 0, None, "in_domain"),
        ("b", 0, None, "out_of_domain"),
        ("c", 0, "Syntax", "in_domain"),
        ("d", 1, None, "in_domain"),
        ("e", -1, None, None),
    )
    none = Categories(in_domain=[], out_of_domain=[], learner=[])
    assert rule_findings(rows, none) == {2: ["Syntax, but corpus.categories declares none"]}
    found, scored = category_mismatches(
        rows.assign(group="g", split="train", id=0), LabelErrors(), none
    )
    assert found["row"].tolist() == [2] and scored == 0


def test_a_category_is_asked_for_only_where_its_domain_declares_some():
    rows = rows_with(
        ("a", 0, None, "in_domain"),
        ("b", 0, None, "out_of_domain"),
        ("c", 0, "Hallucination", "in_domain"),
        ("d", 0, None, None),
    )
    some = Categories(in_domain=[], out_of_domain=["Hallucination"], learner=[])
    assert rule_findings(rows, some) == {
        1: ["unacceptable without a category"],
        2: ["Hallucination outside out_of_domain"],
        3: ["unacceptable without a category"],  # no known domain: some domain declares
    }


def test_the_classifier_flags_a_category_the_rest_of_the_corpus_gives_other_sentences():
    rows = corpus(n=300, recategorised={3: "Semantics", 13: "Morphology"})
    found, scored = category_mismatches(rows, LabelErrors(), rucola_categories())
    assert scored == int((rows["label"] == 0).sum())
    flagged = found.set_index("row")
    assert {3, 13} <= set(flagged.index)
    assert flagged.loc[3, "evidence"].startswith("out-of-fold p(Semantics) = ")
    assert "p(Syntax)" in flagged.loc[3, "evidence"]
    assert flagged.loc[3, "score"] > 0.5
    assert set(found.sort_values("score", ascending=False)["row"].head(2)) == {3, 13}
