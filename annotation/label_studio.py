"""The annotation round trip in Label Studio's terms: config and tasks out, export back in.

Toloka is not the only place people annotate: a self-hosted Label Studio is free and keeps
the answers in-house. So a pool goes out as a labelling config and a task list Label Studio
imports (control tasks carrying their golden answer as a ground-truth annotation, so the
project knows them at once), and Label Studio's JSON export comes back as the same votes
table the Toloka readers give (``votes.VOTE_COLUMNS``, same vocabulary), which cleaning and
aggregation then treat alike. Where the formats differ:

- a ground-truth annotation makes its task a control: it is the golden answer, not a vote
  (without one, a task our export flagged as a control keeps ``data.golden``);
- a skipped (cancelled) annotation is a row with status ``CANCELLED``, which cleaning
  drops as ``status_cancelled``;
- Label Studio has no pages, only each annotation's ``lead_time``: a vote's page time is
  the sum over its annotator's answered tasks of the same ``data.page`` (to the
  millisecond), so the speed filter reads it as it reads a Toloka assignment;
- a user is an int in current exports, a dict with ``id`` in older ones: both are the
  same worker (the id).

``write_export`` turns a votes table back into an export, one Label Studio task per task
on a page (a page being one worker's sitting), so a simulation can exercise this reader.
"""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import BaseModel, ConfigDict, ValidationError

from rucola.annotation import toloka as tl
from rucola.annotation.votes import (
    ACCEPTABLE_LABEL,
    NOT_SURE,
    STAGE1_FIELD,
    TOLOKA_STAGE1,
    VOTE_COLUMNS,
    Stage2Form,
    normalise_token,
)
from rucola.errors import RucolaError
from rucola.io import atomic_path

TEXT = "sentence"  # the <Text> tag every choice points to
CATEGORY = "category"  # stage 2's <Choices>
STAGE1_CHOICES = ["yes", "no", NOT_SURE]  # "is there a violation in the sentence?"
CANCELLED = "CANCELLED"
ANSWERED = "ACCEPTED"
QUESTIONS = {
    1: "Is there a violation in the sentence?",
    2: "What is wrong with the sentence? Check every kind of violation you see.",
}
OWNER = 1  # the user who set the ground truth in a written export; workers follow


def choices_name(stage: int, field: str = STAGE1_FIELD) -> str:
    """The ``from_name`` of a stage's answers: ``field`` at stage 1, ``category`` at 2."""
    return field if stage == 1 else CATEGORY


def _vocabulary(stage: int, form: Stage2Form | None) -> list[str]:
    """A stage's choices: stage 1's, or every checkbox of the stage-2 ``form`` (which
    stage 2 needs: its categories are params, ``corpus.categories``)."""
    if stage == 1:
        return STAGE1_CHOICES
    if form is None:
        raise ValueError("stage 2 needs its form (rucola.annotation.votes.Stage2Form)")
    return form.fields


def label_config(stage: int, field: str = STAGE1_FIELD, form: Stage2Form | None = None) -> str:
    """The labelling configuration of a stage: the sentence and one set of choices."""
    view = ET.Element("View")
    ET.SubElement(view, "Header", {"value": QUESTIONS[stage]})
    ET.SubElement(view, "Text", {"name": TEXT, "value": f"${TEXT}"})
    attributes = {
        "name": choices_name(stage, field),
        "toName": TEXT,
        "choice": "single" if stage == 1 else "multiple",
        "required": "true",
    }
    choices = ET.SubElement(view, "Choices", attributes)
    for value in _vocabulary(stage, form):
        ET.SubElement(choices, "Choice", {"value": value})
    ET.indent(view)
    return ET.tostring(view, encoding="unicode") + "\n"


def _region(stage: int, field: str, choices: list[str]) -> dict[str, Any]:
    return {
        "from_name": choices_name(stage, field),
        "to_name": TEXT,
        "type": "choices",
        "value": {"choices": choices},
    }


def _ground_truth(stage: int, field: str, choices: list[str]) -> dict[str, Any]:
    return {
        "result": [_region(stage, field, choices)],
        "ground_truth": True,
        "was_cancelled": False,
    }


def tasks(
    pool: pd.DataFrame, page_size: int, stage: int, field: str = STAGE1_FIELD
) -> list[dict[str, Any]]:
    """The pool (Toloka task layout) as Label Studio tasks: ``data`` per task, controls
    flagged and carrying their golden answer as a ground-truth annotation."""
    goldens = [c for c in pool.columns if c.startswith("GOLDEN:")]
    result = []
    for i, row in enumerate(pool.to_dict("records")):
        control = any(row[c] for c in goldens)
        data: dict[str, Any] = {
            "id": row[tl.INPUT_ID],
            "sentence": row[tl.INPUT_SENTENCE],
            "page": i // int(page_size) + 1,
            "control": control,
        }
        task: dict[str, Any] = {"id": i + 1, "data": data}
        if control:
            golden = {c.split(":", 1)[1]: row[c] for c in goldens}
            data["golden"] = golden
            data["hint"] = row[tl.HINT_TEXT]
            task["annotations"] = [_ground_truth(stage, field, _golden_choices(golden, stage))]
        result.append(task)
    return result


def _golden_choices(golden: Any, stage: int, field: str = STAGE1_FIELD) -> list[str]:
    """``data.golden`` as choices: ``{"violation": "no"}`` at stage 1, one ``true``/``false``
    per category at stage 2 (a plain choice or list of choices is taken as it is)."""
    if isinstance(golden, str):
        return [golden]
    if isinstance(golden, list):
        return [str(c) for c in golden]
    if not isinstance(golden, dict):
        return []
    if stage == 1:
        value = golden.get(field, golden.get(STAGE1_FIELD))
        return [] if value in (None, "") else [str(value)]
    return [k for k, v in golden.items() if normalise_token(str(v)) in ("true", "1")]


def _error(path: Path, task: str, message: str, hint: str | None = None) -> RucolaError:
    return RucolaError(f"task {task!r}: {message}", path, hint=hint)


def _label(
    choices: list[Any], stage: int, path: Path, task: str, where: str, form: Stage2Form | None
) -> str:
    """Choices in the votes vocabulary: ``"1"``/``"0"``/``not_sure``, or categories."""
    vocabulary = _vocabulary(stage, form)
    keys = [normalise_token(str(c)) for c in choices]
    for key, choice in zip(keys, choices, strict=True):
        if key not in vocabulary:
            raise _error(
                path,
                task,
                f"unknown choice {choice!r} in {where}",
                hint=f"expected one of {', '.join(vocabulary)}",
            )
    if stage == 2:
        return NOT_SURE if NOT_SURE in keys else "|".join(f for f in vocabulary if f in keys)
    if len(set(keys)) != 1:
        found = "no choice" if not keys else f"{len(keys)} choices"
        raise _error(path, task, f"{found} in {where}", hint="stage 1 takes exactly one")
    return TOLOKA_STAGE1[keys[0]]


def _choices(
    annotation: dict[str, Any], stage: int, field: str, path: Path, task: str
) -> list[Any]:
    expected = choices_name(stage, field)
    chosen: list[Any] = []
    for region in annotation.get("result", []):
        name = region.get("from_name") if isinstance(region, dict) else None
        if name != expected:
            raise _error(
                path,
                task,
                f"unknown from_name {name!r} in annotation {annotation.get('id')}",
                hint=f"stage {stage} answers are {expected!r} (stage{stage}_label_config.xml)",
            )
        value = region.get("value") or {}
        picked = value.get("choices") if isinstance(value, dict) else None
        if not isinstance(picked, list):
            raise _error(path, task, f"no value.choices in {name!r}")
        chosen.extend(picked)
    return chosen


def completed_by(annotation: dict[str, Any]) -> str:
    """Who made an annotation (``completed_by``: an int in current exports, a dict with
    ``id`` in older ones, a str), as text; empty when the export does not say."""
    value = annotation.get("completed_by")
    if isinstance(value, dict):
        value = value.get("id", value.get("email"))
    return "" if value is None or isinstance(value, bool) else str(value).strip()


def _worker(annotation: dict[str, Any], path: Path, task: str) -> str:
    text = completed_by(annotation)
    if not text:
        raise _error(path, task, f"annotation {annotation.get('id')} has no completed_by")
    return text


def _lead_time(annotation: dict[str, Any], path: Path, task: str) -> float:
    value = annotation.get("lead_time")
    if value is None:
        return math.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        raise _error(path, task, f"lead_time {value!r} is not a number") from None


class _Shape(BaseModel):
    """Strict: ``"false"`` is no boolean and ``"oops"`` no list (a lax reading let a string
    ``was_cancelled`` cancel a vote and a non-list ``annotations`` drop every vote unseen).
    Unknown keys are allowed: Label Studio adds fields in every version."""

    model_config = ConfigDict(strict=True, extra="allow")


class _Annotation(_Shape):
    result: list[dict[str, Any]] = []
    was_cancelled: bool = False
    ground_truth: bool = False


class _Data(_Shape):
    control: bool = False


class _Task(_Shape):
    """The shape of one exported task, in one place; what the values mean (our task id,
    the choices, the worker, the lead time) is read by the functions below."""

    data: _Data | None = None
    annotations: list[_Annotation] = []


def _where(loc: tuple[int | str, ...]) -> str:
    """A pydantic location as JSON-path text: ``annotations[0].was_cancelled``."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text or "the task"


def _expected(message: str) -> str:
    """pydantic's ``Input should be a valid dictionary or instance of _Data`` in JSON's terms:
    ``must be a JSON object``."""
    message = re.sub(r" or instance of \w+", "", message)
    message = re.sub(r"^Input should be (?:a valid )?", "must be a ", message)
    return message.replace("dictionary", "JSON object")


def _check_shape(ls_task: dict[str, Any], index: int, path: Path) -> None:
    """Fail on a task whose JSON shape is not Label Studio's, naming the task: our id
    (``data.id``) when it has one, else its position in the export (from 1)."""
    try:
        _Task.model_validate(ls_task)
    except ValidationError as exc:
        error = exc.errors()[0]
        data = ls_task.get("data")
        key = data.get("id") if isinstance(data, dict) else None
        task = repr(str(key).strip()) if key is not None else f"#{index} (no data.id)"
        raise RucolaError(
            f"task {task}: {_where(error['loc'])} {_expected(error['msg'])}, "
            f"not {json.dumps(error['input'], ensure_ascii=False)[:60]}",
            path,
            hint="export the project as JSON from Label Studio; do not edit the export by hand",
        ) from None


def _load(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError as exc:
        raise RucolaError("file not found", path) from exc
    except UnicodeDecodeError as exc:
        raise RucolaError(f"not UTF-8 text ({exc.reason})", path) from exc
    except json.JSONDecodeError as exc:
        raise RucolaError(f"not valid JSON: {exc.msg}", path, exc.lineno) from exc
    except RecursionError:
        raise RucolaError(
            "not a Label Studio export: JSON nested too deeply to read", path
        ) from None
    if not isinstance(data, list):
        raise RucolaError(
            "not a Label Studio export: expected a JSON list of tasks",
            path,
            hint="export the project as JSON (not JSON-MIN or CSV)",
        )
    for index, task in enumerate(data, start=1):
        if not isinstance(task, dict):
            raise RucolaError(
                f"task #{index} must be a JSON object, not a {type(task).__name__}",
                path,
                hint="export the project as JSON (not JSON-MIN or CSV)",
            )
    return data


def _golden(
    data: dict[str, Any],
    annotations: list[dict[str, Any]],
    stage: int,
    field: str,
    path: Path,
    task: str,
    form: Stage2Form | None,
) -> str | None:
    """A task's golden answer: its (first) ground-truth annotation, else the ``data.golden``
    of a task our export flagged as a control; None for a task that is not a control."""
    truth = [a for a in annotations if a.get("ground_truth")]
    if truth:
        chosen = _choices(truth[0], stage, field, path, task)
        where = f"ground-truth annotation {truth[0].get('id')}"
        return _label(chosen, stage, path, task, where, form)
    if data.get("control") and data.get("golden") not in (None, "", {}):
        chosen = _golden_choices(data["golden"], stage, field)
        return _label(chosen, stage, path, task, "data.golden", form)
    return None


def read_export(
    path: str | Path,
    stage: int,
    field: str = STAGE1_FIELD,
    form: Stage2Form | None = None,
) -> pd.DataFrame:
    """The votes of a Label Studio JSON export (``votes.VOTE_COLUMNS``), one per annotation
    that is not a ground truth (stage 2: in the checkboxes of ``form``). Whether
    ``data.id`` names a task we exported is decided with the other formats'
    (``annotation.pools``)."""
    _vocabulary(stage, form)
    path = Path(path)
    source = str(path)
    rows: list[dict[str, Any]] = []
    page_time: dict[tuple[str, str], float] = {}
    for index, ls_task in enumerate(_load(path), start=1):
        _check_shape(ls_task, index, path)
        data = ls_task.get("data")
        key = data.get("id") if isinstance(data, dict) else None
        if key is None or not str(key).strip():
            raise RucolaError(
                f"Label Studio task {ls_task.get('id')} has no data.id",
                path,
                hint="import the tasks rucola wrote (stage<N>_tasks.json)",
            )
        task = str(key).strip()
        annotations = ls_task.get("annotations", [])
        golden = _golden(data, annotations, stage, field, path, task, form)
        page = data.get("page")
        for i, annotation in enumerate(annotations, start=1):
            if annotation.get("ground_truth"):
                continue
            number = annotation.get("id")
            if number is None:  # a hand-made file: the task's id and the position
                number = f"{ls_task.get('id')}.{i}"
            worker = _worker(annotation, path, task)
            cancelled = bool(annotation.get("was_cancelled"))
            label = None
            if not cancelled:
                chosen = _choices(annotation, stage, field, path, task)
                label = _label(chosen, stage, path, task, f"annotation {number}", form)
                if page is not None:
                    group = (worker, str(page))
                    page_time[group] = page_time.get(group, 0.0) + _lead_time(
                        annotation, path, task
                    )
            rows.append(
                {
                    "task": task,
                    "sentence": data.get("sentence"),
                    "worker": worker,
                    "label": label,
                    "golden": golden,
                    "assignment": f"{source}#{number}",
                    "status": CANCELLED if cancelled else ANSWERED,
                    "page": None if page is None else (worker, str(page)),
                    "origin": f"{source}: task {task} annotation {number}",
                }
            )
    if not rows:
        raise RucolaError("no answers: the export holds no annotations", path)
    return _frame(rows, page_time, source)


def _frame(
    rows: list[dict[str, Any]], page_time: dict[tuple[str, str], float], source: str
) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    # Lead times add up to the millisecond, as a Toloka page's timestamps do.
    frame["seconds"] = [
        math.nan if p is None else round(page_time.get(p, math.nan), 3) for p in frame["page"]
    ]
    frame["seconds"] = frame["seconds"].astype("float64")
    for column in ("started", "submitted"):
        frame[column] = pd.Series(pd.NaT, index=frame.index, dtype="datetime64[us, UTC]")
    frame["source"] = source
    frame["line"] = pd.Series(0, index=frame.index, dtype="int64")
    return frame[VOTE_COLUMNS]


def _answer(label: Any, stage: int) -> list[str]:
    """A vote's label as Label Studio choices (the inverse of ``_label``)."""
    if stage == 1:
        return ["no" if label == ACCEPTABLE_LABEL else "yes" if label == "0" else NOT_SURE]
    return [c for c in str(label).split("|") if c]


def _golden_data(label: str, stage: int, field: str, form: Stage2Form | None) -> dict[str, str]:
    """``data.golden`` as our export writes it."""
    if stage == 1:
        return {field: _answer(label, 1)[0]}
    checked = set(_answer(label, 2))
    required = [f for f in _vocabulary(2, form) if f != NOT_SURE]
    return {f: str(f in checked).lower() for f in required}


def _lead_times(seconds: float, n: int) -> list[float | None]:
    """A page's seconds split over its ``n`` answers in whole milliseconds."""
    if seconds is None or math.isnan(seconds):
        return [None] * n
    total = round(float(seconds) * 1000)
    return [(total // n + (i < total % n)) / 1000 for i in range(n)]


def write_export(
    votes: pd.DataFrame,
    path: str | Path,
    stage: int,
    field: str = STAGE1_FIELD,
    users: Mapping[str, int] | None = None,
    form: Stage2Form | None = None,
) -> None:
    """Write ``votes`` as a Label Studio JSON export that ``read_export`` reads back to the
    same answers, workers and page times: one task per vote row (a page is an assignment,
    numbered in order of appearance), controls with their ground truth, unanswered
    assignments as cancelled annotations. ``users``: worker -> Label Studio user id
    (default: the workers in sorted order, from 2; 1 set the ground truth). ``form``: the
    stage-2 checkboxes."""
    _vocabulary(stage, form)
    if users is None:
        users = {w: OWNER + 1 + i for i, w in enumerate(sorted(set(votes["worker"])))}
    pages = {a: i + 1 for i, a in enumerate(dict.fromkeys(votes["assignment"]))}
    lead_times = {
        assignment: iter(_lead_times(group["seconds"].iloc[0], len(group)))
        for assignment, group in votes.groupby("assignment", sort=False)
    }
    export = []
    ids = iter(range(1, 2 * len(votes) + 1))  # annotation ids, ground truths included
    for number, row in enumerate(votes.to_dict("records"), start=1):
        data: dict[str, Any] = {
            "id": row["task"],
            "sentence": row["sentence"] if isinstance(row["sentence"], str) else None,
            "page": pages[row["assignment"]],
            "control": row["golden"] is not None and not pd.isna(row["golden"]),
        }
        annotations = []
        if data["control"]:
            data["golden"] = _golden_data(row["golden"], stage, field, form)
            truth = _ground_truth(stage, field, _answer(row["golden"], stage))
            annotations.append({"id": next(ids), "completed_by": OWNER, **truth})
        answered = isinstance(row["label"], str)
        annotations.append(
            {
                "id": next(ids),
                "completed_by": int(users[row["worker"]]),
                "result": [_region(stage, field, _answer(row["label"], stage))] if answered else [],
                "was_cancelled": not answered,
                "ground_truth": False,
                "lead_time": next(lead_times[row["assignment"]]),
            }
        )
        export.append({"id": number, "data": data, "annotations": annotations})
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(export, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
