"""The ``audit`` stage: find the rows of a built corpus a maintainer should look at again.

It reads the split rows (``split.out``) and runs every enabled kind of ``audit``:
``cross_split_duplicate`` and ``conflicting_duplicate`` (``rucola.curation.duplicates``),
``likely_label_error`` (``rucola.curation.label_errors``) and ``category_mismatch``
(``rucola.curation.categories``). It writes two files together (``rucola.stage.StageRun``:
both or neither, never over a file rucola did not write):

- the review queue (``audit.out``, :mod:`rucola.curation.queue`): private, since it holds
  hidden test labels and says which test rows look mislabelled; DVC tracks it, git never;
- the report (``audit.report``): public, committed to git. It holds counts per kind in
  train and validation, and the params that shaped them, nothing else: no sentence, id,
  domain or label, and nothing of the test split (how many test rows look mislabelled
  follows their hidden labels);
- the private report (``audit.private_report``, DVC cache only): every count, test
  included, the queue's size and the SHA-256 of the queue.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from rucola.corpus import schema
from rucola.curation.categories import category_mismatches
from rucola.curation.duplicates import conflicting_duplicates, cross_split_duplicates
from rucola.curation.label_errors import likely_label_errors
from rucola.curation.queue import (
    CATEGORY_MISMATCH,
    CONFLICTING_DUPLICATE,
    CROSS_SPLIT_DUPLICATE,
    KINDS,
    LIKELY_LABEL_ERROR,
    build_queue,
)
from rucola.io import write_json, write_parquet
from rucola.settings import Audit, Params
from rucola.stage import StageRun, private_report, read_table

STAGE = "audit"
# The split rows' columns the audit reads, with the types it relies on.
TYPES = pa.schema(
    [
        schema.SPLIT_ROW_SCHEMA.field(name)
        for name in ["sentence", "label", "error_type", "domain", "group", "split", "id"]
    ]
)


def enabled_kinds(settings: Audit) -> list[str]:
    """The kinds ``settings`` turns on, in queue order."""
    return [kind for kind in KINDS if getattr(settings, kind).enabled]


def read_rows(source: str | Path) -> pd.DataFrame:
    """The split rows the audit needs, or one line naming the file (missing, unreadable,
    lacking a column, a column of another type)."""
    table = read_table(
        source,
        what="split rows",
        columns=TYPES.names,
        hint="run 'rucola split' first",
        types=TYPES,
    )
    return table.to_pandas().reset_index(drop=True)


def audit_rows(rows: pd.DataFrame, settings: Audit, params: Params) -> tuple[pa.Table, dict]:
    """The queue and the report's figures for ``rows`` (positions 0..n-1)."""
    findings: dict[str, pd.DataFrame] = {}
    scored: dict[str, int] = {}
    kinds = enabled_kinds(settings)
    if CROSS_SPLIT_DUPLICATE in kinds:
        findings[CROSS_SPLIT_DUPLICATE] = cross_split_duplicates(
            rows, settings.cross_split_duplicate, params.corpus.language
        )
    if CONFLICTING_DUPLICATE in kinds:
        findings[CONFLICTING_DUPLICATE] = conflicting_duplicates(
            rows, language=params.corpus.language
        )
    if LIKELY_LABEL_ERROR in kinds:
        findings[LIKELY_LABEL_ERROR], scored[LIKELY_LABEL_ERROR] = likely_label_errors(
            rows, settings.likely_label_error
        )
    if CATEGORY_MISMATCH in kinds:
        findings[CATEGORY_MISMATCH], scored[CATEGORY_MISMATCH] = category_mismatches(
            rows, settings.likely_label_error, params.corpus.categories
        )
    queue = build_queue(rows, findings)
    return queue, _report(len(rows), queue, kinds, scored, settings)


def _report(
    read: int, queue: pa.Table, kinds: list[str], scored: dict[str, int], settings: Audit
) -> dict[str, Any]:
    """Counts per kind and split only (see the module docstring)."""
    frame = queue.select(["kind", "split"]).to_pandas()
    counts = frame.value_counts(["kind", "split"])
    label_errors = settings.likely_label_error
    near = settings.cross_split_duplicate.near_duplicates
    return {
        "read": read,
        "queue": queue.num_rows,
        "kinds": {
            kind: {split: int(counts.get((kind, split), 0)) for split in schema.SPLITS}
            for kind in kinds
        },
        "scored": scored,
        "params": {
            "enabled": kinds,
            "folds": label_errors.folds,
            "features": label_errors.features,
            "seed": label_errors.seed,
            "C": label_errors.C,
            "near_duplicates": near.enabled,
            "near_duplicate_threshold": near.threshold,
        },
    }


def run_audit(settings: Audit, params: Params, source: str) -> dict[str, Any]:
    """The stage over ``source`` (the split rows): the queue and the report, written
    together; returns the report."""
    outputs = [settings.out, settings.report, settings.private_report]
    with StageRun(STAGE, report=None, outputs=outputs) as run:
        rows = read_rows(source)
        queue, report = audit_rows(rows, settings, params)
        # The public counts come from auditing the public form of the rows: a model fitted
        # on hidden test labels, or a test row's label conflicting with a train row's,
        # would otherwise move the train and validation counts git tracks.
        test = rows["split"] == "test"
        public = audit_rows(public_rows(rows), settings, params)[1] if test.any() else report
        write_parquet(queue, run.path(settings.out))
        write_json(public_report(public), run.path(settings.report))
        write_json(
            private_report(report, run.path(settings.out)), run.path(settings.private_report)
        )
    return report


def public_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` as the public sees them: a test row keeps its sentence, id and group (its
    text's near-duplicates), never its label, category or domain."""
    out = rows.copy()
    test = out["split"] == "test"
    out.loc[test, "label"] = schema.UNLABELLED
    out["error_type"] = out["error_type"].astype(object).where(~test, None)
    out["domain"] = out["domain"].astype(object).where(~test, None)
    return out


def public_report(report: dict[str, Any]) -> dict[str, Any]:
    """What git may track of the audit of the public rows (:func:`public_rows`): rows
    read, findings per kind in train and validation, the settings. Test findings, the
    queue's size and the rows scored per kind follow hidden labels: private."""
    return {
        "read": report["read"],
        "kinds": {
            kind: {split: counts[split] for split in schema.SPLITS[:2]}
            for kind, counts in report["kinds"].items()
        },
        "params": report["params"],
    }


def summary_lines(report: dict[str, Any]) -> list[str]:
    """What ``rucola audit`` prints: rows read and queued, then one line per kind with its
    counts per split (as the report has them), ``off`` for a kind turned off."""
    lines = [f"audit: {report['read']} rows read, {report['queue']} in the review queue"]
    enabled = report["params"]["enabled"]
    for kind in KINDS:
        if kind not in enabled:
            lines.append(f"audit: {kind}: off")
            continue
        counts = report["kinds"][kind]
        text = ", ".join(f"{split} {n}" for split, n in counts.items())
        scored = report["scored"].get(kind)
        extra = f" (of {scored} rows scored)" if scored is not None else ""
        lines.append(f"audit: {kind}: {text}{extra}")
    return lines
