"""Stratified, group-aware, deterministic splits."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from corpora import corpus
from identity import rucola_categories

from rucola.corpus.split import assign_splits, run_split, summary_lines
from rucola.errors import RucolaError
from rucola.io import file_sha256, write_parquet
from rucola.params import with_overrides
from rucola.settings import Split


def split_params(tmp_path, **changes) -> tuple[Split, str]:
    """The split settings (defaults, paths under ``tmp_path``, ``changes``) and the input."""
    settings = with_overrides(
        Split(),
        out=str(tmp_path / "out.parquet"),
        rejected=str(tmp_path / "rejected.parquet"),
        report=str(tmp_path / "split.json"),
        private_report=str(tmp_path / "private_split.json"),
        plot=str(tmp_path / "token_lengths.csv"),
        plot_png=str(tmp_path / "token_lengths.png"),
        **changes,
    )
    return settings, str(tmp_path / "in.parquet")


def test_ratios_balance_and_groups(tmp_path):
    write_parquet(corpus(), tmp_path / "in.parquet")
    report = run_split(*split_params(tmp_path))
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
    private = json.loads((tmp_path / "private_split.json").read_text())
    assert private.pop("data_sha256") == file_sha256(tmp_path / "out.parquet")
    assert private == report
    public = json.loads((tmp_path / "split.json").read_text())  # what git tracks
    assert public["test"] == {"rows": int((out["split"] == "test").sum()), "configs": {
        "default": int((out["split"] == "test").sum())}}  # fmt: skip
    for domain in public["domains"].values():
        assert set(domain) == {"splits"} and set(domain["splits"]) == {"train", "validation"}


@pytest.mark.slow
def test_ids_are_sequential_per_numbering_and_deterministic(tmp_path):
    """Train and validation are numbered per domain (as the published files are), test as
    one split (its domains hidden)."""
    frame = corpus()
    write_parquet(frame, tmp_path / "in.parquet")
    run_split(*split_params(tmp_path))
    first = (tmp_path / "out.parquet").read_bytes()
    out = pd.read_parquet(tmp_path / "out.parquet")
    scope = out["domain"].where(out["split"] != "test", "")
    assert out.loc[out["split"] != "test", "domain"].nunique() > 1
    for _, part in out.groupby([out["split"], scope]):
        assert sorted(part["id"]) == list(range(len(part)))
    # Row order of the input does not matter; the seed does.
    write_parquet(frame.sample(frac=1, random_state=3), tmp_path / "in.parquet")
    run_split(*split_params(tmp_path))
    assert (tmp_path / "out.parquet").read_bytes() == first
    run_split(*split_params(tmp_path, seed=7))
    assert (tmp_path / "out.parquet").read_bytes() != first


def test_bad_ratios(tmp_path):
    write_parquet(corpus(), tmp_path / "in.parquet")
    # the schema refuses them before the stage runs, whether from a file or an option
    with pytest.raises(RucolaError, match="add up to 1"):
        split_params(
            tmp_path, ratios={"in_domain": [0.8, 0.1, 0.2], "out_of_domain": [0, 0.5, 0.5]}
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
    run_split(*split_params(tmp_path))
    old = pd.read_parquet(tmp_path / "out.parquet")
    old.to_parquet(tmp_path / "pin.parquet")
    # next version: 20 rows removed, 60 new ones, another seed that would reshuffle
    grown = pd.concat([frame.iloc[20:], corpus(460).iloc[400:460]])
    write_parquet(grown, tmp_path / "in.parquet")
    report = run_split(*split_params(tmp_path, seed=99, pin=str(tmp_path / "pin.parquet")))
    new = pd.read_parquet(tmp_path / "out.parquet")
    before = dict(zip(old["sentence"], old["split"], strict=True))
    kept = new[new["sentence"].isin(before)]
    assert (kept["split"] == kept["sentence"].map(before)).all()
    assert report["pin"]["matched_by_pin"] == len(kept) and report["pin"]["removed"] == 20
    assert report["pin"]["published_kept"] == 0
    assert report["pin"]["new"] == len(new) - len(kept)
    assert set(new.loc[~new["sentence"].isin(before), "split"]) >= {"train"}


@pytest.mark.slow
def test_published_rucola_as_source_and_pin(shared_data, tmp_path):
    from rucola.corpus.extract import extract
    from rucola.corpus.split import run_split as split_stage
    from rucola.settings import Extract, ExtractSource

    settings = Extract(
        artefacts="keep",
        out=str(tmp_path / "in.parquet"),
        rejected=str(tmp_path / "r.parquet"),
        report=str(tmp_path / "x.json"),
        private_report=str(tmp_path / "private_x.json"),
    )
    sources = [
        ExtractSource(path=str(shared_data / "rucola" / f), type="rucola_csv")
        for f in ("in_domain_train.csv", "in_domain_dev.csv")
    ]
    extract(settings, rucola_categories(), sources)
    split_stage(*split_params(tmp_path, pin=str(shared_data / "rucola")))
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
    report = run_split(*split_params(tmp_path))
    out = pd.read_parquet(tmp_path / "out.parquet").set_index("sentence")
    assert out.at["Всем дано по пять апельсинов.", "split"] == "train"
    assert out.at["Всем дано по пять апельсинов.", "id"] == 7
    assert out.at["Всем дано по пять апельсин.", "split"] == "validation"
    assert out.at["Всем дано по пять апельсин.", "id"] == 3
    assert out.at["Новое предложение о погоде.", "split"] == "train"  # the group's majority
    assert pd.isna(out.at["Новое предложение о погоде.", "pinned_split"])
    new_ids = out.loc[out["pinned_split"].isna() & (out["split"] == "train"), "id"]
    assert sorted(new_ids) == list(range(9, 9 + len(new_ids)))  # after the largest id
    assert report["pin"]["published_kept"] == 3 and report["pin"]["straddling_groups"] == 1
    assert report["pin"]["new_in_pinned_groups"] == 1  # the row that joined g1
    assert report["new_rows"]["by_domain"] == {
        "in_domain": {"train": 1, "validation": 0, "test": 0}
    }
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
    report = run_split(*split_params(tmp_path, pin=[str(tmp_path / "pin.parquet")]))
    out = pd.read_parquet(tmp_path / "out.parquet").set_index("sentence")
    assert out.at["Всем дано по пять апельсин.", "id"] == 3  # matched by text
    assert out.at["Всем дано по пять апельсин.", "split"] == "validation"
    assert report["pin"]["matched_by_pin"] == 2 and report["pin"]["removed"] == 1
    assert pd.isna(out.at["Всем дано по пять апельсинов!", "pinned_split"])


def published_without_gold(new: int = 40, test_ids: int = 10) -> pd.DataFrame:
    """A published release as read without the private gold (80 train and 10 validation
    rows in domain, ``test_ids`` unlabelled test rows with no domain), plus ``new`` rows
    from a sheet (70% acceptable, three categories)."""
    rows = []
    for split, count in (("train", 80), ("validation", 10)):
        for i in range(count):
            label = int(i % 4 != 0)
            rows.append(
                (f"Опубликованное {split} {i}.", label, "in_domain", split, i, "Book", None)
            )
    for i in range(test_ids):
        rows.append((f"Скрытое тестовое {i}.", -1, None, "test", i, None, None))
    for i in range(new):
        label = int(i % 10 < 7)
        rows.append(
            (f"Новое предложение из листа {i}.", label, "in_domain", None, None, "Sheet", i)
        )
    frame = pd.DataFrame(
        rows,
        columns=[
            "sentence",
            "label",
            "domain",
            "published_split",
            "published_id",
            "detailed_source",
            "n",
        ],
    )
    categories = ["Morphology", "Syntax", "Semantics"]
    frame["error_type"] = [
        None if label != 0 else categories[i % 3] for i, label in enumerate(frame["label"])
    ]
    frame["published_id"] = frame["published_id"].astype("Int64")
    frame["group"] = [f"g{i}" for i in range(len(frame))]
    return frame.drop(columns=["n"])


def test_new_rows_are_split_among_themselves_whatever_the_hidden_test_looks_like(tmp_path):
    """Issue 24: without the gold the published test rows have no domain, so the in-domain
    test looked empty and every new row went to test."""
    write_parquet(published_without_gold(), tmp_path / "in.parquet")
    report = run_split(*split_params(tmp_path))
    out = pd.read_parquet(tmp_path / "out.parquet")
    new = out[out["pinned_split"].isna()]
    sizes = new["split"].value_counts().to_dict()
    assert sizes == {"train": 32, "validation": 4, "test": 4}
    assert report["new_rows"] == {
        "policy": "stratified",
        "rows": 40,
        "by_domain": {"in_domain": sizes},
    }
    for split, part in new.groupby("split"):  # stratified by label, too
        assert part["label"].mean() == pytest.approx(0.7, abs=0.26), split
    # new ids follow the largest id of their split; the published rows keep theirs
    assert sorted(new.loc[new["split"] == "test", "id"]) == [10, 11, 12, 13]
    assert sorted(new.loc[new["split"] == "train", "id"]) == list(range(80, 112))
    published = out[out["pinned_split"].notna()]
    assert (published["split"] == published["published_split"]).all()
    assert (published["id"] == published["published_id"]).all()


def test_new_rows_can_all_go_to_one_split(tmp_path):
    frame = published_without_gold()
    learner = frame[frame["published_split"].isna()].head(20).copy()
    learner["domain"], learner["group"] = "learner", [f"l{i}" for i in range(20)]
    learner["sentence"] = [f"Учебное предложение {i}." for i in range(20)]
    learner["error_type"] = learner["error_type"].where(learner["label"] == 1, "Syntax")
    write_parquet(pd.concat([frame, learner]), tmp_path / "in.parquet")
    report = run_split(*split_params(tmp_path, new_rows="train"))
    out = pd.read_parquet(tmp_path / "out.parquet")
    new = out[out["pinned_split"].isna()]
    assert set(new.loc[new["domain"] == "in_domain", "split"]) == {"train"}
    # a domain new in this version has no test to keep: split by the ratios
    assert new.loc[new["domain"] == "learner", "split"].value_counts().to_dict() == {
        "train": 16,
        "validation": 2,
        "test": 2,
    }
    assert report["new_rows"]["policy"] == "train"
    assert report["new_rows"]["by_domain"]["in_domain"] == {
        "train": 40,
        "validation": 0,
        "test": 0,
    }


def test_new_rows_to_a_split_the_domain_has_no_room_in_is_refused(tmp_path):
    frame = published_without_gold(new=3)
    frame["domain"] = frame["domain"].where(frame["domain"].isna(), "out_of_domain")
    frame["error_type"] = frame["error_type"].where(frame["label"] != 0, "Hallucination")
    frame.loc[frame["published_split"] == "train", "published_split"] = "validation"
    frame.loc[frame["published_split"] == "validation", "published_id"] = range(90)
    write_parquet(frame, tmp_path / "in.parquet")
    with pytest.raises(RucolaError, match="split.ratios.out_of_domain gives train no rows"):
        run_split(*split_params(tmp_path, new_rows="train"))
    assert not (tmp_path / "out.parquet").exists()


def test_a_new_row_follows_its_pinned_group_even_when_the_pin_hides_its_domain(tmp_path):
    """Pins win and groups stay whole: a new near-duplicate of an unlabelled published test
    row (no domain) joins it in test, whatever split.new_rows says."""
    frame = published_without_gold(new=5)
    hidden = frame.index[frame["published_split"] == "test"][0]
    newcomer = frame.index[frame["published_split"].isna()][0]
    frame.loc[newcomer, "group"] = frame.at[hidden, "group"]
    write_parquet(frame, tmp_path / "in.parquet")
    report = run_split(*split_params(tmp_path, new_rows="train"))
    out = pd.read_parquet(tmp_path / "out.parquet").set_index("sentence")
    assert out.at[frame.at[newcomer, "sentence"], "split"] == "test"
    assert report["pin"]["new_in_pinned_groups"] == 1
    assert report["new_rows"]["by_domain"]["in_domain"]["train"] == 4


def test_a_removed_rows_id_is_never_given_to_a_new_row(tmp_path):
    """The pin names every id a version published: a row removed since keeps its id
    retired, so a submission naming it never scores another sentence."""
    frame = published_without_gold(new=0)
    frame[["sentence", "published_split", "published_id"]].rename(
        columns={"published_split": "split", "published_id": "id"}
    ).to_parquet(tmp_path / "pin.parquet")
    grown = published_without_gold(new=40)
    grown = grown[~((grown["published_split"] == "test") & (grown["published_id"] >= 7))]
    write_parquet(grown, tmp_path / "in.parquet")
    run_split(*split_params(tmp_path, pin=[str(tmp_path / "pin.parquet")]))
    out = pd.read_parquet(tmp_path / "out.parquet")
    new_test = out[out["pinned_split"].isna() & (out["split"] == "test")]
    assert len(new_test) == 4 and new_test["id"].min() == 10  # 7, 8, 9 stay retired


def test_the_summary_says_what_the_pins_did(tmp_path):
    write_parquet(published_without_gold(), tmp_path / "in.parquet")
    lines = summary_lines(run_split(*split_params(tmp_path)))
    assert lines[0] == "split: in_domain: train 112, validation 14, test 4"
    assert "split: published rows without labels or domain (no gold): test 10" in lines
    assert lines[-1] == (
        "split: 100 published rows kept their own split and id, 0 rows matched by split.pin,"
        " 0 pinned rows no longer in the data; 40 new rows (stratified: in_domain train 32,"
        " validation 4, test 4)"
    )


def with_out_of_domain_validation(frame: pd.DataFrame, rows: int = 30) -> pd.DataFrame:
    """``frame`` and ``rows`` published out-of-domain validation rows, ids 0 to rows - 1:
    more than in-domain validation's 10, as in RuCoLA (982 in domain, 1803 out of it)."""
    ood = pd.DataFrame(
        {
            "sentence": [f"Опубликованное вне домена {i}." for i in range(rows)],
            "label": [int(i % 2 == 0) for i in range(rows)],
            "domain": "out_of_domain",
            "published_split": "validation",
            "published_id": pd.array(range(rows), dtype="Int64"),
            "detailed_source": "MT",
            "error_type": [None if i % 2 == 0 else "Hallucination" for i in range(rows)],
            "group": [f"o{i}" for i in range(rows)],
        }
    )
    return pd.concat([frame, ood], ignore_index=True)


def test_a_new_row_follows_the_largest_id_of_its_own_split_and_domain(tmp_path):
    """Issue 33, point 9: train and validation are numbered per domain, so a new in-domain
    validation row follows in-domain validation's largest id (9: it gets 10), not
    out-of-domain's (29); test is one numbering, after the largest test id."""
    frame = with_out_of_domain_validation(published_without_gold(new=6))
    write_parquet(frame, tmp_path / "in.parquet")
    run_split(*split_params(tmp_path, new_rows="validation"))
    out = pd.read_parquet(tmp_path / "out.parquet")
    new = out[out["pinned_split"].isna()]
    assert set(new["split"]) == {"validation"} and set(new["domain"]) == {"in_domain"}
    assert sorted(new["id"]) == list(range(10, 16))
    published = out[out["pinned_split"].notna()]
    assert (published["id"] == published["published_id"]).all()
    keys = out[out["split"] != "test"][["split", "domain", "id"]]
    assert not keys.duplicated().any()

    write_parquet(frame, tmp_path / "in.parquet")
    run_split(*split_params(tmp_path, new_rows="test"))
    new = pd.read_parquet(tmp_path / "out.parquet").query("pinned_split.isna()")
    assert sorted(new["id"]) == list(range(10, 16))  # after test's 0 to 9, whatever domain


def test_a_pins_removed_ids_count_in_their_own_domain_only(tmp_path):
    """The floor a pin sets (removed rows' ids included) is per split and domain: the
    out-of-domain validation rows a pin names, gone now, hold out-of-domain's ids back,
    not in-domain's."""
    first = tmp_path / "v1"
    first.mkdir()
    published = with_out_of_domain_validation(published_without_gold(new=0))
    write_parquet(published, first / "in.parquet")
    run_split(*split_params(first))
    # matched by text now (no published identity); of out-of-domain only row 0 is left
    frame = with_out_of_domain_validation(published_without_gold(new=0))
    frame = frame.drop(columns=["published_split", "published_id"])
    kept = frame["domain"].eq("in_domain") | frame["sentence"].eq("Опубликованное вне домена 0.")
    extra = pd.DataFrame(
        {
            "sentence": ["Новое в домене.", "Новое вне домена."],
            "label": [1, 1],
            "domain": ["in_domain", "out_of_domain"],
            "detailed_source": ["Sheet", "MT"],
            "error_type": [None, None],
            "group": ["n1", "n2"],
        }
    )
    frame = pd.concat([frame[kept], extra], ignore_index=True)
    write_parquet(frame, tmp_path / "in.parquet")
    run_split(*split_params(tmp_path, pin=[str(first / "out.parquet")], new_rows="validation"))
    out = pd.read_parquet(tmp_path / "out.parquet").set_index("sentence")
    assert out.at["Новое в домене.", "split"] == "validation"
    assert out.at["Новое в домене.", "id"] == 10  # in-domain validation: 0 to 9 before
    assert out.at["Новое вне домена.", "split"] == "validation"
    assert out.at["Новое вне домена.", "id"] == 30  # after the pin's 0 to 29, 1 to 29 removed
    assert out.at["Опубликованное вне домена 0.", "id"] == 0
