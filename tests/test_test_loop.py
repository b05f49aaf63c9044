"""The test loop's own wiring: the long modules that go first are still modules, and the
Makefile keeps the order they are given (pytest-xdist's default reorders by test count)."""

from __future__ import annotations

import re
from pathlib import Path

from long_modules import LONG_MODULES

ROOT = Path(__file__).resolve().parents[1]


def test_each_long_module_is_a_test_module_once():
    assert len(set(LONG_MODULES)) == len(LONG_MODULES)
    missing = [name for name in LONG_MODULES if not (ROOT / name).is_file()]
    assert not missing, f"LONG_MODULES names no file: {missing}"


def test_both_test_targets_keep_the_collection_order():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    options = re.search(r"^PYTEST_PARALLEL := (.*)$", makefile, re.M)
    assert options and "--no-loadscope-reorder" in options.group(1).split()
    for target in ("test", "test-fast"):
        recipe = re.search(rf"^{target}:.*\n\t(.*)$", makefile, re.M)
        assert recipe and "$(PYTEST_PARALLEL)" in recipe.group(1), target
