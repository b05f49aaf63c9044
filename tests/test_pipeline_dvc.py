"""The DVC pipeline on the embedded sample, in a real DVC repository in a temporary folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow

COPY = [
    "dvc.yaml",
    "params.yaml",
    "data/sample",
    "corpus",
    "generation",
    "validation",
    "release",
    ".dvc/config",
    ".dvc/.gitignore",
]


def sh(*args: str, cwd: Path) -> str:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    result = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(args)}\n{result.stdout}\n{result.stderr}"
    return result.stdout + result.stderr


def ran(output: str) -> list[str]:
    return [line.split("'")[1] for line in output.splitlines() if line.startswith("Running stage")]


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("project")
    for name in COPY:
        source, target = ROOT / name, root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target)
    sh("git", "init", "-q", cwd=root)
    sh(
        "git",
        "-c",
        "user.email=t@t",
        "-c",
        "user.name=t",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "init",
        cwd=root,
    )
    return root


def test_repro_builds_a_loadable_release_and_reruns_only_what_changed(project: Path):
    first = sh("dvc", "repro", cwd=project)
    assert sorted(ran(first)) == sorted(
        [
            "extract",
            "generate@perturbations",
            "generate@opus_mt",
            "generate@m2m_back_translation",
            "generate@mt5_paraphrase",
            "merge_candidates",
            "measure_candidates",
            "screen",
            "annotate_export",
            "annotate_merge",
            "annotate_corpus",
            "measure",
            "filter",
            "split",
            "baseline",
            "validate",
            "release",
        ]
    )
    candidates = pq.read_table(project / "data/interim/candidates/perturbations.parquet")
    assert candidates.num_rows > 0
    assert set(candidates.column("method").to_pylist()) == {"perturbation"}
    split = pq.read_table(project / "data/interim/split.parquet").to_pandas()
    ood = split[split["domain"] == "out_of_domain"]
    assert len(ood) > 0 and set(ood["split"]) <= {"validation", "test"}
    assert (project / "data/interim/annotation_tasks").is_dir()
    card = (project / "data/release/rucola/README.md").read_text(encoding="utf-8")
    assert "WAWA agreement" in card
    release = project / "data/release/rucola"
    assert (release / "README.md").is_file()
    assert (project / "data/release/private/test_gold.parquet").is_file()
    assert (project / "reports/plots/token_lengths.png").is_file()

    from datasets import ClassLabel, load_dataset

    cwd = Path.cwd()
    os.chdir(project / "data/release")
    try:
        dataset = load_dataset("rucola")
    finally:
        os.chdir(cwd)
    assert set(dataset) == {"train", "validation", "test"}
    assert isinstance(dataset["train"].features["label"], ClassLabel)
    assert set(dataset["test"]["label"]) == {-1}

    second = sh("dvc", "repro", cwd=project)
    assert ran(second) == []
    lock = (project / "dvc.lock").read_bytes()

    params = yaml.safe_load((project / "params.yaml").read_text())
    params["generate"]["generators"]["perturbations"]["per_sentence"] = 1
    (project / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True))
    changed = ran(sh("dvc", "repro", "generate@perturbations", "merge_candidates", cwd=project))
    assert changed == ["generate@perturbations", "merge_candidates"]
    params["generate"]["generators"]["perturbations"]["per_sentence"] = 2
    (project / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True))
    sh("dvc", "repro", cwd=project)
    lock = (project / "dvc.lock").read_bytes()

    params["filter"]["min_tokens"] = 5
    (project / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True))
    third = sh("dvc", "repro", cwd=project)
    # The thresholds rerun the candidates' screening and the corpus filter, never the
    # attributes (measure) or anything upstream of them.
    assert ran(third)[0] == "screen" and "filter" in ran(third)
    for stage in ("extract", "measure", "measure_candidates", "generate@perturbations"):
        assert stage not in ran(third)
    assert (project / "dvc.lock").read_bytes() != lock


def test_outputs_are_byte_identical_on_a_forced_rerun(project: Path):
    outs = [
        "data/interim/in_domain.parquet",
        "data/interim/split.parquet",
        "reports/validation.json",
        "data/release/rucola/README.md",
    ]
    sh("dvc", "repro", cwd=project)
    before = {name: (project / name).read_bytes() for name in outs}
    sh("dvc", "repro", "--force", cwd=project)
    assert {name: (project / name).read_bytes() for name in outs} == before


def test_a_real_round_tracked_with_dvc_add(project: Path):
    """The documented workflow: answers under data/annotations/, `dvc add`, params, repro."""
    sh("dvc", "repro", cwd=project)
    before = (project / "data/interim/annotated.parquet").read_bytes()
    round_dir = project / "data/annotations/round1"
    for stage in ("stage1", "stage2"):
        shutil.copytree(project / "data/sample/annotations" / stage, round_dir / stage)
    sh("dvc", "add", "data/annotations/round1", cwd=project)
    assert (project / "data/annotations/round1.dvc").is_file()
    params = yaml.safe_load((project / "params.yaml").read_text())
    params["annotate"]["stage1"] = ["data/annotations/round1/stage1"]
    params["annotate"]["stage2"] = ["data/annotations/round1/stage2"]
    (project / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True))
    pipeline = yaml.safe_load((project / "dvc.yaml").read_text())
    deps = pipeline["stages"]["annotate_merge"]["deps"]
    deps[:2] = ["data/annotations/round1"]
    (project / "dvc.yaml").write_text(yaml.safe_dump(pipeline, allow_unicode=True))
    assert "annotate_merge" in ran(sh("dvc", "repro", cwd=project))
    assert (project / "data/interim/annotated.parquet").read_bytes() == before
