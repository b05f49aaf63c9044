"""Validation asks for a category only where the corpus declares categories (issue 35): CoLA
and ItaCoLA have none, so their unacceptable rows validate without one, and a category on
such a row is refused; a corpus without test rows validates. RuCoLA's checks keep their
names (the public report git tracks lists them)."""

from __future__ import annotations

import pytest
from identity import rucola_categories, with_identity
from test_suite import failed_names, failure, run, valid_frame

from rucola.settings import Params
from rucola.validation.suite import all_checks

NONE = {"in_domain": [], "out_of_domain": [], "learner": []}
SET_FOR_UNACCEPTABLE = "error_type: set for unacceptable rows"
NULL_WITHOUT_CATEGORIES = "error_type: null (corpus.categories declares none)"


def without_categories(frame):
    out = frame.copy()
    out["error_type"] = None
    return out


def names(categories: dict) -> list[str]:
    """The checks of a RuCoLA-like corpus whose ``corpus.categories`` are ``categories``."""
    params = Params.model_validate(with_identity(categories=categories))
    return [c.name for c in all_checks(params)]


def test_rucolas_checks_keep_their_names():
    """The sample's public validation report must not change: same checks, same names."""
    checks = names(rucola_categories().model_dump())
    assert SET_FOR_UNACCEPTABLE in checks
    assert "error_type: one of Morphology, Syntax, Semantics, Hallucination" in checks
    assert "error_type: Hallucination only out of domain" in checks
    assert NULL_WITHOUT_CATEGORIES not in checks


def test_no_categories_ask_for_none():
    checks = names(NONE)
    assert NULL_WITHOUT_CATEGORIES in checks
    assert not [c for c in checks if c.startswith(SET_FOR_UNACCEPTABLE)]
    assert not [c for c in checks if c.startswith("error_type: one of")]


def test_a_corpus_without_categories_validates(tmp_path):
    result, report = run(tmp_path, without_categories(valid_frame()), corpus={"categories": NONE})
    assert result.success, result.summary()
    assert NULL_WITHOUT_CATEGORIES in [e["name"] for e in report["expectations"]]


def test_a_category_where_none_is_declared_is_refused(tmp_path):
    frame = without_categories(valid_frame())
    bad = frame.index[frame["label"] == 0][0]
    frame.loc[bad, "error_type"] = "Syntax"
    result, _ = run(tmp_path, frame, corpus={"categories": NONE})
    rows = failure(result, NULL_WITHOUT_CATEGORIES).rows
    assert [(r["split"], r["id"]) for r in rows] == [
        (frame.loc[bad, "split"], int(frame.loc[bad, "id"]))
    ]


@pytest.mark.slow
def test_categories_asked_for_only_in_the_domains_that_declare_them(tmp_path):
    """Out of domain declares Hallucination, in domain nothing: an in-domain unacceptable
    row needs no category and may not take one; an out-of-domain one needs one."""
    categories = {**NONE, "out_of_domain": ["Hallucination"]}
    frame = valid_frame()
    inside = frame["domain"] == "in_domain"
    frame.loc[inside, "error_type"] = None
    result, _ = run(tmp_path / "ok", frame, corpus={"categories": categories})
    assert result.success, result.summary()

    lacking = frame.index[(frame["domain"] == "out_of_domain") & (frame["label"] == 0)][0]
    wrong = frame.index[inside & (frame["label"] == 0)][0]
    frame.loc[lacking, "error_type"] = None
    frame.loc[wrong, "error_type"] = "Hallucination"
    result, _ = run(tmp_path / "bad", frame, corpus={"categories": categories})
    assert failed_names(result) == {
        f"{SET_FOR_UNACCEPTABLE} in out of domain",
        "error_type: Hallucination only out of domain",
    }
    ids = {r["id"] for r in failure(result, f"{SET_FOR_UNACCEPTABLE} in out of domain").rows}
    assert ids == {int(frame.loc[lacking, "id"])}


@pytest.mark.slow
def test_a_corpus_without_test_rows_validates(tmp_path):
    """CoLA publishes train and validation only: its ratios give test 0, and the balance
    checks hold with an empty test split in every domain."""
    frame = valid_frame()
    frame.loc[frame["split"] == "test", "split"] = "validation"
    frame["id"] = frame.groupby(["split", "domain"]).cumcount().astype("int64")
    ratios = {"in_domain": [0.8, 0.2, 0.0], "out_of_domain": [0.0, 1.0, 0.0]}
    result, report = run(tmp_path, frame, split={"ratios": ratios})
    assert result.success, result.summary()
    assert report["rows"] == len(frame)
    # the same rows against ratios that want a test split fail, naming it
    result, _ = run(tmp_path / "with_test", frame)
    assert "split sizes: within max(0.02, 2 groups / rows) of split.ratios" in (
        failed_names(result)
    )
