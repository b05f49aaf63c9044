"""The same bytes on every x86-64 Linux machine (``rucola/determinism.py``): the stages that
compute floats write the same bytes whatever OpenBLAS kernel and thread count the
environment asks for, because the command sets its own (one kernel, one thread) and rounds
what it writes.

On the published RuCoLA training rows (``RUCOLA_SHARED_DATA``): ``rucola audit`` (TF-IDF
logistic regressions, L-BFGS through BLAS) and ``rucola baseline`` run as a maintainer runs
them, in their own processes, under two ``OPENBLAS_CORETYPE`` values and two thread counts.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from identity import identity_yaml

from rucola.curation.audit import TYPES
from rucola.determinism import DECIMALS, OPENBLAS_KERNEL, PINNED, rounded

ROWS = 900
SPLITS = ["train"] * 8 + ["validation", "test"]
# Two kernels this project's x86-64 machines run (AVX2, AVX-512) and two thread counts.
ENVIRONMENTS = [("Haswell", "1"), ("Haswell", "2"), ("SkylakeX", "1"), ("SkylakeX", "2")]
RUCOLA = str(Path(sys.executable).with_name("rucola"))


@pytest.fixture(scope="module")
def inputs(shared_data, tmp_path_factory) -> Path:
    """The first published training rows as the split stage writes them, and the
    published layout's train and dev files for the baseline."""
    root = tmp_path_factory.mktemp("floats")
    published = pd.read_csv(shared_data / "rucola/in_domain_train.csv").head(ROWS)
    rows = pd.DataFrame(
        {
            "sentence": published["sentence"],
            "label": published["acceptable"].astype("int64"),
            "error_type": published["error_type"].where(published["error_type"] != "0", None),
            "domain": "in_domain",
            "detailed_source": published["detailed_source"],  # the audit reads it
            "group": [f"g{i}" for i in range(len(published))],
            "split": [SPLITS[i % len(SPLITS)] for i in range(len(published))],
        }
    )
    rows["id"] = rows.groupby("split").cumcount().astype("int64")
    clean = rows.astype(object).where(rows.notna(), None)
    pq.write_table(
        pa.Table.from_pandas(clean, schema=TYPES, preserve_index=False), root / "split.parquet"
    )
    (root / "params.yaml").write_text(
        identity_yaml(
            "audit:\n  cross_split_duplicate:\n    near_duplicates:\n      enabled: false\n"
        ),
        encoding="utf-8",
    )
    half = len(published) * 3 // 4
    published.iloc[:half].to_csv(root / "train.csv", index=False)
    published.iloc[half:].to_csv(root / "dev.csv", index=False)
    return root


def run(root: Path, out: Path, kernel: str, threads: str) -> dict[str, bytes]:
    """The audit and the baseline in ``out``, under an environment asking for ``kernel``
    and ``threads``; their outputs' bytes by name."""
    env = {k: v for k, v in os.environ.items() if k not in PINNED}
    env |= {"OPENBLAS_CORETYPE": kernel, "OPENBLAS_NUM_THREADS": threads}
    env |= {"OMP_NUM_THREADS": threads}
    out.mkdir()
    commands = [
        [RUCOLA, "audit", "--input", "split.parquet", "--out", str(out / "audit.parquet")],
        [RUCOLA, "baseline", "--train", "train.csv", "--validation", "dev.csv", "--out",
         str(out / "baseline.json")],
    ]  # fmt: skip
    for command in commands:
        done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}


def test_the_audit_and_the_baseline_write_the_same_bytes_under_any_kernel_and_threads(inputs):
    outputs = {
        (kernel, threads): run(inputs, inputs / f"{kernel}-{threads}", kernel, threads)
        for kernel, threads in ENVIRONMENTS
    }
    first = outputs[ENVIRONMENTS[0]]
    written = {"audit.parquet", "audit.json", "private_report_audit.json", "baseline.json"}
    assert written <= set(first)
    queue = pq.read_table(inputs / "Haswell-1/audit.parquet").to_pandas()
    assert (queue["kind"] == "likely_label_error").sum() > 0  # floats were computed
    for environment, files in outputs.items():
        assert files == first, environment


def test_the_command_sets_its_kernel_whatever_the_environment_says(inputs):
    """What the floats' promise rests on: a ``rucola`` process loads OpenBLAS with the
    pinned kernel and numpy without its AVX-512 loops, whatever it is asked."""
    env = dict(os.environ, OPENBLAS_CORETYPE="SkylakeX", OPENBLAS_VERBOSE="2")
    env.pop("NPY_DISABLE_CPU_FEATURES", None)
    code = (
        "import rucola, numpy, scipy.linalg, os;"
        "from numpy._core._multiarray_umath import __cpu_features__ as f;"
        "print(os.environ['OPENBLAS_CORETYPE'], f['X86_V4'])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == [OPENBLAS_KERNEL, "False"]
    assert "Core: SkylakeX" not in done.stderr  # OpenBLAS's own word on the kernel it loaded


def test_a_last_bit_changes_no_written_value():
    value = 0.123456789012345
    nudged = np.nextafter(value, 1.0)
    assert value != nudged and rounded(value) == rounded(nudged)
    assert rounded(np.array([-1e-15]))[0] == 0.0 and str(rounded(-1e-15)) == "0.0"
    assert rounded(0.5 + 10.0**-DECIMALS) != rounded(0.5)  # it keeps what it promises
