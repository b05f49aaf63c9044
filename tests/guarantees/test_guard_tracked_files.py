"""Guarantee: every file git tracks is public (issue 32, 1).

A corpus repository is public, so everything git tracks is public too. Every output of
``dvc.yaml`` declares itself public or private (``meta: {access: ...}``, held to it by
``tests/test_dvc_yaml.py``); a private output is in the DVC cache and ignored by git; a
git-tracked file lies only in public outputs. Checked over this repository's own tree, and
shown to fail on a project that breaks the rule.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from dvc_project import ROOT, copy_project, git
from tracked import declared_outputs, problems, tracked_files


def test_every_output_is_declared_and_every_tracked_output_is_public():
    assert problems(ROOT) == []
    outputs = declared_outputs(ROOT)
    private = {o.path for o in outputs if o.access == "private"}
    # what the issue found in git: the test split's detail lives in private outputs now
    assert {"reports/private/split.json", "reports/private/validation.json"} <= private
    assert {"reports/private/audit.json", "reports/private/extract.json"} <= private
    assert {"data/interim/split.parquet", "data/release/private"} <= private


def project(folder: Path) -> Path:
    """A copy of the pipeline with the .gitignore files git tracks here (DVC's entries
    for the private outputs), in a git repository."""
    root = copy_project(folder)
    for name in tracked_files(ROOT):
        if name.endswith(".gitignore"):
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, root / name)
    git("init", "-q", cwd=root)
    return root


def test_the_check_fails_on_a_private_output_git_tracks(tmp_path: Path):
    root = project(tmp_path / "p")
    report = root / "reports/private/split.json"
    report.parent.mkdir(parents=True)
    report.write_text("{}\n")
    git("add", "-f", "reports/private/split.json", cwd=root)
    assert problems(root) == [
        "git tracks reports/private/split.json, of the private output reports/private/split.json"
    ]


def test_the_check_fails_on_an_undeclared_or_unignored_output(tmp_path: Path):
    root = project(tmp_path / "p")
    text = (root / "dvc.yaml").read_text(encoding="utf-8")
    # the baseline report, declared by nothing; the private reports, no longer ignored
    declared = "      - ${baseline.report}: {cache: false, persist: true, meta: {access: public}}"
    assert declared in text
    text = text.replace(declared, "      - ${baseline.report}: {cache: false}")
    (root / "dvc.yaml").write_text(text, encoding="utf-8")
    ignore = (root / ".gitignore").read_text(encoding="utf-8")
    (root / ".gitignore").write_text(ignore.replace("/reports/private/\n", ""), encoding="utf-8")
    found = problems(root)
    reports = (
        "annotate_corpus",
        "annotation",
        "audit",
        "extract",
        "human_evaluation",
        "release",
        "split",
        "validation",
    )
    assert found == [
        "baseline: reports/baseline.json is declared neither public nor private",
        *(f"private output reports/private/{name}.json is not ignored by git" for name in reports),
        "private output reports/private/validation_docs is not ignored by git",  # Data Docs
    ]
    shutil.rmtree(root)
