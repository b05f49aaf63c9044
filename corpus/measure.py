"""The measure stage: attributes computed once per sentence, thresholds applied later.

Following dolma, the expensive part (tokenising, lemmatising, looking up frequencies) runs
here, and ``filter`` only compares numbers; so a changed threshold never repeats this work.
We keep the ipm of every word's lemma rather than a share at one threshold, so even
``filter.min_ipm`` can change without measuring again.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import re
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import razdel
from rich.progress import Progress

from rucola.corpus import schema as row_schema
from rucola.corpus.frequency import Frequencies, load_frequencies, morph_analyzer
from rucola.stage import StageRun, open_parquet, reading

if TYPE_CHECKING:
    from rucola.settings import Frequency

_WORD = re.compile(r"[^\W\d_]")
# Sentences made only of single-script words (Cyrillic or Latin), single spaces and a
# single mark of punctuation after a word: razdel cuts these exactly at the spaces and
# before the mark (checked on every published RuCoLA sentence and by fuzzing in the
# tests), so a C-speed regex gives its tokens 7x faster. Anything else goes to razdel.
_SCRIPT_WORD = r"(?:[а-яёА-ЯЁ]+|[a-zA-Z]+)"
_SIMPLE = re.compile(rf"(?:{_SCRIPT_WORD}[.,!?:;]? )*{_SCRIPT_WORD}[.,!?:;]?")
_SIMPLE_TOKEN = re.compile(r"[а-яёА-ЯЁ]+|[a-zA-Z]+|[.,!?:;]")


def tokenize(sentence: str) -> list[str]:
    """razdel's tokens, through the regex fast path where that gives the same tokens."""
    if _SIMPLE.fullmatch(sentence):
        return _SIMPLE_TOKEN.findall(sentence)
    return [token.text for token in razdel.tokenize(sentence)]


class SentenceMeter:
    """Token count and per-word lemma frequencies, with look-ups cached per token.

    The cache maps a token as written to its lemma's ipm (None for numbers and
    punctuation), so each distinct token is analysed once per process; on a million
    sentences almost every token is a cache hit and tokenising is the cost.
    """

    def __init__(self, frequencies: Frequencies) -> None:
        self.frequencies = frequencies
        self.morph = morph_analyzer()
        self._ipm: dict[str, float] = {}
        self._token: dict[str, float | None] = {}

    def word_ipm(self, word: str) -> float:
        key = word.lower()
        value = self._ipm.get(key)
        if value is None:
            lemma = self.morph.parse(key)[0].normal_form
            value = self.frequencies.ipm(lemma)
            self._ipm[key] = value
        return value

    def _lookup(self, token: str) -> float | None:
        return self.word_ipm(token) if _WORD.search(token) else None

    def measure(self, sentence: str) -> tuple[int, list[float]]:
        cache = self._token
        values: list[float] = []
        n = 0
        for text in tokenize(sentence):
            n += 1
            if text in cache:
                value = cache[text]
            else:
                value = cache[text] = self._lookup(text)
            if value is not None:
                values.append(value)
        return n, values


_METER: SentenceMeter | None = None  # set before the worker processes fork


def _measure_sentences(sentences: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Token counts, and word ipms as flat values plus offsets (cheap to send back)."""
    assert _METER is not None
    counts = np.empty(len(sentences), np.int64)
    offsets = np.empty(len(sentences) + 1, np.int32)
    offsets[0] = 0
    values: list[float] = []
    for i, sentence in enumerate(sentences):
        n, ipms = _METER.measure(sentence)
        counts[i] = n
        values.extend(ipms)
        offsets[i + 1] = len(values)
    return counts, offsets, np.asarray(values, np.float32)


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
) -> Iterator[tuple[pa.RecordBatch, tuple[np.ndarray, np.ndarray, np.ndarray]]]:
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
) -> dict[str, Any]:
    """Stream ``input_path`` in record batches through ``workers`` processes to ``out``.

    Memory stays bounded by the batches in flight, whatever the file's size; the output
    keeps the input's order, so it is byte-identical for any number of workers. Every row
    read is kept (``read == kept``, nothing set aside); ``report``, when given, receives
    the standard report.
    """
    global _METER
    hint = "run the previous stage first"
    text = pa.schema([row_schema.BASE_SCHEMA.field("sentence")])  # read_table checks it
    source = open_parquet(input_path, "input", ["sentence"], hint=hint, types=text)
    names = source.schema_arrow.names
    added = [field.name for field in row_schema.MEASURE_FIELDS]
    kept = [n for n in names if n not in added]
    schema = pa.schema(
        [source.schema_arrow.field(n) for n in kept] + list(row_schema.MEASURE_FIELDS)
    )
    workers = workers or os.cpu_count() or 1
    _METER = SentenceMeter(load_frequencies(frequency))
    total = source.metadata.num_rows
    rows = 0
    bar = Progress(transient=True, disable=not progress)
    with StageRun("measure", report=report, out=out) as run:
        staged = run.path(out)
        batches = _read_batches(source, batch_rows, input_path)
        with bar, pq.ParquetWriter(staged, schema, compression="zstd") as writer:
            task = bar.add_task("measuring", total=total)
            for batch, (counts, offsets, values) in _batches(batches, workers):
                arrays = [batch.column(n) for n in kept]
                arrays.append(pa.array(counts, pa.int64()))
                arrays.append(pa.ListArray.from_arrays(pa.array(offsets), pa.array(values)))
                writer.write_batch(pa.RecordBatch.from_arrays(arrays, schema=schema))
                rows += batch.num_rows
                bar.advance(task, batch.num_rows)
            if rows == 0:
                writer.write_table(schema.empty_table())
        run.count_read(rows)
        run.count_kept(rows)
        summary = run.finish(
            frequency_source=_METER.frequencies.name,
            workers=workers,
        )
    return summary
