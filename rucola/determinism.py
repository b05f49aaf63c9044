"""The same bytes on every x86-64 Linux machine: one BLAS kernel, one thread, rounded floats.

DVC reruns nothing and git shows nothing when a stage's outputs are the bytes ``dvc.lock``
records. Floats broke that: the audit's logistic regressions (L-BFGS) ran through the
OpenBLAS kernel chosen for the CPU (SkylakeX here, Haswell elsewhere), and numpy's own
loops (``exp``, ``log``, sums) dispatch to AVX2 or AVX-512 code by CPU; their last bits
differ, L-BFGS carries the difference through its iterations, and the parquet bytes follow.

So every ``rucola`` process, before numpy or scipy is imported (``rucola/__init__.py``
calls :func:`pin_kernels` first):

- ``OPENBLAS_CORETYPE=Prescott``: OpenBLAS's oldest x86-64 kernel, which every x86-64
  CPU runs (the wheels' build loads its generic SSE2 one, which it reports as ``Katmai``;
  forcing Haswell's would crash a CPU without AVX2); numpy's and scipy's OpenBLAS (two
  libraries) both read it when they load. The BLAS work of the stages is small
  (sparse TF-IDF features), so the older kernel costs little (``make bench``: audit).
- ``NPY_DISABLE_CPU_FEATURES``: numpy's dispatched loops above its x86-64-v2 baseline
  (x86-64-v3, -v4 and the AVX-512 groups) are off, so every machine runs the baseline
  loops.
- ``OPENBLAS_NUM_THREADS=1``, and :func:`one_thread` (threadpoolctl) around each stage
  command, for a process that loaded numpy before ``rucola``: a sum split over threads
  adds in another order.

The variables are set whatever the environment says (the promise does not depend on a
maintainer's shell). And floats are rounded where they are written (:data:`DECIMALS`), so
that a difference left in the last bits (another numpy build) changes no byte; rankings
break ties by the rows' ids (``curation.queue.sort_queue``).

Scope: x86-64 Linux with the pinned wheels (``requirements/constraints.txt``). Another
architecture (arm64) or another numpy, scipy or scikit-learn version may give other bits;
then ``dvc.lock`` is refreshed, as for any change of a pinned dependency.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any

# The kernel every x86-64 CPU runs (SSE3; OpenBLAS names it Prescott).
OPENBLAS_KERNEL = "Prescott"
# numpy's dispatch targets above its baseline (x86-64-v2), turned off.
NUMPY_FEATURES_OFF = "X86_V3 X86_V4 AVX512_ICL AVX512_SPR"
PINNED = {
    "OPENBLAS_CORETYPE": OPENBLAS_KERNEL,
    "NPY_DISABLE_CPU_FEATURES": NUMPY_FEATURES_OFF,
    "OPENBLAS_NUM_THREADS": "1",
}
# Decimal places a computed probability or score keeps in an output: far above any
# difference that matters to a reader, far below one a last bit makes.
DECIMALS = 10


def pin_kernels() -> None:
    """Set :data:`PINNED` for the libraries this process will load; a no-op for those
    already loaded (numpy imported before ``rucola``), which :func:`one_thread` still
    limits to one thread."""
    if "numpy" not in sys.modules:
        os.environ.update(PINNED)


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """Every BLAS pool of the process at one thread while the block runs (OpenMP pools,
    torch's among them, keep theirs: generation's speed on a CPU needs them, and its
    outputs are text)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield


def rounded(values: Any) -> Any:
    """``values`` (a float, a numpy array) rounded to :data:`DECIMALS` places, ``-0.0``
    written as ``0.0`` (the same number, another byte)."""
    import numpy as np

    result = np.round(np.asarray(values, dtype=np.float64), DECIMALS) + 0.0
    return float(result) if np.ndim(result) == 0 else result
