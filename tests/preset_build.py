"""Build a preset of a published corpus in a real DVC repository (the CoLA and ItaCoLA
preset tests): the published files go into ``data/raw/<name>/`` (``dvc add``), the preset
becomes ``params.yaml``, and ``dvc repro`` runs the whole pipeline, as a maintainer would."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from dvc_project import copy_project

# The maintainer's secret for hashing annotator ids (a release with votes needs one).
ANNOTATOR_KEY = "preset-test-key-0123456789abcdef"


def sh(*args: str, cwd: Path) -> str:
    env = dict(
        os.environ,
        PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        RUCOLA_ANNOTATOR_KEY=ANNOTATOR_KEY,
    )
    result = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(args)}\n{result.stdout}\n{result.stderr}"
    return result.stdout


def build_preset(root: Path, preset: str, raw: str, files: list[Path]) -> Path:
    """``root`` holding the project, ``files`` in ``data/raw/<raw>`` and ``preset`` built."""
    copy_project(root)
    folder = root / "data/raw" / raw
    folder.mkdir(parents=True)
    for path in files:
        shutil.copy2(path, folder / path.name)
    sh("git", "init", "-q", cwd=root)
    sh("dvc", "add", "-q", f"data/raw/{raw}", cwd=root)
    shutil.copy2(root / "configs" / preset, root / "params.yaml")
    sh("dvc", "repro", cwd=root)
    return root


def report(root: Path, name: str) -> dict:
    return json.loads((root / "reports" / name).read_text(encoding="utf-8"))
