"""Promise: ids are permanent once published. `make release` keeps the published version
in data/releases/vX.Y.Z/, and nothing rucola runs replaces it: not `release keep` again,
not a build pointed at it; the next version pins it (tests/test_growing_corpus.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from guards import one_error_line, snapshot
from identity import identity_yaml
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
    (root / "params.yaml").write_text(identity_yaml(PARAMS), encoding="utf-8")
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
        identity_yaml(text.replace(f"  {key}: out/{folder}\n", f"  {key}: {KEPT}/{folder}\n")),
        encoding="utf-8",
    )
    before = snapshot(project / "data/releases")
    code, _, stderr = run_cli("release", "build", cwd=project)
    assert code == 1
    one_error_line(stderr, KEPT)
    assert snapshot(project / "data/releases") == before


@pytest.fixture
def built(tmp_path: Path, run_cli) -> Path:
    """A built release nobody has kept yet."""
    (tmp_path / "repo").mkdir()
    root = build_project(tmp_path / "repo")
    code, _, stderr = run_cli("release", "build", cwd=root)
    assert code == 0, stderr
    return root


def flip_gold(root: Path) -> str:
    """Every hidden test label turned over, as an edit by hand would: the private
    folder's record (``.rucola-output.json``) no longer matches the gold's bytes."""
    gold = root / "out/private/test_gold.parquet"
    frame = pd.read_parquet(gold)
    assert len(frame)
    frame["label"] = 1 - frame["label"]
    frame.to_parquet(gold, index=False)
    return "out/private/test_gold.parquet"


def stray_file(root: Path) -> str:
    (root / "out/private/notes.txt").write_text("worker W1 is a bot\n", encoding="utf-8")
    return "out/private/notes.txt"


def missing_gold(root: Path) -> str:
    (root / "out/private/test_gold.parquet").unlink()
    return "out/private/test_gold.parquet"


def no_record(root: Path) -> str:
    (root / "out/private/.rucola-output.json").unlink()
    return "out/private"


def stray_csv(root: Path) -> str:
    (root / "out/rucola_csv/scores.csv").write_text("id,score\n", encoding="utf-8")
    return "out/rucola_csv/scores.csv"


@pytest.mark.parametrize("change", [flip_gold, stray_file, missing_gold, no_record, stray_csv])
def test_a_release_that_differs_from_its_record_is_not_kept(built, run_cli, change):
    """The private folder was copied as found: gold labels flipped since the build, a
    stray file beside the gold, the gold gone. Every file kept is the one the build wrote,
    by its folder's record; one line naming the first that is not, nothing written."""
    named = change(built)
    before = snapshot(built)
    code, _, stderr = run_cli("release", "keep", "--version", "1.0.0", cwd=built)
    assert code == 1
    one_error_line(stderr, named)
    assert snapshot(built) == before
    assert not (built / "data/releases").exists()


@pytest.mark.parametrize("relative", [False, True])
def test_keep_refuses_a_folder_of_kept_versions_linked_out_of_the_repository(
    built, run_cli, tmp_path, relative
):
    """``data/releases`` a link to a folder outside the repository: keep wrote the gold
    there, where DVC cannot track it and params cannot pin it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (built / "data/releases").symlink_to("../../outside" if relative else outside)
    before, before_outside = snapshot(built), snapshot(outside)
    code, _, stderr = run_cli("release", "keep", "--version", "1.0.0", cwd=built)
    assert code == 1
    one_error_line(stderr, "data/releases", "outside the repository", str(outside))
    assert snapshot(built) == before and snapshot(outside) == before_outside
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("into", ["{outside}", "../kept", ".git/releases", ".dvc/releases"])
def test_keep_refuses_a_folder_of_kept_versions_outside_the_repository(
    built, run_cli, tmp_path, into
):
    """``--into`` too: a kept version lies inside the repository, never in git's or DVC's
    own folders."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (built / ".git").mkdir()
    (built / ".dvc").mkdir()
    into = into.format(outside=outside)
    before = snapshot(tmp_path)
    code, _, stderr = run_cli("release", "keep", "--version", "1.0.0", "--into", into, cwd=built)
    assert code == 1
    one_error_line(stderr, into)
    assert snapshot(tmp_path) == before
    assert not list(tmp_path.rglob("v1.0.0"))
