"""The hidden test stays hidden: nothing in the public folder or the CSV export (files, card,
plots, ids, order) tells a test row's domain, label or category better than chance.

Two proofs: the public files do not change when the hidden attributes are shuffled among
the test rows (so no file depends on them row by row), and ids and file order, the one
thing the split stage chooses per row, are independent of them by a rank test (which
flags the contiguous-by-domain ids the build once had)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from corpora import corpus, split_settings
from test_build import PARAMS, typed, write_input

from rucola.corpus.split import run_split
from rucola.io import OWNER_FILE, file_sha256, write_parquet
from rucola.release.build import build_release
from rucola.release.compat import export_rucola_csv

HIDDEN = ["label", "error_type", "domain", "detailed_source"]
# |z| of a rank test above this: the feature separates the classes (p < 0.0005, two-sided)
Z_LIMIT = 3.5


def rank_z(values: pd.Series, member: pd.Series) -> float:
    """Mann-Whitney z (normal approximation) of ``values`` in ``member`` against the rest."""
    ranks = values.rank().to_numpy()
    inside = member.to_numpy(dtype=bool)
    n1, n2 = int(inside.sum()), int((~inside).sum())
    if not n1 or not n2:
        return 0.0
    u = ranks[inside].sum() - n1 * (n1 + 1) / 2
    return (u - n1 * n2 / 2) / math.sqrt(n1 * n2 * (n1 + n2 + 1) / 12)


def split_corpus(tmp_path: Path) -> pd.DataFrame:
    """The corpus through the real split stage (new ids, nothing pinned)."""
    frame = corpus()
    frame["n_tokens"] = frame["sentence"].str.split().str.len().astype("int64")
    frame["mark"] = ""
    frame["origin"] = [f"test:{i}" for i in range(len(frame))]
    write_parquet(frame, tmp_path / "filtered.parquet")
    settings = split_settings(tmp_path)
    run_split(settings, tmp_path / "filtered.parquet")
    return pd.read_parquet(tmp_path / "split.parquet")


def build_all(folder: Path, frame: pd.DataFrame) -> dict[str, bytes]:
    """Public folder and CSV export, file by file (the data hash in the card blanked)."""
    path = write_input(folder, frame)
    params = typed(PARAMS, folder)
    build_release(path, folder / "validation.json", params, folder / "rucola", folder / "private")
    export_rucola_csv(path, folder / "rucola_csv")
    files = {}
    for sub in ("rucola", "rucola_csv"):
        for file in sorted((folder / sub).rglob("*")):
            if file.is_file() and file.name != OWNER_FILE:
                files[f"{sub}/{file.relative_to(folder / sub).as_posix()}"] = file.read_bytes()
    card = "rucola/README.md"
    files[card] = files[card].replace(file_sha256(path).encode(), b"<sha>")
    return files


@pytest.mark.slow
def test_shuffling_hidden_attributes_among_test_rows_changes_no_public_byte(tmp_path):
    frame = split_corpus(tmp_path)
    test = frame.index[frame["split"] == "test"]
    assert frame.loc[test, "domain"].nunique() == 2 and frame.loc[test, "label"].nunique() == 2
    shuffled = frame.copy()
    order = np.random.default_rng(0).permutation(len(test))
    shuffled.loc[test, HIDDEN] = frame.loc[test[order], HIDDEN].to_numpy()
    assert (shuffled.loc[test, "domain"] != frame.loc[test, "domain"]).any()

    public = build_all(tmp_path / "a", frame)
    assert public == build_all(tmp_path / "b", shuffled)
    # ...while the private gold, which holds them, did change
    gold = [pd.read_parquet(tmp_path / n / "private/test_gold.parquet") for n in "ab"]
    assert not gold[0].equals(gold[1])


def test_ids_and_order_of_public_test_rows_do_not_tell_domain_label_or_category(tmp_path):
    frame = split_corpus(tmp_path)
    build_all(tmp_path / "r", frame)
    gold = pd.read_parquet(tmp_path / "r/private/test_gold.parquet")
    public = pq.read_table(tmp_path / "r/rucola/default/test.parquet").to_pandas()
    csv = pd.read_csv(tmp_path / "r/rucola_csv/test.csv")
    hidden = gold.set_index("sentence")
    features = {
        "id": public["id"],
        "parquet order": pd.Series(range(len(public))),
        "csv order": pd.Series(range(len(csv))),
        "csv id": csv["id"],
    }
    rows = {
        "id": public["sentence"],
        "parquet order": public["sentence"],
        "csv order": csv["sentence"],
        "csv id": csv["sentence"],
    }
    for name, values in features.items():
        truth = hidden.loc[rows[name].to_numpy()].reset_index()
        classes = {
            "in-domain": truth["domain"] == "in_domain",
            "acceptable": truth["label"] == 1,
            **{
                f"category {c}": truth["error_type"] == c
                for c in sorted(truth["error_type"].dropna().unique())
            },
        }
        for label, member in classes.items():
            z = rank_z(values.reset_index(drop=True), member)
            assert abs(z) < Z_LIMIT, f"{name} separates {label} (z = {z:.1f})"

    # the test can fail: ids numbered domain by domain, as they once were, are flagged
    by_domain = gold.sort_values(["domain", "sentence"]).reset_index(drop=True)
    assert abs(rank_z(pd.Series(range(len(by_domain))), by_domain["domain"] == "in_domain")) > 8


@pytest.mark.slow
@pytest.mark.parametrize("config", ["in_domain", "out_of_domain"])
def test_no_per_domain_test_rows_in_public(tmp_path, config):
    frame = split_corpus(tmp_path)
    build_all(tmp_path / "r", frame)
    sentences = set(frame.loc[frame["split"] == "test", "sentence"])
    folder = tmp_path / "r/rucola" / config
    assert folder.is_dir() and not (folder / "test.parquet").exists()
    for file in sorted((tmp_path / "r/rucola").rglob("*.parquet")):
        if file != tmp_path / "r/rucola/default/test.parquet":
            assert not set(pd.read_parquet(file)["sentence"]) & sentences, file
    for file in sorted((tmp_path / "r/rucola_csv").glob("*.csv")):
        if file.name not in ("test.csv", "sample_submission.csv"):
            assert not set(pd.read_csv(file)["sentence"]) & sentences, file
