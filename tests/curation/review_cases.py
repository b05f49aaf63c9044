"""Queues and Label Studio exports for the review's tests, in the shapes the real tools write.

``write_queue`` writes the audit queue in the schema ``rucola audit`` writes; ``export``
builds a Label Studio JSON export of the review with the keys Label Studio 1.23.2 writes
(copied from a real export of ``scripts/label_studio_review.py``), so the reader is tried on
what it will meet.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from identity import write_identity

QUEUE_SCHEMA = pa.schema(
    [
        ("kind", pa.string()),
        ("split", pa.string()),
        ("domain", pa.string()),
        ("id", pa.int64()),
        ("sentence", pa.string()),
        ("label", pa.int64()),
        ("error_type", pa.string()),
        ("score", pa.float64()),
        ("evidence", pa.string()),
        ("cluster", pa.string()),
    ]
)

# kind, split, domain, id, sentence, label, error_type, score, evidence, cluster
QUEUE = [
    ("cross_split_duplicate", "train", "in_domain", 3, "Мальчик спит.", 1, None, 1.0,
     "also in test: test/7", "dup-1"),
    ("cross_split_duplicate", "test", "in_domain", 7, "Мальчик спит.", 1, None, 1.0,
     "also in train: train/in_domain/3", "dup-1"),
    ("conflicting_duplicate", "train", "in_domain", 30, "Я читал книгу.", 0, "Semantics", 1.0,
     "labelled 1 in validation/in_domain/4", "conflict-1"),
    ("likely_label_error", "train", "in_domain", 12, "Кошка спать на окне.", 1, None, 0.93,
     "P(label 1) = 0.07", None),
    ("likely_label_error", "validation", "out_of_domain", 0, "Он пошёл в магазин.", 0,
     "Syntax", 0.88, "P(label 0) = 0.12", None),
    ("likely_label_error", "train", "in_domain", 3, "Мальчик спит.", 1, None, 0.5,
     "P(label 1) = 0.5", None),
    ("category_mismatch", "train", "in_domain", 20, "Ихний дом стоит у реки.", 0, "Syntax",
     0.7, "the classifier prefers Morphology", None),
]  # fmt: skip


def rucola_project(folder: Path) -> None:
    """RuCoLA's params (its identity and categories) in ``folder``, unless the test wrote
    params of its own there: the commands load ``params.yaml``, and no default names a
    corpus."""
    if not (folder / "params.yaml").exists():
        write_identity(folder)


def write_queue(path: Path, rows: list[tuple[Any, ...]] = QUEUE) -> Path:
    columns = list(zip(*rows, strict=True)) if rows else [[] for _ in QUEUE_SCHEMA]
    arrays = [pa.array(list(c), f.type) for c, f in zip(columns, QUEUE_SCHEMA, strict=True)]
    pq.write_table(pa.Table.from_arrays(arrays, schema=QUEUE_SCHEMA), path)
    return path


def data(
    split: str = "train",
    domain: str | None = "in_domain",
    id: int = 3,
    sentence: str = "Мальчик спит.",
    label: int = 1,
    error_type: str | None = None,
) -> dict[str, Any]:
    """A task's data as ``rucola audit export`` writes it."""
    return {
        "domain": domain,
        "error_type": error_type,
        "evidence": "likely_label_error: P(label 1) = 0.5",
        "header": f"{split} · {domain} · id {id}",
        "id": id,
        "kinds": "likely_label_error",
        "label": label,
        "score": 0.5,
        "sentence": sentence,
        "split": split,
    }


def region(name: str, value: Any) -> dict[str, Any]:
    if name in ("decision", "category"):
        return {"from_name": name, "to_name": "sentence", "type": "choices",
                "value": {"choices": [value]}}  # fmt: skip
    return {"from_name": name, "to_name": "sentence", "type": "textarea",
            "value": {"text": [value]}}  # fmt: skip


def annotation(
    reviewer: Any,
    decision: str | None,
    category: str | None = None,
    text: str | None = None,
    comment: str | None = None,
    *,
    cancelled: bool = False,
    id: int | None = None,
) -> dict[str, Any]:
    """One annotation with the keys a real export has; ``reviewer`` is ``completed_by``."""
    result = []
    for name, value in (("decision", decision), ("category", category), ("text", text),
                        ("comment", comment)):  # fmt: skip
        if value is not None and not cancelled:
            result.append(region(name, value))
    return {
        "id": id,
        "completed_by": reviewer,
        "result": result,
        "was_cancelled": cancelled,
        "ground_truth": False,
        "created_at": "2026-11-24T10:59:27.340751Z",
        "updated_at": "2026-11-24T10:59:27.340777Z",
        "draft_created_at": None,
        "lead_time": None,
        "prediction": {},
        "result_count": 1,
        "unique_id": "cc512060-ec09-4b49-adf8-696903eda388",
        "import_id": None,
        "last_action": None,
        "bulk_created": False,
        "task": 1,
        "project": 1,
        "updated_by": reviewer,
        "parent_prediction": None,
        "parent_annotation": None,
        "last_created_by": None,
    }


def task(task_data: dict[str, Any], *annotations: dict[str, Any], id: int = 1) -> dict[str, Any]:
    numbered = []
    for i, a in enumerate(annotations, start=1):
        numbered.append({**a, "id": a["id"] if a["id"] is not None else id * 100 + i, "task": id})
    return {
        "id": id,
        "annotations": numbered,
        "drafts": [],
        "predictions": [],
        "data": task_data,
        "meta": {},
        "created_at": "2026-11-24T10:59:24.000000Z",
        "updated_at": "2026-11-24T10:59:27.500000Z",
        "inner_id": id,
        "total_annotations": len(annotations),
        "cancelled_annotations": sum(a["was_cancelled"] for a in annotations),
        "total_predictions": 0,
        "comment_count": 0,
        "unresolved_comment_count": 0,
        "last_comment_updated_at": None,
        "project": 1,
        "updated_by": 1,
        "comment_authors": [],
    }


def write_export(path: Path, tasks: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps(tasks, ensure_ascii=False, indent=1), encoding="utf-8")
    return path
