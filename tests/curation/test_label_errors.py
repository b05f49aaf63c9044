"""``likely_label_error``: confident learning over out-of-fold probabilities, with TF-IDF
or a local encoder's embeddings, one model per domain, labelled rows only; a domain whose
model does not separate the labels (out-of-fold ROC AUC below ``min_auc``) is ranked,
never flagged."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from audit_frames import WORDS, corpus
from pydantic import ValidationError

from rucola.curation.label_errors import (
    confident_learning,
    embed,
    label_error_scores,
    likely_label_errors,
    one_hot,
    out_of_fold_probabilities,
    separation,
)
from rucola.errors import RucolaError
from rucola.settings import LabelErrors

FLIPS = [0, 5, 11, 23, 42]
TEXTBOOK = Path(__file__).resolve().parents[1] / "fixtures" / "textbook"


def test_confident_learning_is_cleanlabs_confident_joint_off_its_diagonal():
    probabilities = np.array(
        [
            [0.9, 0.1],  # given 0, confident of 0: fine
            [0.2, 0.8],  # given 0, confident of 1 only: flagged
            [0.56, 0.44],  # given 1: p0 0.56 >= t0, p1 0.44 < t1: flagged, guess 0
            [0.3, 0.7],  # given 1, confident of 1: fine
            [0.6, 0.4],  # given 1: p0 0.6 >= t0 and p1 0.4 < t1: flagged
        ]
    )
    given = np.array([0, 0, 1, 1, 1])
    flagged, guess, thresholds = confident_learning(probabilities, given)
    assert thresholds == pytest.approx([0.55, (0.44 + 0.7 + 0.4) / 3])
    assert flagged.tolist() == [False, True, True, False, True]
    assert guess[flagged].tolist() == [1, 0, 0]


def test_two_confident_classes_go_to_the_more_likely_one():
    probabilities = np.array([[0.5, 0.5], [0.45, 0.55], [0.6, 0.4], [0.4, 0.6]])
    given = np.array([0, 0, 1, 1])
    flagged, guess, thresholds = confident_learning(probabilities, given)
    # t0 = 0.475, t1 = 0.5: row 1 is confident of both and more of 1
    assert thresholds == pytest.approx([0.475, 0.5])
    assert flagged[1] and guess[1] == 1
    assert flagged[2] and guess[2] == 0


def test_the_score_is_one_minus_the_probability_of_the_given_label():
    probabilities = np.array([[0.9, 0.1], [0.2, 0.8]])
    assert label_error_scores(probabilities, [1, 1]) == pytest.approx([0.9, 0.2])


def test_flipped_labels_top_the_findings_and_every_score_is_one_minus_p():
    rows = corpus(flips=FLIPS)
    result = likely_label_errors(rows, LabelErrors())
    found, scored = result.flagged, result.scored
    assert scored == len(rows)
    top = found.sort_values("score", ascending=False)["row"].head(len(FLIPS))
    assert set(top) == set(FLIPS)
    probabilities = out_of_fold_probabilities(rows["sentence"], rows["label"], LabelErrors())
    expected = label_error_scores(probabilities, rows["label"].to_numpy())
    assert found["score"].to_numpy() == pytest.approx(expected[found["row"].to_numpy()])
    line = found.set_index("row").loc[FLIPS[0], "evidence"]
    assert "out-of-fold p(label" in line and "5-fold TF-IDF logistic regression" in line


def test_the_probabilities_are_the_same_every_run():
    rows = corpus(flips=FLIPS)
    first = out_of_fold_probabilities(rows["sentence"], rows["label"], LabelErrors())
    second = out_of_fold_probabilities(rows["sentence"], rows["label"], LabelErrors())
    assert np.array_equal(first, second)


def test_unlabelled_rows_are_never_scored_and_labelled_test_rows_are():
    rows = corpus(flips=FLIPS)
    test = rows.index[rows["split"] == "test"]
    hidden = test[:5]
    rows.loc[hidden, ["label", "error_type", "domain"]] = [-1, None, None]
    result = likely_label_errors(rows, LabelErrors())
    found, scored = result.flagged, result.scored
    assert scored == len(rows) - len(hidden)
    assert not set(found["row"]) & set(hidden)
    flipped_test = [i for i in FLIPS if rows.loc[i, "split"] == "test" and i not in hidden]
    assert set(flipped_test) <= set(found["row"])


def test_one_model_per_domain_and_a_domain_without_enough_rows_is_skipped():
    big = corpus(flips=FLIPS)
    small = corpus(n=6, seed=1, domain="out_of_domain")  # fewer than 5 of each label
    rows = pd.concat([big, small], ignore_index=True)
    result = likely_label_errors(rows, LabelErrors())
    found, scored = result.flagged, result.scored
    assert scored == len(big)
    assert found["row"].max() < len(big)
    alone = likely_label_errors(big, LabelErrors()).flagged
    assert found.equals(alone)  # the other domain changed nothing in this one's model


def test_tfidf_keeps_case():
    from rucola.curation.label_errors import _classifier

    assert _classifier(1.0, tfidf=True).steps[0][1].lowercase is False


@pytest.fixture(scope="module")
def bert(tmp_path_factory):
    from fixtures.tiny_models import build_bert

    return build_bert(tmp_path_factory.mktemp("bert"))


def test_embeddings_of_a_local_encoder_feed_the_same_confident_learning(bert):
    rows = corpus(n=60, flips=[0])
    settings = LabelErrors(features="embeddings", model=[str(bert)], batch_size=7)
    result = likely_label_errors(rows, settings)
    found, scored = result.queued(), result.scored  # flagged or ranked only
    assert scored == len(rows) and len(found) > 0
    assert found["evidence"].str.contains("5-fold embedding logistic regression").all()
    vectors = embed(rows["sentence"].tolist(), bert, 7)
    assert vectors.shape == (len(rows), 32)
    # batches change nothing but speed
    assert np.allclose(vectors, embed(rows["sentence"].tolist(), bert, 60), atol=1e-5)


def test_embeddings_without_a_model_or_with_a_folder_that_is_none_is_one_error(tmp_path):
    rows = corpus(n=60)
    with pytest.raises(RucolaError, match="audit.likely_label_error.model"):
        likely_label_errors(rows, LabelErrors(features="embeddings"))
    (tmp_path / "empty").mkdir()
    settings = LabelErrors(features="embeddings", model=[str(tmp_path / "empty")])
    with pytest.raises(RucolaError, match="not a Hugging Face model"):
        likely_label_errors(rows, settings)
    settings = LabelErrors(features="embeddings", model=[str(tmp_path / "missing")])
    with pytest.raises(RucolaError, match="not a folder"):
        likely_label_errors(rows, settings)


def test_embeddings_without_the_gpu_extra_is_one_error(monkeypatch, bert):
    monkeypatch.setitem(sys.modules, "transformers", None)
    with pytest.raises(RucolaError, match="needs torch and transformers") as error:
        embed(["Мама мыла раму."], bert, 8)
    assert "gpu" in error.value.hint


def test_separation_is_the_out_of_fold_roc_auc_of_label_1():
    probabilities = np.array([[0.9, 0.1], [0.4, 0.6], [0.3, 0.7], [0.2, 0.8]])
    # labelled 1: 0.6 and 0.8; labelled 0: 0.1 and 0.7; three of four pairs in order
    assert separation(probabilities, np.array([0, 1, 0, 1])) == 0.75
    assert separation(probabilities, np.array([1, 0, 1, 0])) == 0.25  # the opposite learnt
    assert separation(np.array([[0.5, 0.5]] * 4), np.array([0, 1, 0, 1])) == 0.5  # ties


def textbook(language: str) -> pd.DataFrame:
    sheet = pd.read_csv(TEXTBOOK / f"{language}.tsv", sep="\t", dtype=str, keep_default_na=False)
    return pd.DataFrame(
        {"sentence": sheet["sentence"], "label": sheet["label"].astype(int), "domain": "in_domain"}
    )


@pytest.mark.parametrize("language", ["de", "es", "is"])
def test_a_textbook_of_minimal_pairs_is_ranked_and_never_flagged(language):
    """Issue 45: a textbook's examples come in minimal pairs, so each row's pair, in the
    other folds, teaches the model the opposite label; confident learning flagged a third
    of such a corpus (and more here), none of it evidence of an error."""
    rows = textbook(language)
    result = likely_label_errors(rows, LabelErrors())
    assert result.separation["in_domain"] < 0.5
    assert result.flagged.empty
    assert sorted(result.ranked["row"]) == list(range(len(rows)))  # every row, ranked
    probabilities = out_of_fold_probabilities(rows["sentence"], rows["label"], LabelErrors())
    expected = label_error_scores(probabilities, rows["label"].to_numpy())
    assert result.ranked["score"].to_numpy() == pytest.approx(expected[result.ranked["row"]])
    evidence = result.ranked["evidence"].iloc[0]
    assert evidence.startswith("ranked only, not flagged: the in_domain model does not")
    assert f"ROC AUC {result.separation['in_domain']:.4f} < min_auc 0.75" in evidence
    # what the audit flagged before: confident learning on the same probabilities
    flagged, _, _ = confident_learning(probabilities, rows["label"].to_numpy())
    assert flagged.sum() > len(rows) / 3


def test_min_auc_decides_between_flagging_and_ranking():
    rows = corpus(flips=FLIPS)
    flagging = likely_label_errors(rows, LabelErrors())
    auc = flagging.separation["in_domain"]
    assert 0.9 < auc < 1 and flagging.ranked.empty and len(flagging.flagged) == len(FLIPS)
    assert "ROC AUC" in flagging.flagged["evidence"].iloc[0]
    ranking = likely_label_errors(rows, LabelErrors(min_auc=min(auc + 0.01, 1)))
    assert ranking.flagged.empty and len(ranking.ranked) == len(rows)
    assert ranking.separation == flagging.separation
    top = ranking.ranked.sort_values("score", ascending=False, kind="stable")["row"]
    assert set(top.head(len(FLIPS))) == set(FLIPS)  # the ranking still finds them first


@pytest.mark.parametrize("value", [0.49, 1.01, "high"])
def test_min_auc_is_between_chance_and_one(value):
    with pytest.raises(ValidationError, match="min_auc"):
        LabelErrors.model_validate({"min_auc": value})


def by_source(n: int = 200, seed: int = 0) -> pd.DataFrame:
    """Sentences of drawn words that say nothing of their label, from two publications:
    nine rows in ten of ``pub_bad`` are unacceptable, nine in ten of ``pub_good`` fine."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        source = "pub_bad" if i % 2 else "pub_good"
        label = int((rng.random() < 0.9) == (source == "pub_good"))
        words = " ".join(rng.choice(WORDS, 4))
        rows.append((f"{words.capitalize()} номер{i}.", label, "in_domain", source))
    return pd.DataFrame(rows, columns=["sentence", "label", "domain", "detailed_source"])


def test_sources_true_makes_a_rows_source_a_feature_where_its_domain_has_two_or_more():
    """Issue 45: a publication's share of unacceptable examples is evidence the words are
    not; with it the model separates labels the text alone cannot (and, where that share
    is all it has, it flags the rows its publication contradicts: off by default)."""
    rows = by_source()
    with_source = likely_label_errors(rows, LabelErrors(sources=True))
    text_only = likely_label_errors(rows, LabelErrors())  # off by default
    assert with_source.separation["in_domain"] > 0.8 > 0.6 > text_only.separation["in_domain"]
    assert text_only.flagged.empty and not with_source.flagged.empty
    assert with_source.flagged["evidence"].str.contains("regression, with the source").all()
    # the rows flagged are those their publication contradicts
    flagged = rows.iloc[with_source.flagged["row"]]
    assert (flagged["label"] == (flagged["detailed_source"] == "pub_bad")).all()
    # one source (or none) says nothing: the text-only model, the same probabilities
    single = rows.assign(detailed_source="pub")
    assert likely_label_errors(single, LabelErrors(sources=True)).ranked.equals(text_only.ranked)
    missing = rows.assign(detailed_source=None)
    assert likely_label_errors(missing, LabelErrors(sources=True)).ranked.equals(text_only.ranked)


def test_sources_beside_embeddings_are_one_hot_columns(bert):
    assert one_hot(["b", "a", "b", ""]).tolist() == [[0, 0, 1], [0, 1, 0], [0, 0, 1], [1, 0, 0]]
    rows = by_source(n=60)
    settings = LabelErrors(features="embeddings", model=[str(bert)], sources=True)
    result = likely_label_errors(rows, settings)
    evidence = result.queued()["evidence"]
    assert evidence.str.contains("embedding logistic regression, with the source").all()
    assert result.separation["in_domain"] > 0.75  # the source, not the untrained encoder
