"""The measure stage: attributes computed once per sentence, thresholds applied later.

Following dolma, the expensive part (tokenising, lemmatising, looking up frequencies) runs
here, and ``filter`` only compares numbers; so a changed threshold never repeats this work.
Every registered attribute (``corpus.attributes``, ``measured.MEASURED_ATTRIBUTES``) is
computed, its columns written after the input's in the order of the attributes' names; the
attributes of a batch share its tokens and one :class:`~rucola.corpus.measured.MeasureContext`
per process. We keep the ipm of every word's lemma rather than a share at one threshold,
so even ``filter.min_ipm`` can change without measuring again.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq
from rich.progress import Progress

from rucola.corpus import attributes
from rucola.corpus import schema as row_schema
from rucola.corpus.frequency import load_frequencies
from rucola.corpus.languages.profile import profile
from rucola.corpus.measured import (
    MEASURED_ATTRIBUTES,
    Batch,
    MeasureContext,
    MeasuredAttribute,
    attribute_fields,
)
from rucola.stage import StageRun, open_parquet, reading

if TYPE_CHECKING:
    from rucola.settings import Frequency

# Imported for what it does: it registers every attribute (an import the code fingerprint
# of `rucola measure` sees, so a change to an attribute reruns measure).
del attributes


def measure_batch(
    sentences: list[str], context: MeasureContext, attributes: Sequence[MeasuredAttribute]
) -> list[pa.Array]:
    """The columns of ``attributes`` for ``sentences``, in their order, each checked to
    hold a value of its declared type per sentence."""
    batch = Batch(sentences, context)
    arrays: list[pa.Array] = []
    for attribute in attributes:
        computed = attribute.compute(batch)
        if len(computed) != len(attribute.fields) or any(
            len(array) != len(sentences) or array.type != field.type
            for array, field in zip(computed, attribute.fields, strict=False)
        ):  # a bug in the attribute, not a user error
            raise AssertionError(
                f"attribute {attribute.name!r} must give {len(attribute.fields)} arrays of "
                f"{len(sentences)} values typed {[str(f.type) for f in attribute.fields]}"
            )
        arrays.extend(computed)
    return arrays


# set before the worker processes fork: the context and the attributes of this run
_RUN: tuple[MeasureContext, list[MeasuredAttribute]] | None = None


def _measure_sentences(sentences: list[str]) -> list[pa.Array]:
    assert _RUN is not None
    return measure_batch(sentences, *_RUN)


_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _die_with_parent(parent: int) -> None:
    """Pool initializer: end this worker when the process that started it dies.

    A parent killed with SIGKILL runs no clean-up, and a worker blocked on its task queue
    would then live on, holding memory and a CPU's share, long after the run is gone. On
    Linux the kernel delivers SIGKILL to the worker when its parent dies (``prctl``);
    elsewhere a daemon thread polls the parent's pid. The parent may have died before this
    ran, so it is checked once after arming.
    """
    armed = False
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
    if os.getppid() != parent:
        os._exit(1)
    if not armed:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _watch_parent(parent: int, every: float = 0.5) -> None:
    """Exit as soon as this process is re-parented (its parent died)."""
    while os.getppid() == parent:
        time.sleep(every)
    os._exit(1)


def _read_batches(source: pq.ParquetFile, rows: int, path: str | Path) -> Iterator[pa.RecordBatch]:
    """The input's record batches; a corrupt page is one line naming the file."""
    batches = source.iter_batches(batch_size=rows)
    while True:
        with reading(path, "input"):
            batch = next(batches, None)
        if batch is None:
            return
        yield batch


def _batches(
    batches: Iterator[pa.RecordBatch], workers: int
) -> Iterator[tuple[pa.RecordBatch, list[pa.Array]]]:
    """Measured batches in file order, at most ``2 x workers`` batches in flight."""
    if workers <= 1:
        for batch in batches:
            yield batch, _measure_sentences(batch.column("sentence").to_pylist())
        return
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_die_with_parent,
        initargs=(os.getpid(),),
    ) as pool:
        pending: deque = deque()
        for batch in batches:
            pending.append(
                (batch, pool.submit(_measure_sentences, batch.column("sentence").to_pylist()))
            )
            if len(pending) >= 2 * workers:
                done, future = pending.popleft()
                yield done, future.result()
        while pending:
            done, future = pending.popleft()
            yield done, future.result()


def measure(
    input_path: str | Path,
    out: str | Path,
    frequency: Frequency,
    progress: bool = True,
    workers: int | None = None,
    batch_rows: int = 10_000,
    report: str | Path | None = None,
    language: str = "ru",
) -> dict[str, Any]:
    """Stream ``input_path`` in record batches through ``workers`` processes to ``out``.

    Memory stays bounded by the batches in flight, whatever the file's size; the output
    keeps the input's order, so it is byte-identical for any number of workers. Every row
    read is kept (``read == kept``, nothing set aside); ``report``, when given, receives
    the standard report. ``language``: the profile (``corpus.language``) that tokenizes,
    lemmatizes and names the wordfreq list.
    """
    global _RUN
    hint = "run the previous stage first"
    text = pa.schema([row_schema.BASE_SCHEMA.field("sentence")])  # read_table checks it
    source = open_parquet(input_path, "input", ["sentence"], hint=hint, types=text)
    names = source.schema_arrow.names
    attributes = [attribute() for attribute in MEASURED_ATTRIBUTES]
    added = attribute_fields(list(MEASURED_ATTRIBUTES))
    kept = [n for n in names if n not in {field.name for field in added}]
    schema = pa.schema([source.schema_arrow.field(n) for n in kept] + added)
    workers = workers or os.cpu_count() or 1
    language_profile = profile(language)  # an unknown code or a missing extra: one line
    context = MeasureContext(load_frequencies(frequency, language), language_profile)
    _RUN = (context, attributes)
    total = source.metadata.num_rows
    rows = 0
    bar = Progress(transient=True, disable=not progress)
    with StageRun("measure", report=report, out=out) as run:
        staged = run.path(out)
        batches = _read_batches(source, batch_rows, input_path)
        with bar, pq.ParquetWriter(staged, schema, compression="zstd") as writer:
            task = bar.add_task("measuring", total=total)
            for batch, measured in _batches(batches, workers):
                arrays = [batch.column(n) for n in kept] + measured
                writer.write_batch(pa.RecordBatch.from_arrays(arrays, schema=schema))
                rows += batch.num_rows
                bar.advance(task, batch.num_rows)
            if rows == 0:
                writer.write_table(schema.empty_table())
        run.count_read(rows)
        run.count_kept(rows)
        summary = run.finish(
            frequency_source=context.frequencies.name,
            workers=workers,
        )
    return summary
