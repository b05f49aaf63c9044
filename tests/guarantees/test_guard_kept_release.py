"""Promise: ids are permanent once published. `make release` keeps the published version
in data/releases/vX.Y.Z/, and nothing rucola runs replaces it: not `release keep` again,
not a build pointed at it; the next version pins it (tests/test_growing_corpus.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from guards import one_error_line, snapshot
from release_params import RELEASE_PARAMS as PARAMS

from rucola.io import file_sha256

KEPT = "data/releases/v1.0.0"


def build_project(root: Path) -> Path:
    """A validated split of 20 in-domain rows (16 / 2 / 2) and its params."""
    splits = ["train"] * 16 + ["validation"] * 2 + ["test"] * 2
    frame = pd.DataFrame(
        {
            "sentence": [f"Предложение номер {i} для проверки." for i in range(20)],
            "label": [i % 4 != 0 for i in range(20)],
            "domain": "in_domain",
            "detailed_source": "Book",
            "split": splits,
            "mark": "",
            "group": [f"g{i}" for i in range(20)],
            "origin": [f"sheet.tsv:{i}" for i in range(20)],
            "n_tokens": 5,
            "high_freq_share": 1.0,
        }
    )
    frame["label"] = frame["label"].astype("int64")
    frame["error_type"] = frame["label"].map({1: None, 0: "Syntax"})
    frame["id"] = frame.groupby("split").cumcount().astype("int64")
    (root / "data").mkdir()
    frame.to_parquet(root / "data/split.parquet", index=False)
    report = {"success": True, "data_sha256": file_sha256(root / "data/split.parquet")}
    (root / "data/validation.json").write_text(json.dumps(report), encoding="utf-8")
    (root / "params.yaml").write_text(PARAMS, encoding="utf-8")
    return root


@pytest.fixture
def project(tmp_path: Path, run_cli) -> Path:
    root = build_project(tmp_path)
    code, _, stderr = run_cli("release", "build", cwd=root)
    assert code == 0, stderr
    code, _, stderr = run_cli("release", "keep", "--version", "1.0.0", cwd=root)
    assert code == 0, stderr
    return root


def test_keeping_a_version_again_is_refused(project, run_cli):
    before = snapshot(project)
    code, _, stderr = run_cli("release", "keep", "--version", "1.0.0", cwd=project)
    assert code == 1
    one_error_line(stderr, KEPT, "never replaced")
    assert snapshot(project) == before


@pytest.mark.parametrize("key", ["out", "private", "compat"])
def test_a_build_pointed_at_a_kept_version_is_refused(project, run_cli, key):
    """The kept files carry no ownership record, so the one rule that guards every write
    (rucola/ownership.py) refuses them like a person's files."""
    params = project / "params.yaml"
    folder = {"out": "rucola", "private": "private", "compat": "rucola_csv"}[key]
    text = params.read_text(encoding="utf-8")
    params.write_text(
        text.replace(f"  {key}: out/{folder}\n", f"  {key}: {KEPT}/{folder}\n"), encoding="utf-8"
    )
    before = snapshot(project / "data/releases")
    code, _, stderr = run_cli("release", "build", cwd=project)
    assert code == 1
    one_error_line(stderr, KEPT)
    assert snapshot(project / "data/releases") == before
