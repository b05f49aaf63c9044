"""Labelled out-of-domain sentences into the corpus stream, next to the in-domain rows.

An annotated task id is a candidate id; the candidate gives the sentence and its
provenance (``detailed_source``, ``generator``, ``method``), the annotation its label and
category. Only ``labelled`` tasks become rows; every other annotated task is set aside
with a reason (``unknown_candidate``, ``pending``, ``set_aside:<why>``, a duplicate...),
so that annotated = added + set aside. Candidates nobody has annotated yet are counted.

The report has the standard keys of a row stage (``rucola.stage``): ``read`` (in-domain
rows plus annotated tasks), ``kept`` (the rows written: every in-domain row and the added
out-of-domain ones) and ``set_aside`` (reason -> count). "The same sentence" (a duplicate
among the candidates, or of an in-domain row) is ``corpus.dedup.sentence_key``; unlike
extraction, two labelled copies with the same label but different categories conflict.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import pyarrow as pa

from rucola.corpus import schema
from rucola.corpus.dedup import exact_duplicates, sentence_key
from rucola.corpus.normalize import normalize_text
from rucola.errors import RucolaError
from rucola.stage import StageRun, read_frame

PRIVATE = "private"  # the counts key of what goes to the private report only

if TYPE_CHECKING:
    from rucola.settings import AnnotateCorpus, Categories

EXTRA_COLUMNS = [field.name for field in schema.OUT_OF_DOMAIN_FIELDS]
# What this stage reads of a candidate and of an annotated task.
CANDIDATE_COLUMNS = ["candidate_id", "sentence", "detailed_source", *EXTRA_COLUMNS]
PROVENANCE_COLUMNS = ["candidate_id", "source_sentence", "seed"]
ROW_SCHEMA = pa.schema([*schema.BASE_SCHEMA, *schema.OUT_OF_DOMAIN_FIELDS])
SET_ASIDE_SCHEMA = schema.set_aside_schema(ROW_SCHEMA)
TASK_COLUMNS = ["id", "label", "error_type", "status"]

UNKNOWN_CANDIDATE = "unknown_candidate"
PENDING = "pending"
MISSING_ERROR_TYPE = "missing_error_type"
SENTENCE_MISMATCH = "sentence_mismatch"
DUPLICATE_OF_IN_DOMAIN = "duplicate_of_in_domain"
DUPLICATE = "duplicate"
CONFLICTING_LABELS = "conflicting_labels"


def _rejected_row(task: dict[str, Any], reason: str, detail: str | None = None) -> dict[str, Any]:
    """A task set aside: the set-aside schema's columns (``raw`` is the sentence shown)."""
    return {
        "origin": f"annotations:{task['id']}",
        "raw": _value(task.get("sentence")),
        "reason": reason,
        "detail": detail,
        "sentence": task.get("candidate_sentence"),
        "domain": schema.OUT_OF_DOMAIN,
        "detailed_source": _value(task.get("detailed_source")),
        "group": task["id"],
        "generator": _value(task.get("generator")),
        "method": _value(task.get("method")),
    }


def _value(value: Any) -> Any:
    if value is None or (not isinstance(value, str | list | dict) and pd.isna(value)):
        return None
    return value.item() if hasattr(value, "item") else value


def merge_into_corpus(
    in_domain: pd.DataFrame,
    candidates: pd.DataFrame,
    annotated: pd.DataFrame,
    run: StageRun,
    categories: Categories,
    language: str = "ru",
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """In-domain rows plus the labelled out-of-domain ones, and this stage's own figures.
    An unacceptable row needs a category of its domain (``categories``:
    ``corpus.categories``), else it is set aside (``missing_error_type``). Sentences are
    normalised and keyed in ``language`` (``corpus.language``), as extract does.

    ``run`` counts the rows read (every in-domain row and annotated task) and takes every
    task set aside, with its reason; the caller hands it the rows returned as the kept ones.
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
    run.count_read(len(in_domain) + len(annotated))
    allowed = categories.of(schema.OUT_OF_DOMAIN)
    by_id = candidates.assign(candidate_id=candidates["candidate_id"].astype(str)).set_index(
        "candidate_id"
    )
    in_domain_sentences = (
        {sentence_key(s, language) for s in in_domain["sentence"]}
        if "sentence" in in_domain
        else set()
    )
    rows: list[dict[str, Any]] = []
    rejected: list[dict[str, Any]] = []
    for task in annotated.sort_values("id", kind="stable").to_dict("records"):
        task["id"] = str(task["id"])
        if task["id"] not in by_id.index:
            rejected.append(_rejected_row(task, UNKNOWN_CANDIDATE))
            continue
        candidate = by_id.loc[task["id"]]
        sentence = normalize_text(str(candidate["sentence"]), language)
        task["candidate_sentence"] = sentence
        for column in ("detailed_source", *EXTRA_COLUMNS):
            task[column] = candidate[column]
        status = str(task["status"])
        if status == PENDING or status.startswith(PENDING):
            rejected.append(_rejected_row(task, PENDING, _value(task.get("reason"))))
            continue
        if status != "labelled":
            rejected.append(_rejected_row(task, status))
            continue
        shown = _value(task.get("sentence"))
        if shown is not None and sentence_key(str(shown), language) != sentence_key(
            sentence, language
        ):
            rejected.append(_rejected_row(task, SENTENCE_MISMATCH, f"candidate: {sentence}"))
            continue
        label = int(task["label"])
        error_type = _value(task["error_type"])
        # no categories declared (CoLA, ItaCoLA): an unacceptable row has none
        if label == schema.UNACCEPTABLE and allowed and error_type not in allowed:
            rejected.append(_rejected_row(task, MISSING_ERROR_TYPE, str(error_type)))
            continue
        if sentence_key(sentence, language) in in_domain_sentences:
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
    kept = _deduplicate(rows, rejected, language)
    ood = pd.DataFrame(kept, columns=[*schema.BASE_COLUMNS, *EXTRA_COLUMNS])
    base = in_domain.copy()
    for column in EXTRA_COLUMNS:
        if column not in base.columns:
            base[column] = None
    combined = pd.concat([base, ood.reindex(columns=base.columns)], ignore_index=True)
    table = pa.Table.from_pandas(
        pd.DataFrame(rejected, columns=SET_ASIDE_SCHEMA.names), preserve_index=False
    )
    run.set_aside(table, table["reason"].to_pylist(), table["detail"].to_pylist())
    annotated_ids = set(annotated["id"].astype(str))
    counts = {
        schema.IN_DOMAIN: int(len(in_domain)),
        "candidates": int(len(candidates)),
        "annotated": int(len(annotated)),
        "out_of_domain_added": int(len(ood)),
        "not_annotated": int(len(set(by_id.index) - annotated_ids)),
    }
    # labels and categories of rows some of which will be test rows: private
    counts[PRIVATE] = {
        "by_label": {str(k): int(v) for k, v in sorted(ood["label"].value_counts().items())},
        "by_error_type": {
            str(k): int(v) for k, v in sorted(ood["error_type"].value_counts().items())
        },
    }
    return combined, counts


def _deduplicate(
    rows: list[dict[str, Any]], rejected: list[dict[str, Any]], language: str = "ru"
) -> list[dict]:
    """Exact duplicates (``corpus.dedup.exact_duplicates`` on the sentence key) keep the
    first (by candidate id); copies whose label or category differ are all set aside. Set
    aside sentence by sentence, in the order each sentence first appears."""
    keys = [sentence_key(row["sentence"], language) for row in rows]
    first, conflict = exact_duplicates(keys, [(r["label"], r["error_type"]) for r in rows])
    kept = []
    for i in sorted(range(len(rows)), key=lambda i: (first[i], i)):
        row = rows[i]
        if conflict[i]:
            rejected.append(_rejected_row(row["_task"], CONFLICTING_LABELS))
        elif first[i] == i:
            kept.append(row)
        else:
            rejected.append(_rejected_row(row["_task"], DUPLICATE, f"of {rows[first[i]]['group']}"))
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
        return pd.concat([read_frame(f, "candidates file") for f in files], ignore_index=True)
    if not path.is_file():
        raise RucolaError("no such file or folder", path)
    return read_frame(path, "candidates file")


def output_schema(frame: pd.DataFrame) -> pa.Schema | None:
    """The base schema plus ``generator``/``method`` when the rows hold nothing else."""
    if list(frame.columns) == [*schema.BASE_COLUMNS, *EXTRA_COLUMNS]:
        return ROW_SCHEMA
    return None


def run_corpus_merge(
    settings: AnnotateCorpus,
    *,
    in_domain: str | Path,
    annotated: str | Path,
    candidates: str | Path,
    categories: Categories,
    language: str = "ru",
) -> dict[str, Any]:
    """The DVC stage: read the three inputs (what ``extract``, ``annotate merge`` and
    ``merge-candidates`` write), write rows, set-aside rows and the report; ``categories``
    (``corpus.categories``) are what a row may have; ``language``: ``corpus.language``."""
    with StageRun(
        "annotate",
        report=settings.report,
        private_report=settings.private_report,
        out=settings.out,
        rejected=settings.rejected,
        set_aside_schema=SET_ASIDE_SCHEMA,
    ) as run:
        rows = read_frame(in_domain, "in-domain input")
        every = read_candidates(candidates)
        tasks = read_frame(
            annotated, "annotated tasks file", hint="run 'rucola annotate merge' first"
        )
        combined, counts = merge_into_corpus(rows, every, tasks, run, categories, language)
        private = counts.pop(PRIVATE)
        report = run.finish(combined, output_schema(combined), private=private, **counts)
        return {**report, **private}
