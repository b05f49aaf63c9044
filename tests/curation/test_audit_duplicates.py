"""``cross_split_duplicate`` and ``conflicting_duplicate``: the same sentence, a
near-duplicate or a shared group in two splits; the same sentence with two labels."""

from __future__ import annotations

import pandas as pd
import pytest

from rucola.curation.duplicates import conflicting_duplicates, cross_split_duplicates
from rucola.settings import CrossSplitDuplicates

COLUMNS = ["sentence", "label", "error_type", "domain", "group", "split", "id"]


def frame(*rows: tuple) -> pd.DataFrame:
    """Rows of (sentence, label, split, id[, group]); domain in_domain, or none for an
    unlabelled test row."""
    records = []
    for i, (sentence, label, split, row_id, *group) in enumerate(rows):
        domain = None if label == -1 else "in_domain"
        category = "Syntax" if label == 0 else None
        records.append(
            (sentence, label, category, domain, group[0] if group else f"g{i}", split, row_id)
        )
    return pd.DataFrame(records, columns=COLUMNS)


def found(result: pd.DataFrame) -> dict[int, tuple[float, str, str]]:
    return {int(r.row): (r.score, r.evidence, r.cluster) for r in result.itertuples(index=False)}


def test_a_train_row_repeating_a_test_row_is_listed_with_the_test_row():
    rows = frame(
        ("Перемен в политике фирмы еще не началось.", 0, "train", 223),
        ("Мама мыла раму.", 1, "train", 1),
        ("Перемен в политике фирмы еще не началось.", -1, "test", 490),
    )
    result = found(cross_split_duplicates(rows, CrossSplitDuplicates()))
    assert sorted(result) == [0, 2]
    assert result[0][:2] == (1.0, "same text as test 490")
    assert result[2][:2] == (1.0, "same text as train in_domain 223")
    assert result[0][2] == result[2][2] == "train in_domain 223"


def test_the_same_sentence_after_normalisation_and_homoglyphs_is_the_same():
    latin_a = "Мaма мыла раму."  # a Latin a inside a Cyrillic word
    rows = frame(("Мама  мыла раму.", 1, "train", 0), (latin_a, 1, "validation", 0))
    result = found(cross_split_duplicates(rows, CrossSplitDuplicates()))
    assert result[0][:2] == (1.0, "same text as validation in_domain 0")


def test_near_duplicates_in_two_splits_are_listed_with_their_similarity():
    rows = frame(
        ("Он всегда говорил очень убедительно, и у меня возникали сомнения.", 1, "train", 5),
        ("Он всегда говорил очень убедительно, но у меня возникали сомнения.", 1, "test", 7),
        ("Совсем другое предложение о погоде.", 1, "test", 8),
    )
    result = found(cross_split_duplicates(rows, CrossSplitDuplicates()))
    assert sorted(result) == [0, 1]
    score, evidence, _ = result[0]
    assert 0.7 <= score < 1.0
    assert evidence == f"near-duplicate of test 7 ({score:.2f})"
    off = CrossSplitDuplicates.model_validate({"near_duplicates": {"enabled": False}})
    assert cross_split_duplicates(rows, off).empty


def test_every_row_of_a_group_that_straddles_splits_is_listed():
    rows = frame(
        ("Я показал этот текст студентам, самим знающим язык.", 1, "train", 1, "gX"),
        ("Совсем другое предложение о погоде и море.", 1, "train", 2, "gX"),
        ("Я показал этот текст студентам, обоим знающим язык.", 0, "validation", 3, "gX"),
        ("Мама мыла раму.", 1, "validation", 4, "gY"),
    )
    off = CrossSplitDuplicates.model_validate({"near_duplicates": {"enabled": False}})
    result = found(cross_split_duplicates(rows, off))
    assert sorted(result) == [0, 1, 2]
    assert len({cluster for _, _, cluster in result.values()}) == 1
    assert result[1][1].startswith("same group as validation in_domain 3 (")
    assert "train in_domain 1" in result[2][1] and "train in_domain 2" in result[2][1]


def test_repeats_inside_one_split_are_no_cross_split_finding():
    rows = frame(("Мама мыла раму.", 1, "train", 0), ("Мама мыла раму.", 1, "train", 1))
    assert cross_split_duplicates(rows, CrossSplitDuplicates()).empty


def test_evidence_names_three_rows_and_counts_the_rest():
    rows = frame(
        ("Мама мыла раму.", 1, "test", 0),
        *(("Мама мыла раму.", 1, "train", i) for i in range(5)),
    )
    result = found(cross_split_duplicates(rows, CrossSplitDuplicates()))
    assert result[0][1] == (
        "same text as train in_domain 0, same text as train in_domain 1, "
        "same text as train in_domain 2 and 2 more"
    )


def test_conflicting_labels_of_the_same_sentence_are_listed_unlabelled_rows_ignored():
    rows = frame(
        ("Мама мыла раму.", 1, "train", 0),
        ("Мама мыла раму.", 1, "train", 1),
        ("Мама  мыла раму.", 0, "validation", 2),
        ("Мама мыла раму.", -1, "test", 3),
        ("Дети играли.", 1, "train", 4),
        ("Дети играли.", -1, "test", 5),
    )
    result = found(conflicting_duplicates(rows))
    assert sorted(result) == [0, 1, 2]
    assert result[2][0] == pytest.approx(2 / 3)  # the lone dissenter first
    assert result[0][0] == pytest.approx(1 / 3)
    assert result[2][1] == (
        "labelled 0; the same sentence is labelled 1 as train in_domain 0, train in_domain 1"
    )
    assert {cluster for _, _, cluster in result.values()} == {"train in_domain 0"}


def test_no_conflict_without_two_labels():
    rows = frame(("Мама мыла раму.", 1, "train", 0), ("Мама мыла раму.", 1, "test", 1))
    assert conflicting_duplicates(rows).empty
