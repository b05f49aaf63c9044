"""Issue 32, 3 on the published RuCoLA files (needs RUCOLA_SHARED_DATA): nothing git tracks
of a v1.1 build tells what the hidden test rows hide.

Two v1.1 builds of the published files with the maintainer's private gold
(``data/raw/rucola_v1/test_gold.csv``, the folder salted) and one salted errata folder: an
erratum removes a test row, one relabels a training row, and a review decision relabels a
test row. The two golds differ in every hidden attribute of the other test rows (labels
flipped, categories, sources and domains changed); test membership is the published one
(the split is pinned to the published layout). Every file git tracks, after `git add -A`,
is the same but for the hashes of private outputs and salted folders in ``dvc.lock`` and the
keyed fingerprints of the salted folders.
"""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from dvc_project import copy_project
from tracked import lock_differences, tracked_files

pytestmark = pytest.mark.slow

PUBLISHED = ["in_domain_train.csv", "in_domain_dev.csv", "out_of_domain_dev.csv", "test.csv"]
RAW = "data/raw/rucola_v1"
ERRATA = "data/raw/errata"
CATEGORIES = ["Morphology", "Syntax", "Semantics"]
KEYED = [
    f"reports/inputs/extract.sources/{RAW}.json",
    f"reports/inputs/split.pin/{RAW}.json",
    f"reports/inputs/extract.errata/{ERRATA}.json",
]


def sh(*args: str, cwd: Path) -> str:
    from dvc_project import sh as run

    return run(*args, cwd=cwd)


def gold(test: pd.DataFrame, variant: int, fixed: set[str]) -> pd.DataFrame:
    """The maintainer's labels of the published test rows; ``variant`` 1 changes every
    hidden attribute of every row but the ``fixed`` ids (the errata name those)."""
    digest = [int(hashlib.sha256(s.encode()).hexdigest(), 16) for s in test["sentence"]]
    flip = [variant if i not in fixed else 0 for i in test["id"]]
    labels = [(d + f) % 2 for d, f in zip(digest, flip, strict=True)]
    return test.assign(
        acceptable=labels,
        error_type=[
            "0" if y else CATEGORIES[(d + f) % 3]
            for d, y, f in zip(digest, labels, flip, strict=True)
        ],
        detailed_source=["Gold" if not f else "OtherBook" for f in flip],
        domain=[
            "in_domain" if (d + f) % 3 else "out_of_domain"
            for d, f in zip(digest, flip, strict=True)
        ],
    )


def project(folder: Path, shared: Path, variant: int) -> Path:
    root = copy_project(folder)
    (root / RAW).mkdir(parents=True)
    for name in PUBLISHED:
        shutil.copy2(shared / "rucola" / name, root / RAW / name)
    test = pd.read_csv(root / RAW / "test.csv", dtype=str, keep_default_na=False)
    train = pd.read_csv(root / RAW / "in_domain_train.csv", dtype=str, keep_default_na=False)
    removed, relabelled = test["id"].iloc[10], test["id"].iloc[20]
    gold(test, variant, {removed, relabelled}).to_csv(
        root / RAW / "test_gold.csv", index=False, lineterminator="\n"
    )
    unacceptable = train[train["acceptable"] == "0"].iloc[0]
    old = int(hashlib.sha256(test["sentence"].iloc[20].encode()).hexdigest(), 16) % 2
    (root / ERRATA).mkdir(parents=True)
    with (root / ERRATA / "v1.1.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["split", "domain", "id", "field", "new", "reason"])
        writer.writerow(["test", "", removed, "remove", "", "not a sentence of Russian"])
        writer.writerow(
            ["train", "in_domain", unacceptable["id"], "label", 1, "reported by a user"]
        )
        # a review decision (`rucola audit import`'s template) on a test row
        if old == 0:
            writer.writerow(["test", "", relabelled, "label", 1, "review: relabel by 2 of 3"])
        else:
            writer.writerow(["test", "", relabelled, "label", 0, "review: relabel by 2 of 3"])
            writer.writerow(
                ["test", "", relabelled, "error_type", "Syntax", "review: relabel by 2 of 3"]
            )
    shutil.copy2(root / "configs/rucola-v1.1.yaml", root / "params.yaml")
    params = yaml.safe_load((root / "params.yaml").read_text(encoding="utf-8"))
    params["extract"]["errata"] = [ERRATA]
    (root / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True))
    sh("git", "init", "-q", cwd=root)
    for folder_ in (RAW, ERRATA):
        sh("rucola", "salt", folder_, cwd=root)
    sh("dvc", "repro", cwd=root)
    sh("git", "add", "-A", cwd=root)
    return root


@pytest.fixture(scope="module")
def builds(tmp_path_factory, shared_data) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("v1_1")
    return project(folder / "a", shared_data, 0), project(folder / "b", shared_data, 1)


def test_a_v1_1_build_tells_nothing_of_what_its_test_rows_hide(builds):
    a, b = builds
    gold_a = pd.read_parquet(a / "data/release/private/test_gold.parquet")
    gold_b = pd.read_parquet(b / "data/release/private/test_gold.parquet")
    assert len(gold_a) == len(gold_b) == 2789 - 4 - 1  # 4 by v1.1's rules, 1 by an erratum
    assert (gold_a["label"] != gold_b["label"]).sum() > 1000  # the hidden change is real
    files = tracked_files(a)
    assert files == tracked_files(b)
    differing = [f for f in files if (a / f).read_bytes() != (b / f).read_bytes()]
    for name in KEYED:
        record = json.loads((b / name).read_text(encoding="utf-8"))
        assert record["kind"] == "salted_folder" and "sha256" not in record
    assert [f for f in differing if f not in {"dvc.lock", *KEYED}] == []
    families = {"reports/inputs/extract.sources", "reports/inputs/split.pin"}
    allowed = {RAW, ERRATA, *KEYED, *families, "reports/inputs/extract.errata"}
    assert lock_differences(a, b, allowed) == []
    print(f"\ncompared {len(files)} tracked files; differing only in salted hashes: {differing}")


def test_no_hash_or_size_of_the_gold_or_the_errata_is_tracked(builds):
    _, b = builds
    text = "\n".join(
        (b / f).read_text(encoding="utf-8", errors="replace") for f in tracked_files(b)
    )
    for file in [b / RAW / "test_gold.csv", b / ERRATA / "v1.1.csv"]:
        data = file.read_bytes()
        for digest in (hashlib.md5(data).hexdigest(), hashlib.sha256(data).hexdigest()):  # noqa: S324
            assert digest not in text, (file, digest)
        for form in (f"size: {len(data)}\n", f'"size": {len(data)}'):
            assert form not in text, (file, len(data))
