"""CoLA's raw TSV and ItaCoLA's TSV read as published (issue 35, 2; needs RUCOLA_SHARED_DATA):
every row is kept or set aside with a reason, the kept ones with their published label and
split."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from identity import rucola_categories

from rucola.corpus.extract import extract
from rucola.settings import Extract, ExtractSource

COLA_FILES = ["in_domain_train.tsv", "in_domain_dev.tsv", "out_of_domain_dev.tsv"]
COLA_SPLITS = {
    "in_domain_train": ("train", "in_domain"),
    "in_domain_dev": ("validation", "in_domain"),
    "out_of_domain_dev": ("validation", "out_of_domain"),
}


def _run(tmp_path: Path, source: ExtractSource, **keys) -> tuple[dict, pd.DataFrame, pd.DataFrame]:
    settings = Extract(
        sources=[source],
        out=str(tmp_path / "out.parquet"),
        rejected=str(tmp_path / "rejected.parquet"),
        report=str(tmp_path / "report.json"),
        private_report=str(tmp_path / "private.json"),
        require_error_type=False,
        **keys,
    )
    extract(settings, rucola_categories())
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    return (
        report,
        pd.read_parquet(tmp_path / "out.parquet"),
        pd.read_parquet(tmp_path / "rejected.parquet"),
    )


def _published_cola(folder: Path) -> dict[str, tuple[int, str, str]]:
    """origin -> (label, split, domain), read with the csv module, quoting off."""
    rows = {}
    for name in COLA_FILES:
        path = folder / name
        with path.open(encoding="utf-8", newline="") as handle:
            for line, row in enumerate(
                csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE), 1
            ):
                rows[f"{path}:{line}"] = (int(row[1]), *COLA_SPLITS[path.stem])
    return rows


@pytest.mark.slow
def test_cola_every_row_has_a_fate_and_keeps_its_label_and_split(shared_data, tmp_path):
    folder = shared_data / "cola"
    published = _published_cola(folder)
    assert len(published) == 9594
    report, kept, aside = _run(
        tmp_path, ExtractSource(path=str(folder), type="cola_tsv"), artefacts="keep"
    )
    assert report["read"] == 9594 == report["kept"] + sum(report["set_aside"].values())
    assert set(kept["origin"]) | set(aside["origin"]) == set(published)
    assert kept["origin"].is_unique
    for origin, label, split, domain in zip(
        kept["origin"], kept["label"], kept["published_split"], kept["domain"], strict=True
    ):
        assert (label, split, domain) == published[origin], origin
    # the one training row labelled 0 without a mark
    contradicted = aside[aside["reason"] == "mark_contradicts_label"]
    assert contradicted["sentence"].tolist() == ["That he ever went there alone is certain."]
    # three training sentences hold a backspace (U+0008): never part of a sentence
    control = aside[aside["reason"] == "control_character"]
    assert control["detail"].tolist() == ["U+0008 BS"] * 3
    assert report["set_aside"] == {
        "mark_contradicts_label": 1,
        "control_character": 3,
        "duplicate": 25,  # 41 repeated copies: 16 of them in the 32 rows below
        "conflicting_labels": 32,  # 16 sentences published with both labels
    }
    assert report["kept"] == 9533
    assert kept["published_id"].notna().all()


@pytest.mark.slow
def test_itacola_as_published(shared_data, tmp_path):
    path = shared_data / "itacola" / "ItaCoLA_dataset.tsv"
    report, kept, aside = _run(
        tmp_path,
        ExtractSource(path=str(path), type="itacola_tsv"),
        artefacts="keep",
        deduplicate=False,
    )
    assert report["read"] == 9722 == report["kept"]
    assert Counter(kept["published_split"]) == {"train": 7801, "validation": 946, "test": 975}
    assert Counter(kept["label"]) == {1: 8212, 0: 1510}
    assert kept["published_id"].is_unique
    with path.open(encoding="utf-8", newline="") as handle:
        table = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    gold = {int(r["UniqueIndexID"]): int(r["Acceptability"]) for r in table}
    assert dict(zip(kept["published_id"], kept["label"], strict=True)) == gold
    # the split stage keeps every published split and id, whatever split.ratios say
    from rucola.corpus.split import _split
    from rucola.settings import Split

    applied, report = _split(kept.copy(), Split(), path)
    placed = applied.frame
    assert (placed["split"] == placed["published_split"]).all()
    assert (placed["id"] == placed["published_id"]).all()
    assert report["pin"]["published_kept"] == 9722 and report["new_rows"]["rows"] == 0


@pytest.mark.slow
def test_itacola_with_the_default_rules_sets_each_difference_aside(shared_data, tmp_path):
    """With artefacts set aside (the default), the editorial bracket is the only row lost."""
    path = shared_data / "itacola" / "ItaCoLA_dataset.tsv"
    report, kept, aside = _run(tmp_path, ExtractSource(path=str(path), type="itacola_tsv"))
    assert report["read"] == report["kept"] + sum(report["set_aside"].values()) == 9722
    assert report["set_aside"] == {"artefact:editorial_bracket": 1}
    assert aside["sentence"].str.startswith("Il Gentile […] aveva dichiarato").tolist() == [True]
    assert (aside["published_split"].tolist(), aside["label"].tolist()) == (["train"], [1])
