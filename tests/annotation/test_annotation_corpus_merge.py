"""Labelled out-of-domain rows join the in-domain stream; the rest is set aside, counted."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from identity import identity_yaml, rucola_categories

from rucola.annotation.corpus_merge import SET_ASIDE_SCHEMA, merge_into_corpus
from rucola.corpus import schema
from rucola.errors import RucolaError
from rucola.io import read_parquet, write_parquet
from rucola.settings import Categories
from rucola.stage import StageRun


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


def merged(
    in_domain: pd.DataFrame,
    candidates: pd.DataFrame,
    annotated: pd.DataFrame,
    categories: Categories | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """The rows, the set-aside rows and the report of a run that writes nothing
    (``categories``: ``corpus.categories``, RuCoLA's unless given)."""
    categories = categories or rucola_categories()
    with StageRun("annotate", report=None, set_aside_schema=SET_ASIDE_SCHEMA) as run:
        rows, counts = merge_into_corpus(in_domain, candidates, annotated, run, categories)
        run.count_kept(len(rows))
        return rows, run.set_aside_table().to_pandas(), run.report(**counts)


def test_a_category_the_out_of_domain_list_lacks_is_set_aside():
    """The categories are the params' (``corpus.categories.out_of_domain``): c2's Syntax,
    kept with RuCoLA's, is set aside when the list lacks it."""
    own = Categories.model_validate({"out_of_domain": ["Morphology", "Hallucination"]})
    rows, rejected, _ = merged(in_domain(), candidates(), annotated(), own)
    assert "annotations:c2" not in set(rows["origin"])
    (row,) = rejected[rejected["origin"] == "annotations:c2"].itertuples()
    assert (row.reason, row.detail) == ("missing_error_type", "Syntax")


def test_a_corpus_without_categories_adds_unacceptable_rows_without_one():
    """No categories declared (CoLA, ItaCoLA): a single round's unacceptable row joins
    without a category, where RuCoLA's would be set aside (``missing_error_type``)."""
    tasks = annotated().iloc[:2].copy()
    tasks["error_type"] = None
    none = Categories.model_validate({"in_domain": [], "out_of_domain": [], "learner": []})
    rows, rejected, _ = merged(in_domain(), candidates(), tasks, none)
    (row,) = rows[rows["origin"] == "annotations:c2"].itertuples()
    assert row.label == 0 and row.error_type is None
    _, rejected, _ = merged(in_domain(), candidates(), tasks)
    assert rejected["reason"].tolist() == ["missing_error_type"]


def test_merge_into_corpus():
    rows, rejected, counts = merged(in_domain(), candidates(), annotated())
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
    _, rejected, _ = merged(in_domain(), candidates(), tasks)
    assert rejected["reason"].tolist() == ["missing_error_type"]


def test_repeated_sentences_keep_the_first_and_conflicts_lose_all():
    """Five labelled copies of two sentences (``sentence_key``: the homoglyph ``о`` in
    c7 is the same letter): the same label keeps the first by id, the rest are
    ``duplicate`` of it; a label or category that differs sets every copy aside."""
    same, other = "Кошка спит на окне.", "Собака лает во дворе."
    rows = [
        ("c6", same, 1, None),
        ("c7", same.replace("о", "o", 1), 1, None),
        ("c8", other, 0, "Syntax"),
        ("c9", same, 1, None),
        ("d1", other, 0, "Semantics"),
    ]
    ids, sentences, labels, types = (list(c) for c in zip(*rows, strict=True))
    extra = pd.DataFrame(
        {
            "sentence": sentences,
            "detailed_source": "Tatoeba",
            "generator": "opus-mt",
            "method": "translation",
            "source_sentence": "x",
            "seed": 7,
            "candidate_id": ids,
        }
    )
    tasks = pd.DataFrame(
        {
            "id": ids,
            "sentence": sentences,
            "label": pd.array(labels, dtype="Int64"),
            "error_type": types,
            "status": "labelled",
            "reason": None,
        }
    )
    rows_out, rejected, counts = merged(in_domain(), extra, tasks)
    assert rows_out[rows_out["domain"] == schema.OUT_OF_DOMAIN]["group"].tolist() == ["c6"]
    details = [d if isinstance(d, str) else None for d in rejected["detail"]]
    assert list(zip(rejected["origin"], rejected["reason"], details, strict=True)) == [
        ("annotations:c7", "duplicate", "of c6"),
        ("annotations:c9", "duplicate", "of c6"),
        ("annotations:c8", "conflicting_labels", None),
        ("annotations:d1", "conflicting_labels", None),
    ]
    assert counts["set_aside"] == {"conflicting_labels": 2, "duplicate": 2}
    assert counts["read"] == counts["kept"] + 4


def test_duplicated_candidate_ids_fail():
    doubled = pd.concat([candidates(), candidates().iloc[:1]], ignore_index=True)
    with pytest.raises(RucolaError, match="candidate id 'c1' appears twice"):
        merged(in_domain(), doubled, annotated())


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


def test_cli_corpus_reads_the_files_where_their_stages_write_them(run_cli, tmp_path):
    """Each input is the key of the stage that writes it (``extract.out``, ``annotate.out``,
    ``generate.merge.out``): one key per path, nothing to keep in step."""
    write_parquet(in_domain(), tmp_path / "mine/in_domain.parquet", schema.BASE_SCHEMA)
    write_parquet(candidates(), tmp_path / "mine/candidates.parquet")
    write_parquet(annotated(), tmp_path / "mine/annotated.parquet")
    (tmp_path / "params.yaml").write_text(
        identity_yaml(
            "extract:\n  out: mine/in_domain.parquet\n"
            "annotate:\n  out: mine/annotated.parquet\n"
            "generate:\n  merge:\n    out: mine/candidates.parquet\n"
        ),
        encoding="utf-8",
    )
    code, stdout, stderr = run_cli(
        "annotate", "corpus", "--out", "trial/rows.parquet", cwd=tmp_path
    )
    assert code == 0, stderr
    assert "2 out-of-domain rows" in stdout
    # --out alone: the set-aside rows and the report go beside it, under their own names
    assert len(read_parquet(tmp_path / "trial/rows.parquet")) == 4
    assert len(read_parquet(tmp_path / "trial/annotate.parquet")) == 4
    assert json.loads((tmp_path / "trial/annotate_corpus.json").read_text())["kept"] == 4
    assert not (tmp_path / "data").exists() and not (tmp_path / "reports").exists()
