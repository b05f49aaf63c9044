"""Fixtures for the annotation tests: a hand-made export and a working folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from annotation_helpers import CONTROLS, STAGE1_HEADER, stage1_rows, write_tsv
from identity import identity_yaml


@pytest.fixture
def hand_export(tmp_path: Path) -> Path:
    return write_tsv(tmp_path / "stage1" / "pool.tsv", STAGE1_HEADER, stage1_rows())


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A working folder with a params file whose annotate paths point inside it."""
    (tmp_path / "params.yaml").write_text(
        identity_yaml(f"annotate:\n  controls: [{CONTROLS}]\n  stage1: [stage1]\n  stage2: []\n"),
        encoding="utf-8",
    )
    return tmp_path
