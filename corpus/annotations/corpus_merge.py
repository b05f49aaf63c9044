"""Labelled out-of-domain sentences into the corpus stream, next to the in-domain rows.

An annotated task id is a candidate id; the candidate gives the sentence and its
provenance (``detailed_source``, ``generator``, ``method``), the annotation its label and
category. Only ``labelled`` tasks become rows; every other annotated task is set aside
with a reason (``unknown_candidate``, ``pending``, ``set_aside:<why>``, a duplicate...),
so that annotated = added + set aside. Candidates nobody has annotated yet are counted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from rucola.corpus import schema
from rucola.corpus.normalize import normalize_text
from rucola.errors import RucolaError
from rucola.io import read_parquet, write_json, write_parquet

EXTRA_COLUMNS = ["generator", "method"]
CANDIDATE_COLUMNS = ["candidate_id", "sentence", "detailed_source", "generator", "method"]
PROVENANCE_COLUMNS = ["candidate_id", "source_sentence", "seed"]
TASK_COLUMNS = ["id", "label", "error_type", "status"]

UNKNOWN_CANDIDATE = "unknown_candidate"
PENDING = "pending"
MISSING_ERROR_TYPE = "missing_error_type"
SENTENCE_MISMATCH = "sentence_mismatch"
DUPLICATE_OF_IN_DOMAIN = "duplicate_of_in_domain"
DUPLICATE = "duplicate"
CONFLICTING_LABELS = "conflicting_labels"


def _rejected_row(task: dict[str, Any], reason: str, detail: str | None = None) -> dict[str, Any]:
    return {
        "origin": f"annotations:{task['id']}",
        "raw": task.get("sentence"),
        "reason": reason,
        "sentence": task.get("candidate_sentence"),
        "detailed_source": task.get("detailed_source"),
        "detail": detail,
    }


def _value(value: Any) -> Any:
    if value is None or (not isinstance(value, str | list | dict) and pd.isna(value)):
        return None
    return value.item() if hasattr(value, "item") else value


def merge_into_corpus(
    in_domain: pd.DataFrame, candidates: pd.DataFrame, annotated: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    """In-domain rows plus the labelled out-of-domain ones; set-aside rows; counts.

    Output rows keep the in-domain columns (``generator`` and ``method`` added, null for
    in-domain rows); an out-of-domain row has domain ``out_of_domain``, ``group`` = its
    candidate id, ``origin`` = ``annotations:<id>``, mark ``""``, and its candidate's
    other columns as JSON ``provenance``.
    """
    missing = [c for c in CANDIDATE_COLUMNS if c not in candidates.columns]
    if missing:
        raise RucolaError(f"candidates lack column(s) {', '.join(missing)}")
    missing = [c for c in TASK_COLUMNS if c not in annotated.columns]
    if missing:
        raise RucolaError(f"annotated tasks lack column(s) {', '.join(missing)}")
    repeated = candidates["candidate_id"].astype(str).duplicated()
    if repeated.any():
        raise RucolaError(
            f"candidate id {candidates['candidate_id'][repeated].iloc[0]!r} appears twice"
        )
    if annotated["id"].astype(str).duplicated().any():
        raise RucolaError(
            f"annotated id {annotated['id'][annotated['id'].duplicated()].iloc[0]!r} appears twice"
        )
    by_id = candidates.assign(candidate_id=candidates["candidate_id"].astype(str)).set_index(
        "candidate_id"
    )
    in_domain_sentences = set(in_domain["sentence"]) if "sentence" in in_domain else set()
    rows: list[dict[str, Any]] = []
    rejected: list[dict[str, Any]] = []
    for task in annotated.sort_values("id", kind="stable").to_dict("records"):
        task["id"] = str(task["id"])
        if task["id"] not in by_id.index:
            rejected.append(_rejected_row(task, UNKNOWN_CANDIDATE))
            continue
        candidate = by_id.loc[task["id"]]
        sentence = normalize_text(str(candidate["sentence"]))
        task["candidate_sentence"] = sentence
        task["detailed_source"] = candidate["detailed_source"]
        status = str(task["status"])
        if status == PENDING or status.startswith(PENDING):
            rejected.append(_rejected_row(task, PENDING, _value(task.get("reason"))))
            continue
        if status != "labelled":
            rejected.append(_rejected_row(task, status))
            continue
        shown = _value(task.get("sentence"))
        if shown is not None and normalize_text(str(shown)) != sentence:
            rejected.append(_rejected_row(task, SENTENCE_MISMATCH, f"candidate: {sentence}"))
            continue
        label = int(task["label"])
        error_type = _value(task["error_type"])
        if label == schema.UNACCEPTABLE and error_type not in schema.ALL_ERROR_TYPES:
            rejected.append(_rejected_row(task, MISSING_ERROR_TYPE, str(error_type)))
            continue
        if sentence in in_domain_sentences:
            rejected.append(_rejected_row(task, DUPLICATE_OF_IN_DOMAIN))
            continue
        provenance = {
            c: _value(candidate.get(c)) for c in PROVENANCE_COLUMNS if c != "candidate_id"
        }
        provenance["candidate_id"] = task["id"]
        for column in ("n_votes", "share_acceptable", "agreement"):
            if column in task:
                provenance[column] = _value(task[column])
        rows.append(
            {
                "sentence": sentence,
                "label": label,
                "error_type": error_type if label == schema.UNACCEPTABLE else None,
                "domain": schema.OUT_OF_DOMAIN,
                "detailed_source": str(candidate["detailed_source"]),
                "mark": "",
                "group": task["id"],
                "origin": f"annotations:{task['id']}",
                "provenance": json.dumps(provenance, ensure_ascii=False, sort_keys=True),
                "artefacts": None,
                "generator": _value(candidate["generator"]),
                "method": _value(candidate["method"]),
                "_task": task,
            }
        )
    kept = _deduplicate(rows, rejected)
    ood = pd.DataFrame(kept, columns=[*schema.BASE_COLUMNS, *EXTRA_COLUMNS])
    base = in_domain.copy()
    for column in EXTRA_COLUMNS:
        if column not in base.columns:
            base[column] = None
    combined = pd.concat([base, ood.reindex(columns=base.columns)], ignore_index=True)
    rejected_frame = pd.DataFrame(rejected, columns=schema.REJECTED_SCHEMA.names)
    reasons = rejected_frame["reason"].value_counts()
    annotated_ids = set(annotated["id"].astype(str))
    counts = {
        "in_domain": int(len(in_domain)),
        "candidates": int(len(candidates)),
        "annotated": int(len(annotated)),
        "out_of_domain_added": int(len(ood)),
        "not_annotated": int(len(set(by_id.index) - annotated_ids)),
        "set_aside": int(len(rejected_frame)),
        "set_aside_by_reason": {str(k): int(v) for k, v in sorted(reasons.items())},
        "rows": int(len(combined)),
        "by_label": {str(k): int(v) for k, v in sorted(ood["label"].value_counts().items())},
        "by_error_type": {
            str(k): int(v) for k, v in sorted(ood["error_type"].value_counts().items())
        },
    }
    return combined, rejected_frame, counts


def _deduplicate(rows: list[dict[str, Any]], rejected: list[dict[str, Any]]) -> list[dict]:
    """Exact duplicates keep the first (by candidate id); conflicting labels lose all."""
    by_sentence: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_sentence.setdefault(row["sentence"], []).append(row)
    kept = []
    for copies in by_sentence.values():
        labels = {(r["label"], r["error_type"]) for r in copies}
        if len(labels) > 1:
            for row in copies:
                rejected.append(_rejected_row(row["_task"], CONFLICTING_LABELS))
            continue
        kept.append(copies[0])
        for row in copies[1:]:
            rejected.append(_rejected_row(row["_task"], DUPLICATE, f"of {copies[0]['group']}"))
    for row in kept:
        row.pop("_task")
    return sorted(kept, key=lambda r: r["group"])


def read_candidates(path: str | Path) -> pd.DataFrame:
    """Candidates: one parquet file, or a folder of them (one per generator)."""
    path = Path(path)
    if path.is_dir():
        files = sorted(path.rglob("*.parquet"))
        if not files:
            raise RucolaError("no parquet files in the candidates folder", path)
        return pd.concat([read_parquet(f) for f in files], ignore_index=True)
    if not path.is_file():
        raise RucolaError("no such file or folder", path)
    return read_parquet(path)


def output_schema(frame: pd.DataFrame) -> pa.Schema | None:
    """The base schema plus ``generator``/``method`` when the rows hold nothing else."""
    if list(frame.columns) == [*schema.BASE_COLUMNS, *EXTRA_COLUMNS]:
        return pa.schema([*schema.BASE_SCHEMA, ("generator", pa.string()), ("method", pa.string())])
    return None


def run_corpus_merge(section: dict[str, Any]) -> dict[str, Any]:
    """The DVC stage: read the three inputs, write rows, set-aside rows and the report."""
    in_domain = read_parquet(section["input"])
    candidates = read_candidates(section["candidates"])
    annotated = read_parquet(section["annotated"])
    combined, rejected, counts = merge_into_corpus(in_domain, candidates, annotated)
    write_parquet(combined, section["out"], output_schema(combined))
    write_parquet(rejected, section["rejected"], schema.REJECTED_SCHEMA)
    write_json(counts, section["report"])
    return counts
