"""The published RuCoLA files through every stage (needs RUCOLA_SHARED_DATA)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml
from identity import with_identity

pytestmark = pytest.mark.slow

ALTERNATION = "Иван Грозный не убил (*не убивал) своего сына."
IN_DOMAIN = ["in_domain_train.csv", "in_domain_dev.csv"]
LABELLED = [*IN_DOMAIN, "out_of_domain_dev.csv"]


def write_params(root: Path, shared: Path, files: list[str], **extract) -> None:
    params = {
        "extract": {
            "sources": [{"path": str(shared / "rucola" / f), "type": "rucola_csv"} for f in files],
            **extract,
        },
        # no crowd round here: the extracted rows are what measure reads (annotate.corpus.out)
        "annotate": {"corpus": {"out": "data/interim/in_domain.parquet"}},
        "filter": {"frequency": {"source": "rnc", "path": str(shared / "rnc/freqrnc2011.tsv")}},
    }
    (root / "params.yaml").write_text(yaml.safe_dump(with_identity(params)), encoding="utf-8")


def stages(run_cli, root: Path, names: list[str]) -> dict[str, tuple]:
    results = {}
    for name in names:
        results[name] = run_cli(*name.split(), cwd=root)
        if name != "validate":
            assert results[name][0] == 0, results[name]
    return results


def published(shared: Path, files: list[str]) -> pd.DataFrame:
    frames = []
    for name in files:
        frame = pd.read_csv(shared / "rucola" / name, dtype=str, keep_default_na=False)
        frame["origin"] = [f"{shared / 'rucola' / name}:{i + 2}" for i in range(len(frame))]
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def test_foundation_checks_with_artefacts_kept(run_cli, tmp_path, shared_data):
    """Issue 3's acceptance, as issue 42 defines each row property once: every row survives
    extraction when artefacts are kept, extract names the unexpanded alternation among the
    rows it kept flagged, and validation, checking the columns extract's own rules compute,
    accepts the rows extract kept for that reason (it no longer refuses them a second time)."""
    source = published(shared_data, IN_DOMAIN)
    write_params(tmp_path, shared_data, IN_DOMAIN, artefacts="keep")
    results = stages(run_cli, tmp_path, ["extract", "measure", "filter", "split", "validate"])

    extract = json.loads((tmp_path / "reports/private/extract.json").read_text())
    assert extract["read"] == extract["kept"] == len(source) == 8852
    expected = source.assign(a=source["acceptable"].astype(int)).groupby("detailed_source")["a"]
    for name, share in expected.mean().items():
        assert extract["per_source"][name]["acceptable_share"] == round(share, 4)
        assert extract["per_source"][name]["sentences"] == expected.size()[name]

    report = json.loads((tmp_path / "reports/filter.json").read_text())
    assert report["kept"] / report["read"] >= 0.995
    assert 0.92 <= report["mean_high_freq_share"] <= 0.98

    alternations = [
        found["sentence"]
        for found in extract["artefacts"]["found"]
        if "unexpanded_alternation" in found["kinds"]
    ]
    assert len(alternations) == 1 and ALTERNATION in alternations[0]
    assert all(f["action"] == "kept" for f in extract["artefacts"]["found"])
    code, _, stderr = results["validate"]
    assert code == 0, stderr
    validation = json.loads((tmp_path / "reports/validation.json").read_text())
    assert validation["success"] is True


def test_published_files_rebuild_validate_and_load(run_cli, tmp_path, shared_data):
    """Issue 4's acceptance: artefacts set aside and homoglyphs fixed at extraction, every
    other row keeps its label, category and source; the corpus validates and loads."""
    source = published(shared_data, LABELLED).set_index("origin")
    write_params(tmp_path, shared_data, LABELLED)
    stages(
        run_cli, tmp_path, ["extract", "measure", "filter", "split", "validate", "release build"]
    )
    extract = json.loads((tmp_path / "reports/private/extract.json").read_text())
    artefacts = {a["sentence"]: a["kinds"] for a in extract["artefacts"]["found"]}
    assert ALTERNATION in next(s for s in artefacts if "Грозный" in s)
    assert any("поч не *?" in s for s in artefacts)
    assert any("[березу]" in s for s in artefacts)
    assert len(artefacts) <= 3 + 10  # the three named artefacts, at most 10 more
    assert extract["kept"] + len(artefacts) == len(source)

    kept = pq.read_table(tmp_path / "data/interim/in_domain.parquet").to_pandas()
    original = source.loc[kept["origin"]]
    assert (kept["label"].to_numpy() == original["acceptable"].astype(int).to_numpy()).all()
    assert (kept["detailed_source"].to_numpy() == original["detailed_source"].to_numpy()).all()
    categories = original["error_type"].replace("0", None)
    assert kept["error_type"].fillna("-").tolist() == categories.fillna("-").tolist()
    from rucola.corpus.normalize import normalize_text

    printed = original["sentence"].map(normalize_text).to_numpy()
    changed = kept["sentence"].to_numpy() != printed
    fixed = {f["origin"] for f in extract["homoglyph_fixes"]["fixes"]}
    assert set(kept.loc[changed, "origin"]) == fixed
    assert any("никогда" in s for s in kept.loc[changed, "sentence"])
    assert extract["normalised"]["rows"] >= 1  # e.g. a soft hyphen in the published train

    from datasets import ClassLabel, load_dataset

    release = tmp_path / "data/release/rucola"
    cwd = Path.cwd()
    os.chdir(release.parent)
    try:
        default = load_dataset("rucola")
    finally:
        os.chdir(cwd)
    split = json.loads((tmp_path / "reports/split.json").read_text())["domains"]
    for config, domains in [("in_domain", ["in_domain"]), ("out_of_domain", ["out_of_domain"])]:
        dataset = load_dataset(str(release), config)
        for name, part in dataset.items():
            assert part.num_rows == sum(split[d]["splits"][name]["rows"] for d in domains)
    assert "train" not in load_dataset(str(release), "out_of_domain")
    # Every published row keeps its published split: the labelled files hold no test rows.
    assert set(default) == {"train", "validation"}
    for name in ("train", "validation"):
        assert default[name].num_rows == sum(split[d]["splits"][name]["rows"] for d in split)
    published_ids = pd.read_csv(shared_data / "rucola/in_domain_train.csv", dtype=str)
    by_id = dict(zip(published_ids["id"].astype(int), published_ids["sentence"], strict=True))
    released = default["train"].to_pandas()
    assert released["id"].isin(by_id).all()  # published ids kept, none invented
    same = released["sentence"].to_numpy() == released["id"].map(by_id).to_numpy()
    assert (~same).sum() <= 6  # only the homoglyph repairs changed a published text
    assert isinstance(default["train"].features["label"], ClassLabel)
    assert default["train"].features["label"].names == ["unacceptable", "acceptable"]
    gold = pq.read_table(tmp_path / "data/release/private/test_gold.parquet").to_pandas()
    assert len(gold) == 0
