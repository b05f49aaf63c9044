"""Tiny random-weight models, built once per session, offline."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory) -> dict[str, Path]:
    from fixtures.tiny_models import (
        build_gpt2,
        build_m2m100,
        build_marian,
        build_mbart50,
        build_mt5,
    )

    root = tmp_path_factory.mktemp("models")
    return {
        "marian": build_marian(root / "opus-mt-tiny"),
        "marian_back": build_marian(root / "opus-mt-tiny-ru-en", seed=1),
        "m2m": build_m2m100(root / "m2m100-tiny"),
        "mbart": build_mbart50(root / "mbart50-tiny"),
        "mt5": build_mt5(root / "mt5-tiny"),
        "gpt2": build_gpt2(root / "rugpt2-tiny"),
    }


@pytest.fixture
def sources(tmp_path: Path) -> dict[str, dict]:
    """Three small sources in three layouts, written for the test."""
    (tmp_path / "par.tsv").write_text(
        "id\ten\tru\n"
        "1\tThe cat sat on the mat.\tКошка сидела на коврике.\n"
        "2\tShe reads a book every day.\tОна читает книгу каждый день.\n"
        "3\tWe went home in the evening.\tВечером мы пошли домой.\n"
        "4\tThe old bridge was built long ago.\tСтарый мост построили давно.\n",
        encoding="utf-8",
    )
    (tmp_path / "wiki.txt").write_text(
        "Красивая девочка читает интересную книгу в парке.\n"
        "Он купил новый дом у старого друга.\n\n"
        "Молодой учёный получил премию за работу по физике.\n",
        encoding="utf-8",
    )
    return {
        "Par": {"path": str(tmp_path / "par.tsv"), "format": "tsv"},
        "Wiki": {"path": str(tmp_path / "wiki.txt"), "format": "text", "lang": "ru"},
    }


@pytest.fixture
def generate_params():
    """A function building a ``generate`` params section inside a test folder."""
    return _generate_params


def _generate_params(tmp_path: Path, sources: dict, generators: dict, **extra) -> dict:
    """Plain data, as a params file holds it: tests edit it, write it to YAML for the
    command line, or validate it into the ``Generate`` section the stage takes."""
    from rucola.settings import Generate

    g = {
        **Generate().model_dump(),
        "sources": sources,
        "generators": generators,
        "out_dir": str(tmp_path / "candidates"),
        "report_dir": str(tmp_path / "reports"),
        "rejected_dir": str(tmp_path / "rejected"),
        "work_dir": str(tmp_path / "work"),
        "cache_dir": str(tmp_path.parent / "ct2cache"),
        "merge": {
            "out": str(tmp_path / "candidates.parquet"),
            "report": str(tmp_path / "c.json"),
            "rejected": str(tmp_path / "rejected_candidates.parquet"),
        },
    }
    g.update(extra)
    return g
