"""The review's round trip against a real Label Studio server (``scripts/label_studio_review.py``).

Label Studio pins pyarrow below this project's, so it cannot share the venv; it runs only
when ``RUCOLA_LABEL_STUDIO`` names a ``label-studio`` executable installed in a venv of its
own (``python3.12 -m venv /tmp/ls-venv && /tmp/ls-venv/bin/pip install label-studio``).
The script starts the server on 127.0.0.1 with a data folder under ``tmp_path``, creates
the project, the reviewers and their answers through the API, exports, imports and checks
the errata; this test holds it to exit 0 and to the errata it printed.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "label_studio_review.py"

pytestmark = pytest.mark.slow


@pytest.fixture
def label_studio() -> str:
    value = os.environ.get("RUCOLA_LABEL_STUDIO")
    if not value:
        pytest.skip("RUCOLA_LABEL_STUDIO does not name a label-studio executable")
    executable = shutil.which(value)
    if executable is None:
        pytest.fail(f"RUCOLA_LABEL_STUDIO={value} is not an executable")
    return executable


def test_the_review_round_trips_through_a_real_label_studio(label_studio, tmp_path):
    work = tmp_path / "work"
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--label-studio", label_studio, "--work", str(work)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "round trip passed" in result.stdout
    with open(work / "errata/review.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["split", "domain", "id", "field", "new", "reason", "old"]
    assert sorted(r[3] for r in rows[1:]) == ["error_type", "label", "remove", "sentence"]
    # the server the script started is gone with it
    data_dir = str(work / "label-studio")
    left = [
        p.pid for p in psutil.process_iter(["cmdline"]) if data_dir in (p.info["cmdline"] or [])
    ]
    assert not left, f"Label Studio processes left running: {left}"
