"""Build a preset of a published corpus in a corpus repository of its own (the CoLA and
ItaCoLA preset tests), as a maintainer would (issue 46): ``rucola init DIR --preset NAME``
lays it out from the installed package, the published files go into ``data/raw/<name>/``
(``dvc add``), and ``dvc repro`` runs the whole pipeline with the installed ``rucola``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

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
    """``root`` a corpus repository of ``preset`` (``rucola init``), ``files`` in
    ``data/raw/<raw>``, built."""
    sh("rucola", "init", str(root), "--preset", Path(preset).stem, cwd=root.parent)
    folder = root / "data/raw" / raw
    folder.mkdir(parents=True)
    for path in files:
        shutil.copy2(path, folder / path.name)
    sh("dvc", "add", "-q", f"data/raw/{raw}", cwd=root)
    sh("dvc", "repro", cwd=root)
    return root


def report(root: Path, name: str) -> dict:
    return json.loads((root / "reports" / name).read_text(encoding="utf-8"))
