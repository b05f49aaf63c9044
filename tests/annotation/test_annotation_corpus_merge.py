"""Labelled out-of-domain rows join the in-domain stream; the rest is set aside, counted."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from rucola.annotation.corpus_merge import merge_into_corpus
from rucola.corpus import schema
from rucola.errors import RucolaError
from rucola.io import read_parquet, write_parquet


def in_domain() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "sentence": ["Мальчик читает книгу.", "Девочки пришёл домой."],
            "label": [1, 0],
            "error_type": [None, "Syntax"],
            "domain": "in_domain",
            "detailed_source": "Sample",
            "mark": ["", "*"],
            "group": ["g1", "g2"],
            "origin": ["a.tsv:2", "a.tsv:3"],
            "provenance": None,
            "artefacts": None,
            "published_id": pd.array([None, None], dtype="Int64"),
            "published_split": None,
            "corrections": None,
        }
    )


def candidates() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "sentence": [
                "Том унёс свой секрет в могилу.",
                "Кошка спал на окне.",
                "Мальчик читает книгу.",
                "Это предложение ждёт.",
                "Странное предложение.",
            ],
            "detailed_source": ["Tatoeba", "Tatoeba", "WikiMatrix", "TED", "TED"],
            "generator": ["opus-mt", "rule:agreement", "opus-mt", "opus-mt", "opus-mt"],
            "method": ["translation", "perturbation", "translation", "translation", "translation"],
            "source_sentence": ["Tom took his secret to the grave.", "x", "y", "z", "w"],
            "seed": 7,
            "candidate_id": ["c1", "c2", "c3", "c4", "c5"],
        }
    )


def annotated() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "id": ["c1", "c2", "c3", "c4", "c5", "zz"],
            "sentence": [
                "Том унёс свой секрет в могилу.",
                "Кошка спал на окне.",
                "Мальчик читает книгу.",
                "Это предложение ждёт.",
                "Странное предложение.",
                "Неизвестно откуда.",
            ],
            "label": pd.array([1, 0, 1, None, None, 1], dtype="Int64"),
            "error_type": [None, "Syntax", None, None, None, None],
            "n_votes": [3, 4, 3, 2, 3, 3],
            "share_acceptable": [1.0, 0.25, 1.0, 0.5, 0.0, 1.0],
            "agreement": [1.0, 0.75, 1.0, 0.5, 1.0, 1.0],
            "status": [
                "labelled",
                "labelled",
                "labelled",
                "pending",
                "set_aside:other",
                "labelled",
            ],
            "reason": [None, None, None, "tie", "other", None],
        }
    )


def test_merge_into_corpus():
    rows, rejected, counts = merge_into_corpus(in_domain(), candidates(), annotated())
    ood = rows[rows["domain"] == schema.OUT_OF_DOMAIN]
    assert ood["group"].tolist() == ["c1", "c2"]
    first = ood.iloc[0]
    assert first["detailed_source"] == "Tatoeba"
    assert first["generator"] == "opus-mt" and first["method"] == "translation"
    assert first["origin"] == "annotations:c1" and first["mark"] == ""
    assert json.loads(first["provenance"])["source_sentence"] == "Tom took his secret to the grave."
    assert ood.iloc[1]["error_type"] == "Syntax" and ood.iloc[1]["label"] == 0
    assert rows[rows["domain"] == "in_domain"]["generator"].isna().all()
    assert list(rows.columns) == [*schema.BASE_COLUMNS, "generator", "method"]
    reasons = dict(zip(rejected["origin"], rejected["reason"], strict=True))
    assert reasons == {
        "annotations:c3": "duplicate_of_in_domain",
        "annotations:c4": "pending",
        "annotations:c5": "set_aside:other",
        "annotations:zz": "unknown_candidate",
    }
    set_aside = sum(counts["set_aside"].values())
    assert counts["out_of_domain_added"] + set_aside == counts["annotated"] == 6
    assert counts["set_aside"]["unknown_candidate"] == 1
    assert counts["read"] == counts["kept"] + set_aside == 2 + 6
    assert counts["kept"] == 4


def test_unacceptable_without_category_is_set_aside():
    tasks = annotated().iloc[:2].copy()
    tasks.loc[1, "error_type"] = None
    _, rejected, _ = merge_into_corpus(in_domain(), candidates(), tasks)
    assert rejected["reason"].tolist() == ["missing_error_type"]


def test_duplicated_candidate_ids_fail():
    doubled = pd.concat([candidates(), candidates().iloc[:1]], ignore_index=True)
    with pytest.raises(RucolaError, match="candidate id 'c1' appears twice"):
        merge_into_corpus(in_domain(), doubled, annotated())


def test_cli_corpus_stage(run_cli, project):
    write_parquet(in_domain(), project / "data/interim/in_domain.parquet", schema.BASE_SCHEMA)
    write_parquet(candidates(), project / "data/interim/candidates.parquet")
    write_parquet(annotated(), project / "data/interim/annotated.parquet")
    code, stdout, stderr = run_cli("annotate", "corpus", cwd=project)
    assert code == 0, stderr
    assert "2 out-of-domain rows" in stdout
    combined = read_parquet(project / "data/interim/combined.parquet")
    assert len(combined) == 4 and combined["label"].dtype == "int64"
    rejected = read_parquet(project / "data/interim/rejected/annotate.parquet")
    assert len(rejected) == 4
    report = json.loads((project / "reports/annotate_corpus.json").read_text())
    assert report["set_aside"]["pending"] == 1
