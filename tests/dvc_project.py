"""A copy of this project's pipeline in another folder, for tests and benchmarks that run
``dvc repro`` in a real DVC repository of their own (the ``rucola`` code they run is the
installed one; the copied code is what DVC hashes as stage dependencies)."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COPY = [
    "dvc.yaml",
    "params.yaml",
    "configs",
    "data/sample",
    "reports/inputs",
    "corpus",
    "generation",
    "validation",
    "release",
    "rucola",
    ".dvc/config",
    ".dvc/.gitignore",
    ".gitignore",
]


def copy_project(target: Path) -> Path:
    """Copy what ``dvc repro`` needs into ``target`` (created); returns ``target``."""
    for name in COPY:
        source, copy = ROOT / name, target / name
        if not source.exists():
            continue
        copy.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, copy)
    return target
