"""The test modules that go first in a run: see LONG_MODULES."""

from __future__ import annotations

# The modules that take minutes each (real pipelines, the published corpus; measured with
# `--durations`), longest first, but for the sample: the first module builds the session's
# sample (``conftest.built_sample``, under a file lock) while the second, which needs none,
# keeps the other worker busy instead of waiting on the lock. pytest-xdist hands a worker
# one module at a time, in collection order (`--no-loadscope-reorder` in the Makefile; its
# default order, most tests first, put these last): a long module handed out last leaves
# the other worker idle for all of it, so they go first. Only the order changes;
# `test_test_loop.py` checks each name still is a module. A module of its own (not
# conftest.py): a test importing ``conftest`` may get another folder's.
LONG_MODULES = (
    "tests/test_pipeline_dvc.py",  # first: it builds the session's sample (conftest.py)...
    "tests/test_rucola_release.py",  # ...while the other worker builds what needs no sample
    "tests/test_second_machine.py",
    "tests/test_experiments.py",
    "tests/test_hidden_v1_1.py",
    "tests/guarantees/test_guard_hidden_tracked.py",
    "tests/rucola/test_code_fingerprint.py",
    "tests/test_itacola_preset.py",
    "tests/corpus/test_textbook_sheets.py",
    "tests/test_metrics_and_plots.py",
    "tests/test_benchmarks.py",
    "tests/test_cola_preset.py",
    "tests/test_own_corpus.py",
    "tests/generation/test_ray_engine.py",
    "tests/test_growing_corpus.py",
    "tests/validation/test_suite.py",
)
