"""Shared fixtures: the real public data (through RUCOLA_SHARED_DATA) and CLI helpers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]

os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The folder of real public data; skip without the variable, fail if it is broken."""
    value = os.environ.get("RUCOLA_SHARED_DATA")
    if not value:
        pytest.skip("RUCOLA_SHARED_DATA is not set")
    path = Path(value)
    if not path.is_absolute():
        path = (ROOT / path).resolve()
    needed = ["rucola/in_domain_train.csv", "rucola/in_domain_dev.csv", "rnc/freqrnc2011.tsv"]
    missing = [n for n in needed if not (path / n).is_file()]
    if missing:
        pytest.fail(f"RUCOLA_SHARED_DATA={value} lacks {', '.join(missing)}")
    return path


@pytest.fixture
def run_cli():
    """Invoke ``rucola`` in-process; returns (exit code, stdout, stderr)."""
    from rucola.cli import app

    def invoke(*args: str, cwd: Path | None = None) -> tuple[int, str, str]:
        runner = CliRunner()
        old = Path.cwd()
        if cwd is not None:
            os.chdir(cwd)
        try:
            result = runner.invoke(app, list(args), catch_exceptions=False)
        finally:
            os.chdir(old)
        return result.exit_code, result.stdout, result.stderr

    return invoke
