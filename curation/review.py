"""Expert review in Label Studio: the audit's queue out as tasks, the decisions back as errata.

``rucola audit export`` (the DVC stage ``audit_export``) takes the ``audit.export.top``
most suspicious rows of each kind from the queue (``audit.out``, in queue order: score
descending) and writes one Label Studio task per row, so a row found by two kinds is
reviewed once, with both kinds and both pieces of evidence. The folder (``tasks.json``,
``review_config.xml``) replaces the previous one whole, and the same queue and params give
the same bytes. It is private like the queue: it holds test rows and their gold.

``rucola audit import EXPORT.json --out ERRATA.csv`` reads Label Studio's JSON export
(``review_answers``), decides each task by majority (``decisions``) and writes the errata
file the next build applies (``extract.errata``), with the row's exported value as ``old``
so a stale erratum is refused. The tasks are checked against the audit queue they were
exported from (``audit.out``, or ``--queue``): a decision on a row the queue does not hold
(an unknown id: a task of another project, or edited) or whose sentence, label or category
the queue holds otherwise (the row changed since the export: the build would refuse the
erratum as stale) is undecided, as is every erratum the split would refuse
(``decisions``). Undecided tasks are printed and, with ``--undecided``, written to a CSV;
they are never applied. A bad export writes nothing, and neither does a write that fails
(a full disk): one line naming the file.
"""

from __future__ import annotations

import csv
import math
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from rucola.corpus.pin import id_scope
from rucola.corpus.schema import SPLIT_INDEX, SPLITS
from rucola.curation.decisions import ERRATA_COLUMNS, Outcome, decide, refuse, tally
from rucola.curation.queue import KINDS
from rucola.curation.queue import read_queue as read_queue_file
from rucola.curation.review_answers import ReviewTask, read_review
from rucola.curation.review_config import DECISIONS, review_config
from rucola.errors import RucolaError
from rucola.io import write_json, write_text
from rucola.stage import StageRun

if TYPE_CHECKING:
    from rucola.settings import AuditExport, Params

STAGE = "audit_export"
TASKS_FILE = "tasks.json"
CONFIG_FILE = "review_config.xml"
UNDECIDED_COLUMNS = ["split", "domain", "id", "reviewers", "decision", "why", "sentence"]
LABEL_MEANING = {1: "acceptable", 0: "unacceptable", -1: "no label"}


# -- export ------------------------------------------------------------------------------
def read_queue(source: str | Path) -> pd.DataFrame:
    """The review queue, checked: known kinds and splits, in the queue's order."""
    queue = read_queue_file(source)
    for column, known in (("kind", KINDS), ("split", SPLITS)):
        bad = queue[column][~queue[column].isin(known)]
        if len(bad):
            raise RucolaError(
                f"audit queue has {column} {_none(bad.iloc[0])!r}",
                source,
                hint=f"one of {', '.join(known)}; rebuild it with `rucola audit`",
            )
    for column in ("id", "label", "sentence"):
        if queue[column].isna().any():
            raise RucolaError(
                f"audit queue has an empty {column}", source, hint="rebuild it with `rucola audit`"
            )
    order = pd.DataFrame(
        {
            "kind": queue["kind"].map(KINDS.index),
            "score": -queue["score"].fillna(-math.inf),
            "split": queue["split"].map(SPLIT_INDEX),
            "domain": queue["domain"].fillna(""),
            "id": queue["id"],
        }
    )
    index = order.sort_values(list(order.columns), kind="stable").index
    return queue.loc[index].reset_index(drop=True)


def _header(row: dict[str, Any], kinds: list[str]) -> str:
    label = int(row["label"])
    place = f"{row['split']} · {_none(row['domain']) or 'test'} · id {row['id']}"
    category = _none(row["error_type"]) or "none"
    return (
        f"{place} · now: label {label} ({LABEL_MEANING.get(label, label)}), "
        f"category {category} · found by: {', '.join(kinds)}"
    )


def _none(value: Any) -> Any:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def review_tasks(queue: pd.DataFrame, top: int) -> list[dict[str, Any]]:
    """One Label Studio task per row among the ``top`` rows of each kind, in queue order
    (a row in several kinds' top rows: one task, its kinds and evidence joined)."""
    chosen = queue.groupby("kind", sort=False).head(int(top))
    rows: dict[tuple[str, str, int], list[dict[str, Any]]] = {}
    for row in chosen.to_dict("records"):
        key = (row["split"], id_scope(row["split"], _none(row["domain"])), int(row["id"]))
        rows.setdefault(key, []).append(row)
    tasks = []
    for found in rows.values():
        first = found[0]
        kinds = [r["kind"] for r in found]
        scores = [s for s in (_none(r["score"]) for r in found) if s is not None]
        data = {
            "split": first["split"],
            "domain": _none(first["domain"]),
            "id": int(first["id"]),
            "sentence": first["sentence"],
            "label": int(first["label"]),
            "error_type": _none(first["error_type"]),
            "kinds": ", ".join(kinds),
            "evidence": " | ".join(f"{r['kind']}: {r['evidence']}" for r in found),
            "score": max(scores) if scores else None,
            "header": _header(first, kinds),
        }
        tasks.append({"data": data})
    return tasks


def export_review(settings: AuditExport, params: Params, source: str) -> dict[str, Any]:
    """``rucola audit export``: the tasks and the configuration into ``settings.out``."""
    queue = read_queue(source)
    out = Path(settings.out)
    with StageRun(STAGE, report=None, outputs=[out]) as run:
        folder = run.folder(out)
        tasks = review_tasks(queue, settings.top)
        write_json(tasks, folder / TASKS_FILE)
        write_text(review_config(params.corpus.categories.all()), folder / CONFIG_FILE)
    per_kind = Counter(k for t in tasks for k in t["data"]["kinds"].split(", "))
    return {
        "read": int(len(queue)),
        "tasks": len(tasks),
        "top": int(settings.top),
        "kinds": {k: per_kind[k] for k in KINDS if per_kind[k]},
        "out": str(out),
    }


def export_line(result: dict[str, Any]) -> str:
    """What ``rucola audit export`` prints."""
    kinds = ", ".join(f"{k} {n}" for k, n in result["kinds"].items()) or "none"
    return (
        f"{result['tasks']} review tasks from {result['read']} queued rows "
        f"(top {result['top']} per kind: {kinds}) -> {result['out']}/{TASKS_FILE}, "
        f"{result['out']}/{CONFIG_FILE}"
    )


# -- import ------------------------------------------------------------------------------
def _write_csv(rows: list[list[str]], header: list[str], path: Path, target: Path) -> None:
    """``rows`` into ``path``, the staged file of ``target``: a write error (a full disk)
    names no file, so the one line names ``target`` (``StageRun`` removes what was staged)."""
    try:
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(header)
            writer.writerows(rows)
    except OSError as exc:
        exc.filename = str(target) if exc.filename is None else exc.filename
        raise


Row = tuple[str | None, str, int, Any]  # domain, sentence, label, category (None: none)


def _queued_rows(source: str | Path) -> dict[tuple[int, str, int], Row]:
    """The audit queue's rows by identity (``ReviewTask.key``), with what the export copies
    of each: what an imported task must match."""
    queue = read_queue(source)
    rows: dict[tuple[int, str, int], Row] = {}
    for row in queue[["split", "domain", "id", "sentence", "label", "error_type"]].itertuples():
        domain, category = _none(row.domain), _none(row.error_type)
        key = (SPLIT_INDEX[row.split], id_scope(row.split, domain), int(row.id))
        rows.setdefault(key, (domain, row.sentence, int(row.label), category or None))
    return rows


def _queue_fault(
    task: ReviewTask, rows: dict[tuple[int, str, int], Row], source: Path
) -> str | None:
    """Why the build would refuse an erratum for ``task`` that the queue shows, or None."""
    row = rows.get(task.key)
    if row is None:
        return f"unknown id: {task.name} is not a row of the audit queue {source}"
    exported = (task.domain, task.sentence, task.label, task.error_type)
    names = ("domain", "sentence", "label", "category")
    for name, now, then in zip(names, row, exported, strict=True):
        if now != then:
            return (
                f"the row changed since the export: its {name} is {now!r} in the audit queue "
                f"{source}, {then!r} in the export (the erratum would be stale)"
            )
    return None


def _undecided_row(outcome: Outcome) -> list[str]:
    task = outcome.task
    return [
        task.split,
        task.domain or "",
        str(task.id),
        str(len(task.answers)),
        tally(task.answers),
        outcome.why,
        task.sentence,
    ]


def _checked(outcome: Outcome, rows: dict[tuple[int, str, int], Row], source: Path) -> Outcome:
    """``outcome``, undecided when the queue shows that the build would refuse its errata."""
    fault = _queue_fault(outcome.task, rows, source) if outcome.errata else None
    return outcome if fault is None else refuse(outcome, fault)


def import_review(
    export_file: Path,
    errata: Path,
    params: Params,
    undecided: Path | None = None,
    queue: Path | None = None,
) -> dict[str, Any]:
    """``rucola audit import``: the errata file (and the undecided list) from an export,
    checked against the audit queue (``queue``, default ``audit.out``)."""
    export_file, errata = Path(export_file), Path(errata)
    if undecided is not None and Path(undecided).resolve() == errata.resolve():
        raise RucolaError("--undecided names the errata file itself", undecided)
    tasks = read_review(export_file, params.corpus.categories.all())
    outcomes = [decide(task, params.corpus.language) for task in tasks]
    if all(o.status == "unreviewed" for o in outcomes):
        raise RucolaError(
            f"no answers: none of the export's {len(tasks)} task(s) has a reviewer's answer",
            export_file,
            hint="export the project after the reviewers have submitted",
        )
    source = Path(queue if queue is not None else params.audit.out)
    rows = _queued_rows(source)
    outcomes = [_checked(outcome, rows, source) for outcome in outcomes]
    lines = [e.row() for o in outcomes for e in o.errata]
    left = [o for o in outcomes if o.status == "undecided"]
    outputs = [errata] + ([Path(undecided)] if undecided is not None else [])
    with StageRun("audit_import", report=None, outputs=outputs) as run:
        _write_csv(lines, ERRATA_COLUMNS, run.path(errata), errata)
        if undecided is not None:
            left_rows = [_undecided_row(o) for o in left]
            _write_csv(left_rows, UNDECIDED_COLUMNS, run.path(undecided), Path(undecided))
    status = Counter(o.status for o in outcomes)
    decided = Counter(o.decision for o in outcomes if o.status in ("erratum", "keep", "unchanged"))
    return {
        "export": str(export_file),
        "out": str(errata),
        "tasks": len(outcomes),
        "reviewed": len(outcomes) - status["unreviewed"],
        "errata": len(lines),
        "decided": {d: decided[d] for d in DECISIONS if decided[d]},
        "unchanged": status["unchanged"],
        "undecided": [{"task": o.task.name, "why": o.why} for o in left],
        "undecided_file": None if undecided is None else str(undecided),
    }


def import_lines(result: dict[str, Any]) -> list[str]:
    """What ``rucola audit import`` prints: the counts, then every undecided task."""
    decided = ", ".join(f"{d} {n}" for d, n in result["decided"].items()) or "none"
    lines = [
        f"{result['tasks']} tasks, {result['reviewed']} reviewed "
        f"({result['tasks'] - result['reviewed']} without an answer): decided {decided}; "
        f"{len(result['undecided'])} undecided (not applied)",
        f"{result['errata']} errata rows -> {result['out']}",
    ]
    if result["unchanged"]:
        lines.append(f"{result['unchanged']} decided without a change (the row already says so)")
    lines += [f"undecided {u['task']}: {u['why']}" for u in result["undecided"]]
    if result["undecided_file"]:
        lines.append(f"undecided tasks -> {result['undecided_file']}")
    if result["errata"]:
        folder = Path(result["out"]).parent
        if folder == Path("."):
            lines.append(
                f"next: move {result['out']} into a folder of errata, `rucola salt` it, name "
                "the folder in extract.errata and `dvc add` it (never git: it may name test rows)"
            )
        else:
            lines.append(
                f"next: name {folder.as_posix()} (salted) in extract.errata and `dvc add` it "
                "(never git: it may name test rows)"
            )
    return lines
