"""The release build as a row stage (``rucola.stage.StageRun``): the public folder, the
private gold and the CSV layout replace the previous ones together or not at all; a
damaged input is one line naming the file; the report accounts for every split row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from identity import identity_yaml
from release_params import RELEASE_PARAMS
from test_build import PARAMS, merged, split_frame, tree, typed, write_input

import rucola.release.build
from rucola.io import file_sha256
from rucola.release.build import run_release
from rucola.settings import Params


def release_params(folder: Path, **release: str) -> Params:
    """The params of a build in ``folder``: the split rows (``split.out``) and their
    validation report (``validate.report``) there, the release under ``folder/release``;
    ``release`` keys override."""
    return typed(
        merged(
            PARAMS,
            {
                "split": {"out": str(folder / "split.parquet")},
                "validate": {"private_report": str(folder / "validation.json")},
                "release": {
                    "out": str(folder / "release/rucola"),
                    "private": str(folder / "release/private"),
                    "compat": str(folder / "release/rucola_csv"),
                    "report": str(folder / "reports/release.json"),
                    **release,
                },
            },
        ),
        folder,
    )


def test_report_accounts_for_every_row(tmp_path):
    frame = split_frame()
    write_input(tmp_path, frame)
    report = run_release(release_params(tmp_path))
    assert report["read"] == report["kept"] == len(frame) and report["set_aside"] == {}
    assert report["configs"]["default"] == {"train": 28, "validation": 10, "test": 14}
    assert report["compat"]["test.csv"] == 14
    assert report["private"] == {"test_gold.parquet": 14, "corrections.parquet": 0}
    assert report["data_sha256"] == file_sha256(tmp_path / "split.parquet")
    private = json.loads((tmp_path / "reports/private/release.json").read_text(encoding="utf-8"))
    assert private == report
    written = json.loads((tmp_path / "reports/release.json").read_text(encoding="utf-8"))
    assert "data_sha256" not in written and "private" not in written  # git tracks it
    assert set(written["votes"]) == {
        "public",
        "public_by_split",
        "annotator_key",
        "key_fingerprint",
    }
    assert {"rucola", "private", "rucola_csv"} == {p.name for p in (tmp_path / "release").iterdir()}


@pytest.mark.parametrize("step", ["render_card", "write_rucola_csv"])
def test_a_build_failing_half_way_leaves_the_previous_release(tmp_path, monkeypatch, step):
    path = write_input(tmp_path, split_frame())
    params = release_params(tmp_path)
    run_release(params)
    before = tree(tmp_path / "release")
    report = (tmp_path / "reports/private/release.json").read_bytes()
    frame = split_frame()
    frame.loc[0, "sentence"] = "Совсем другое предложение для новой версии."
    write_input(tmp_path, frame)
    assert file_sha256(path) != json.loads(report)["data_sha256"]

    def boom(*args, **kwargs):
        raise RuntimeError(f"{step} failed")

    monkeypatch.setattr(rucola.release.build, step, boom)
    with pytest.raises(RuntimeError, match=f"{step} failed"):
        run_release(params)
    assert tree(tmp_path / "release") == before
    assert (tmp_path / "reports/private/release.json").read_bytes() == report
    assert sorted(p.name for p in (tmp_path / "release").iterdir()) == [
        "private",
        "rucola",
        "rucola_csv",
    ]


def _project(tmp_path: Path) -> Path:
    write_input(tmp_path / "data", split_frame())
    (tmp_path / "params.yaml").write_text(identity_yaml(RELEASE_PARAMS), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("damage", ["truncated", "not_parquet"])
def test_a_damaged_split_file_is_named(run_cli, tmp_path, damage):
    project = _project(tmp_path)
    path = project / "data/split.parquet"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] if damage == "truncated" else b"sentence,label\n")
    # validated as it is now, so that the release reads it
    report = {"success": True, "data_sha256": file_sha256(path)}
    (project / "data/validation.json").write_text(json.dumps(report), encoding="utf-8")
    code, _, stderr = run_cli("release", "build", cwd=project)
    assert code == 1
    assert "data/split.parquet: split data is not a readable parquet file" in stderr
    assert not (project / "out").exists()


def test_a_damaged_set_aside_file_is_named(run_cli, tmp_path):
    project = _project(tmp_path)
    assert run_cli("release", "build", cwd=project)[0] == 0
    before = tree(project / "out")
    (project / "data/rejected.parquet").write_bytes(b"PAR1\x00\x00")
    code, _, stderr = run_cli("release", "build", cwd=project)
    assert code == 1
    assert "data/rejected.parquet: set-aside rows is not a readable parquet file" in stderr
    assert tree(project / "out") == before


def test_leftovers_of_a_killed_build_are_removed(tmp_path):
    write_input(tmp_path, split_frame())
    params = release_params(tmp_path)
    run_release(params)
    release = tmp_path / "release"
    # what a build killed while staging and while swapping leaves behind
    (release / ".rucola.rucola-staged").mkdir()
    (release / ".rucola.rucola-staged/half.parquet").write_bytes(b"half")
    (release / ".private.old.abcd1234").mkdir()
    (tmp_path / "reports/.release.json.rucola-staged").write_text("{")
    before = tree(release)
    run_release(params)
    assert sorted(p.name for p in release.iterdir()) == ["private", "rucola", "rucola_csv"]
    assert not list((tmp_path / "reports").glob(".*"))
    assert tree(release) == {k: v for k, v in before.items() if not k.startswith(".")}
