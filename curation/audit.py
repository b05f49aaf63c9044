"""The ``audit`` stage: find the rows of a built corpus a maintainer should look at again.

It reads the split rows (``split.out``) and runs every enabled kind of ``audit``:
``cross_split_duplicate`` and ``conflicting_duplicate`` (``rucola.curation.duplicates``),
``likely_label_error`` (``rucola.curation.label_errors``) and ``category_mismatch``
(``rucola.curation.categories``). It writes two files together (``rucola.stage.StageRun``:
both or neither, never over a file rucola did not write):

- the review queue (``audit.out``, :mod:`rucola.curation.queue`): private, since it holds
  hidden test labels and says which test rows look mislabelled; DVC tracks it, git never;
- the report (``audit.report``): public, committed to git. It holds counts per kind in
  train and validation, the params that shaped them and how well the label-error models
  separate the labels (:func:`separation_summary`), nothing else: no sentence, id,
  domain or label, and nothing of the test split (how many test rows look mislabelled
  follows their hidden labels);
- the private report (``audit.private_report``, DVC cache only): every count, test
  included, the queue's size, each domain's out-of-fold ROC AUC (``separation``) and the
  SHA-256 of the queue.
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
# The split rows' columns the audit reads, with the types it relies on (the source: a
# feature of ``likely_label_error``).
READ = ["sentence", "label", "error_type", "domain", "detailed_source", "group", "split", "id"]
TYPES = pa.schema([schema.SPLIT_ROW_SCHEMA.field(name) for name in READ])
# What a test row hides besides its label: blank in the public rows (:func:`public_rows`).
HIDDEN = ("error_type", "domain", "detailed_source")


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
    separation: dict[str, float] | None = None
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
        label_errors = likely_label_errors(rows, settings.likely_label_error)
        findings[LIKELY_LABEL_ERROR] = label_errors.flagged
        scored[LIKELY_LABEL_ERROR] = label_errors.scored
        separation = label_errors.separation
    if CATEGORY_MISMATCH in kinds:
        findings[CATEGORY_MISMATCH], scored[CATEGORY_MISMATCH] = category_mismatches(
            rows, settings.likely_label_error, params.corpus.categories
        )
    # the rows of a domain the model does not separate are in the queue, ranked, and are
    # no finding: the counts are the flags only
    queued = dict(findings)
    if separation is not None:
        queued[LIKELY_LABEL_ERROR] = label_errors.queued()
    queue = build_queue(rows, queued)
    report = _report(rows, queue, findings, scored, settings)
    if separation is not None:
        report["separation"] = separation
    return queue, report


def _report(
    rows: pd.DataFrame,
    queue: pa.Table,
    findings: dict[str, pd.DataFrame],
    scored: dict[str, int],
    settings: Audit,
) -> dict[str, Any]:
    """Counts of findings per kind and split only (see the module docstring)."""
    splits = rows["split"].to_numpy()
    counts = {
        kind: pd.Series(splits[found["row"].to_numpy()]).value_counts()
        for kind, found in findings.items()
    }
    label_errors = settings.likely_label_error
    near = settings.cross_split_duplicate.near_duplicates
    return {
        "read": len(rows),
        "queue": queue.num_rows,
        "kinds": {
            kind: {split: int(counts[kind].get(split, 0)) for split in schema.SPLITS}
            for kind in enabled_kinds(settings)
        },
        "scored": scored,
        "params": {
            "enabled": enabled_kinds(settings),
            "folds": label_errors.folds,
            "features": label_errors.features,
            "seed": label_errors.seed,
            "C": label_errors.C,
            "sources": label_errors.sources,
            "min_auc": label_errors.min_auc,
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
        public = (
            report if hides_nothing(rows) else audit_rows(public_rows(rows), settings, params)[1]
        )
        write_parquet(queue, run.path(settings.out))
        write_json(public_report(public), run.path(settings.report))
        write_json(
            private_report(report, run.path(settings.out)), run.path(settings.private_report)
        )
    return report


def hides_nothing(rows: pd.DataFrame) -> bool:
    """Whether no test row holds what :func:`public_rows` blanks (a label, category,
    domain or source): a corpus without private gold, such as the published RuCoLA, whose
    test rows are unlabelled. Its public rows then hold the same values as ``rows``, so
    their audit is the one just run; running it again (two cross-validated models per
    domain) would double the stage's time for the same report."""
    test = rows["split"] == "test"
    return bool(
        (rows.loc[test, "label"] == schema.UNLABELLED).all()
        and rows.loc[test, list(HIDDEN)].isna().all(axis=None)
    )


def public_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` as the public sees them: a test row keeps its sentence, id and group (its
    text's near-duplicates), never its label, category, domain or source."""
    out = rows.copy()
    test = out["split"] == "test"
    out.loc[test, "label"] = schema.UNLABELLED
    for column in HIDDEN:
        out[column] = out[column].astype(object).where(~test, None)
    return out


def public_report(report: dict[str, Any]) -> dict[str, Any]:
    """What git may track of the audit of the public rows (:func:`public_rows`): rows
    read, findings per kind in train and validation, the settings. Test findings, the
    queue's size and the rows scored per kind follow hidden labels: private."""
    public = {
        "read": report["read"],
        "kinds": {
            kind: {split: counts[split] for split in schema.SPLITS[:2]}
            for kind, counts in report["kinds"].items()
        },
        "params": report["params"],
    }
    if "separation" in report:
        public["separation"] = separation_summary(report["separation"], report["params"]["min_auc"])
    return public


def separation_summary(separation: dict[str, float], min_auc: float) -> dict[str, Any]:
    """How far the ``likely_label_error`` models tell the labels apart, naming no domain
    (the public report names none): the lowest out-of-fold ROC AUC, and how many domains
    were flagged and how many ranked only (below ``min_auc``)."""
    aucs = list(separation.values())
    return {
        "lowest_auc": min(aucs) if aucs else None,
        "domains_flagged": sum(auc >= min_auc for auc in aucs),
        "domains_ranked_only": sum(auc < min_auc for auc in aucs),
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
        if kind == LIKELY_LABEL_ERROR:
            lines.extend(separation_lines(report))
    return lines


def separation_lines(report: dict[str, Any]) -> list[str]:
    """One line per domain whose model does not separate the labels: its rows are ranked
    in the queue, never flagged."""
    min_auc = report["params"]["min_auc"]
    return [
        f"audit: {LIKELY_LABEL_ERROR}: {domain}: ranked only, not flagged: the out-of-fold "
        f"model does not separate the labels (ROC AUC {auc:.4f} < min_auc {min_auc})"
        for domain, auc in report.get("separation", {}).items()
        if auc < min_auc
    ]
