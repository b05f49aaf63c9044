"""The review queue ``rucola audit`` writes (``audit.out``) and ``rucola audit export`` reads.

One row per (kind, split row): the row's identity as published (``split``, ``domain``,
``id``), what a reviewer judges (``sentence``, ``label``, ``error_type``), how suspicious
it is (``score``, higher is more suspicious, comparable within a kind only), one human line
saying why (``evidence``) and, for findings that tie rows together (a duplicate group), a
``cluster`` the rows share. The file is private: it holds hidden test labels.

The order is fixed (kind, score descending, split, domain, id), so the same split rows and
params give the same bytes, and the first rows of a kind are the ones to review first.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from rucola.corpus import schema
from rucola.stage import read_table

CROSS_SPLIT_DUPLICATE = "cross_split_duplicate"
CONFLICTING_DUPLICATE = "conflicting_duplicate"
LIKELY_LABEL_ERROR = "likely_label_error"
CATEGORY_MISMATCH = "category_mismatch"
# The kinds in queue order (rucola.settings.AuditKind names the same four).
KINDS = [CROSS_SPLIT_DUPLICATE, CONFLICTING_DUPLICATE, LIKELY_LABEL_ERROR, CATEGORY_MISMATCH]
KIND_INDEX = {kind: i for i, kind in enumerate(KINDS)}

QUEUE_SCHEMA = pa.schema(
    [
        ("kind", pa.string()),
        ("split", pa.string()),
        ("domain", pa.string()),  # null for an unlabelled published test row
        ("id", pa.int64()),
        ("sentence", pa.string()),
        ("label", pa.int64()),  # -1: a published test row without gold
        ("error_type", pa.string()),
        ("score", pa.float64()),
        ("evidence", pa.string()),
        ("cluster", pa.string()),
    ]
)
QUEUE_COLUMNS = QUEUE_SCHEMA.names
# What a finder returns for each row it flags: the row's position in the split rows, then
# the queue's own columns.
FINDING_COLUMNS = ["row", "score", "evidence", "cluster"]


def findings_frame(
    rows: list[int] | np.ndarray,
    scores: list[float] | np.ndarray,
    evidence: list[str],
    cluster: list[str | None] | None = None,
) -> pd.DataFrame:
    """A finder's result in the one shape :func:`build_queue` takes."""
    n = len(rows)
    return pd.DataFrame(
        {
            "row": np.asarray(rows, dtype=np.int64),
            "score": np.asarray(scores, dtype=np.float64),
            "evidence": list(evidence),
            "cluster": list(cluster) if cluster is not None else [None] * n,
        },
        columns=FINDING_COLUMNS,
    )


def row_name(split: str, domain: object, row_id: int) -> str:
    """How evidence names a row: its published identity, ``test 123`` or
    ``train in_domain 456`` (test ids are unique per split, the others per domain too)."""
    if split == "test" or domain is None or (isinstance(domain, float) and np.isnan(domain)):
        return f"{split} {row_id}"
    return f"{split} {domain} {row_id}"


def sort_queue(frame: pd.DataFrame) -> pd.DataFrame:
    """The queue's order: kind (:data:`KINDS`), score descending, then split (train,
    validation, test), domain (none last) and id, which name one row, so ties never depend
    on the order the finders ran in."""
    keys = pd.DataFrame(
        {
            "kind": frame["kind"].map(KIND_INDEX),
            "score": -frame["score"].astype(float),
            "split": frame["split"].map(schema.SPLIT_INDEX),
            "domain": frame["domain"].fillna("\uffff"),
            "id": frame["id"],
        },
        index=frame.index,
    )
    order = keys.sort_values(list(keys.columns), kind="stable").index
    return frame.loc[order].reset_index(drop=True)


def build_queue(rows: pd.DataFrame, findings: dict[str, pd.DataFrame]) -> pa.Table:
    """The queue from the split rows (``rows``, positions as the finders saw them) and each
    kind's findings (:func:`findings_frame`), sorted, in :data:`QUEUE_SCHEMA`."""
    parts = []
    for kind in KINDS:
        found = findings.get(kind)
        if found is None or found.empty:
            continue
        picked = rows.iloc[found["row"].to_numpy()]
        parts.append(
            pd.DataFrame(
                {
                    "kind": kind,
                    "split": picked["split"].to_numpy(),
                    "domain": picked["domain"].to_numpy(),
                    "id": picked["id"].to_numpy(dtype=np.int64),
                    "sentence": picked["sentence"].to_numpy(),
                    "label": picked["label"].to_numpy(dtype=np.int64),
                    "error_type": picked["error_type"].to_numpy(),
                    "score": found["score"].to_numpy(dtype=np.float64),
                    "evidence": found["evidence"].to_numpy(),
                    "cluster": found["cluster"].to_numpy(),
                }
            )
        )
    if not parts:
        return QUEUE_SCHEMA.empty_table()
    frame = sort_queue(pd.concat(parts, ignore_index=True))
    frame = frame.astype(object).where(frame.notna(), None)
    table = pa.Table.from_pandas(frame, schema=QUEUE_SCHEMA, preserve_index=False)
    return table.replace_schema_metadata(None)  # no pandas metadata: the same bytes anywhere


def read_queue(path: str | Path) -> pd.DataFrame:
    """The queue at ``path`` (``audit.out``), or one line naming the file: missing,
    unreadable, lacking a column or holding one of another type."""
    table = read_table(
        path,
        what="audit queue",
        columns=QUEUE_COLUMNS,
        hint="run 'rucola audit' first",
        types=QUEUE_SCHEMA,
    )
    return table.to_pandas()
