"""Stratified, group-aware, deterministic splits."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from corpora import corpus

from rucola.corpus.split import assign_splits, run_split
from rucola.errors import RucolaError
from rucola.io import write_parquet
from rucola.params import DEFAULTS


def split_params(tmp_path, **changes):
    return dict(
        DEFAULTS["split"],
        input=str(tmp_path / "in.parquet"),
        out=str(tmp_path / "out.parquet"),
        report=str(tmp_path / "split.json"),
        **changes,
    )


def test_ratios_balance_and_groups(tmp_path):
    write_parquet(corpus(), tmp_path / "in.parquet")
    report = run_split(split_params(tmp_path))
    out = pd.read_parquet(tmp_path / "out.parquet")
    ind = out[out["domain"] == "in_domain"]
    shares = ind["split"].value_counts(normalize=True)
    assert shares["train"] == pytest.approx(0.8, abs=0.005)
    assert shares["validation"] == pytest.approx(0.1, abs=0.005)
    for split, part in ind.groupby("split"):
        assert part["label"].mean() == pytest.approx(0.75, abs=0.01), split
        # every source is spread over every split
        assert part["detailed_source"].nunique() == 5
    ood = out[out["domain"] == "out_of_domain"]
    assert "train" not in set(ood["split"])
    sizes = ood["split"].value_counts().to_dict()
    assert set(sizes) == {"validation", "test"}
    assert abs(sizes["validation"] - 100) <= 2  # within one unit per label
    assert (out.groupby("group")["split"].nunique() == 1).all()
    assert report["domains"]["in_domain"]["splits"]["train"]["rows"] == shares["train"] * 1000
    assert json.loads((tmp_path / "split.json").read_text()) == report


def test_ids_are_sequential_per_split_and_deterministic(tmp_path):
    frame = corpus()
    write_parquet(frame, tmp_path / "in.parquet")
    run_split(split_params(tmp_path))
    first = (tmp_path / "out.parquet").read_bytes()
    out = pd.read_parquet(tmp_path / "out.parquet")
    for _, part in out.groupby("split"):
        assert sorted(part["id"]) == list(range(len(part)))
    # Row order of the input does not matter; the seed does.
    write_parquet(frame.sample(frac=1, random_state=3), tmp_path / "in.parquet")
    run_split(split_params(tmp_path))
    assert (tmp_path / "out.parquet").read_bytes() == first
    run_split(split_params(tmp_path, seed=7))
    assert (tmp_path / "out.parquet").read_bytes() != first


def test_bad_ratios(tmp_path):
    write_parquet(corpus(), tmp_path / "in.parquet")
    with pytest.raises(RucolaError, match="add up to 1"):
        run_split(
            split_params(
                tmp_path, ratios={"in_domain": [0.8, 0.1, 0.2], "out_of_domain": [0, 0.5, 0.5]}
            )
        )


def test_group_is_one_unit():
    frame = pd.DataFrame(
        {
            "sentence": list("abcdef"),
            "label": [1, 0] * 3,
            "error_type": [None, "Syntax"] * 3,
            "detailed_source": "S",
            "group": ["x", "x", "x", "y", "z", "w"],
        }
    )
    splits = assign_splits(frame, [0.5, 0.25, 0.25], seed=1)
    assert splits.iloc[0] == splits.iloc[1] == splits.iloc[2]


def test_pin_keeps_splits_and_reports_changes(tmp_path):
    frame = corpus(400)
    write_parquet(frame, tmp_path / "in.parquet")
    run_split(split_params(tmp_path))
    old = pd.read_parquet(tmp_path / "out.parquet")
    old.to_parquet(tmp_path / "pin.parquet")
    # next version: 20 rows removed, 60 new ones, another seed that would reshuffle
    grown = pd.concat([frame.iloc[20:], corpus(460).iloc[400:460]])
    write_parquet(grown, tmp_path / "in.parquet")
    report = run_split(split_params(tmp_path, seed=99, pin=str(tmp_path / "pin.parquet")))
    new = pd.read_parquet(tmp_path / "out.parquet")
    before = dict(zip(old["sentence"], old["split"], strict=True))
    kept = new[new["sentence"].isin(before)]
    assert (kept["split"] == kept["sentence"].map(before)).all()
    assert report["pin"]["pinned"] == len(kept) and report["pin"]["removed"] == 20
    assert report["pin"]["new"] == len(new) - len(kept)
    assert set(new.loc[~new["sentence"].isin(before), "split"]) >= {"train"}


def test_published_rucola_as_source_and_pin(shared_data, tmp_path):
    from rucola.corpus.extract import extract
    from rucola.corpus.split import run_split as split_stage

    params = dict(DEFAULTS["extract"], artefacts="keep")
    sources = [
        {"path": str(shared_data / "rucola" / f), "type": "rucola_csv"}
        for f in ("in_domain_train.csv", "in_domain_dev.csv")
    ]
    extract(sources, params, tmp_path / "in.parquet", tmp_path / "r.parquet", tmp_path / "x.json")
    split_stage(split_params(tmp_path, pin=str(shared_data / "rucola")))
    out = pd.read_parquet(tmp_path / "out.parquet")
    for name, split in [("in_domain_train.csv", "train"), ("in_domain_dev.csv", "validation")]:
        published = pd.read_csv(shared_data / "rucola" / name)
        from rucola.corpus.dedup import sentence_key

        assert {sentence_key(s) for s in published["sentence"]} == {
            sentence_key(s) for s in out.loc[out["split"] == split, "sentence"]
        }


def published_rows() -> pd.DataFrame:
    """A published release: ids per file, a near-duplicate group straddling train and
    validation, two new rows in that group's domain."""
    rows = [
        ("Всем дано по пять апельсинов.", 1, "train", 7, "g1"),
        ("Всем дано по пять апельсин.", 0, "validation", 3, "g1"),
        ("Всем дано по пять апельсинам.", 0, "train", 8, "g1"),
        ("Новое предложение о погоде.", 1, None, None, "g1"),  # joins its group's pins
        ("Совсем новое предложение.", 1, None, None, "g9"),
    ]
    frame = pd.DataFrame(
        rows, columns=["sentence", "label", "published_split", "published_id", "group"]
    )
    frame["published_id"] = frame["published_id"].astype("Int64")
    frame["error_type"] = [None if label else "Morphology" for label in frame["label"]]
    frame["domain"] = "in_domain"
    frame["detailed_source"] = "Book"
    return frame


def test_published_rows_keep_id_and_split_and_the_pin_wins_over_groups(tmp_path):
    write_parquet(published_rows(), tmp_path / "in.parquet")
    report = run_split(split_params(tmp_path))
    out = pd.read_parquet(tmp_path / "out.parquet").set_index("sentence")
    assert out.at["Всем дано по пять апельсинов.", "split"] == "train"
    assert out.at["Всем дано по пять апельсинов.", "id"] == 7
    assert out.at["Всем дано по пять апельсин.", "split"] == "validation"
    assert out.at["Всем дано по пять апельсин.", "id"] == 3
    assert out.at["Новое предложение о погоде.", "split"] == "train"  # the group's majority
    assert pd.isna(out.at["Новое предложение о погоде.", "pinned_split"])
    new_ids = out.loc[out["pinned_split"].isna() & (out["split"] == "train"), "id"]
    assert sorted(new_ids) == list(range(9, 9 + len(new_ids)))  # after the largest id
    assert report["pin"]["published"] == 3 and report["pin"]["straddling_groups"] == 1
    assert report["pin"]["straddling"][0]["group"] == "g1"


def test_a_pin_matches_other_rows_by_text_and_keeps_their_ids(tmp_path):
    old = published_rows().iloc[:3].copy()
    old["split"], old["id"] = old["published_split"], old["published_id"].astype("int64")
    old.drop(columns=["published_split", "published_id"]).to_parquet(tmp_path / "pin.parquet")
    frame = published_rows().iloc[:3].copy()
    frame["published_split"] = None  # rows from a sheet: only the pin knows them
    frame["published_id"] = pd.array([None] * 3, dtype="Int64")
    frame.loc[0, "sentence"] = "Всем дано по пять апельсинов!"  # not the pinned text
    write_parquet(frame, tmp_path / "in.parquet")
    report = run_split(split_params(tmp_path, pin=[str(tmp_path / "pin.parquet")]))
    out = pd.read_parquet(tmp_path / "out.parquet").set_index("sentence")
    assert out.at["Всем дано по пять апельсин.", "id"] == 3  # matched by text
    assert out.at["Всем дано по пять апельсин.", "split"] == "validation"
    assert report["pin"]["pinned"] == 2 and report["pin"]["removed"] == 1
    assert pd.isna(out.at["Всем дано по пять апельсинов!", "pinned_split"])
