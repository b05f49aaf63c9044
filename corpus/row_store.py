"""Rows held column by column in Arrow arrays, for a stage that reads a million of them.

A row as a Python dict costs about four times its Arrow form, so extract keeps the rows it
reads here (issue 42: a million-row labelled table extracts in under 1 GiB): the latest
rows in Python lists, the rest in arrays of :data:`BATCH_ROWS`, each column handed over as
one array when the output is built.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

# Rows are held in Arrow arrays of this many: a row as a Python dict costs about four
# times its Arrow form, and a million-row table must extract in under 1 GiB (issue 42).
BATCH_ROWS = 16_384
# The rows' arrays come from the system's allocator: Arrow's default (mimalloc) keeps the
# pages that arrays being built and pieces being joined let go as the process's memory,
# a third of extract's peak at a million rows.
POOL = pa.system_memory_pool()


class Rows:
    """Rows of one schema, stored column by column: the latest in Python lists, the rest in
    Arrow arrays of :data:`BATCH_ROWS` each. :meth:`pop` hands a column over as one array
    and frees its pieces, so the output is built a column at a time. Iterating or indexing
    gives each row as a dict (the rule tests read them so)."""

    def __init__(self, row_schema: pa.Schema) -> None:
        self.schema = row_schema
        self._open: dict[str, list[Any]] = {name: [] for name in row_schema.names}
        self._chunks: dict[str, list[pa.Array]] = {name: [] for name in row_schema.names}
        self.num_rows = 0

    def append(self, row: dict[str, Any]) -> None:
        """One row; a column it lacks is null."""
        get = row.get
        for name, values in self._open.items():
            values.append(get(name))
        self.num_rows += 1
        if self.num_rows % BATCH_ROWS == 0:
            self._flush()

    def _flush(self) -> None:
        if self._open[self.schema.names[0]]:
            for f in self.schema:
                self._chunks[f.name].append(pa.array(self._open[f.name], f.type, memory_pool=POOL))
            self._open = {name: [] for name in self.schema.names}

    def column(self, name: str) -> pa.ChunkedArray:
        """One column, in pieces (no copy)."""
        self._flush()
        return pa.chunked_array(self._chunks[name], self.schema.field(name).type)

    def table(self) -> pa.Table:
        """Every row, in the order appended (no copy)."""
        return pa.table([self.column(name) for name in self.schema.names], schema=self.schema)

    def pop(self, name: str, keep: np.ndarray | None = None) -> pa.Array:
        """One column as one array, only the rows ``keep`` marks (None: all); its pieces are
        freed. One array, whatever :data:`BATCH_ROWS` is: Parquet pages follow the pieces
        of what it writes, and the output's bytes must not."""
        whole = self.column(name).combine_chunks(memory_pool=POOL)
        self._chunks[name] = []
        return whole if keep is None else pc.filter(whole, pa.array(keep), memory_pool=POOL)

    def __len__(self) -> int:
        return self.num_rows

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for batch in self.table().to_batches():
            yield from batch.to_pylist()

    def __getitem__(self, index: int) -> dict[str, Any]:
        return self.table().slice(index % max(self.num_rows, 1), 1).to_pylist()[0]

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, list | Rows) else NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable


class Sample:
    """How many rows something happened to, and the origins of the first ``keep``."""

    def __init__(self, keep: int = 100) -> None:
        self.keep = keep
        self.count = 0
        self.examples: list[str] = []

    def append(self, origin: str) -> None:
        self.count += 1
        if len(self.examples) < self.keep:
            self.examples.append(origin)
