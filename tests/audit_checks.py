"""What ``rucola audit`` must find in RuCoLA v1 as published (issue 26, "Done when"):
``tests/test_rucola_release.py`` calls :func:`assert_v1_audit` on its v1 build.

The published files hold one sentence that is both in ``in_domain_train.csv`` and in
``test.csv`` (leakage), and groups of near-duplicate sentences whose rows the published
splits place apart (``reports/split.json``'s ``pin.straddling``: the pins keep every
published row where it was, so such a group straddles splits). The audit's queue must list
the first, and every row of each of the others, as ``cross_split_duplicate``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

PUBLISHED = Path("data/raw/rucola_v1")  # where the release test puts the published files
KIND = "cross_split_duplicate"


def leaked_sentence(published: Path) -> str:
    """The one sentence of the published training file that the test file repeats."""
    read = {"dtype": str, "keep_default_na": False}
    train = pd.read_csv(published / "in_domain_train.csv", **read)
    test = pd.read_csv(published / "test.csv", **read)
    both = sorted(set(train["sentence"]) & set(test["sentence"]))
    assert len(both) == 1, both
    return both[0]


def assert_v1_audit(root: Path) -> None:
    """``root``: a DVC project that has built ``configs/rucola-v1.yaml`` (``dvc repro``)
    from the published files in ``data/raw/rucola_v1``."""
    queue = pd.read_parquet(root / "data/interim/audit.parquet")
    found = queue[queue["kind"] == KIND]
    listed = set(zip(found["sentence"], found["split"], strict=True))

    sentence = leaked_sentence(root / PUBLISHED)
    leak = found[found["sentence"] == sentence]
    assert set(leak["split"]) == {"train", "test"}, leak
    assert (leak["score"] == 1.0).all(), leak
    assert leak["evidence"].str.contains("same text as").all(), leak
    assert leak["cluster"].nunique() == 1, leak

    split = json.loads((root / "reports/split.json").read_text(encoding="utf-8"))
    straddling = split["pin"]["straddling"]
    assert straddling, "v1 has groups whose published rows sit in different splits"
    for group in straddling:
        rows = {(row["sentence"], row["split"]) for row in group["rows"]}
        missing = rows - listed
        assert not missing, (group["group"], sorted(missing))
        clusters = found[
            [pair in rows for pair in zip(found["sentence"], found["split"], strict=True)]
        ]["cluster"]
        assert clusters.nunique() == 1, (group["group"], sorted(clusters.unique()))

    report = json.loads((root / "reports/private/audit.json").read_text(encoding="utf-8"))
    assert sum(report["kinds"][KIND].values()) == len(found)
