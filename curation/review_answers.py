"""Reading the review back: Label Studio's JSON export as one record per task and reviewer.

The export is checked strictly before any answer counts, because a decision read wrongly
becomes an erratum that changes a published row: a task must carry the data
``rucola audit export`` wrote (split, domain, id, sentence, label, category), every answer
must name a control of the review configuration (``review_config``) with a value it
offers, and anything else is one line naming the file and the task. What is shared with
the crowd rounds' reader is taken from ``rucola.annotation.label_studio``: loading the
JSON list and the strict shape of a task (``"false"`` is no boolean); a user is read as
that reader reads one (an int in current exports, a dict with ``id`` in older ones).

An export nested deeper than a Label Studio export ever is (``MAX_DEPTH`` levels) is refused
before anything walks it: Python's JSON reader, ``json.dumps``, ``repr`` and the shape check
all recurse, and a RecursionError would be a traceback, not a line naming the file.

A cancelled (skipped) annotation is no answer. A reviewer with several annotations on one
task (Label Studio lets a user add another) is counted once, by the last one created
(highest annotation id; position in the export for a hand-made file without ids).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from rucola.annotation.label_studio import _expected, _load, _Shape, _where, completed_by
from rucola.corpus.pin import id_scope
from rucola.corpus.schema import DOMAINS, SPLIT_INDEX
from rucola.curation.review_config import (
    CATEGORY,
    COMMENT,
    DECISION,
    DECISIONS,
    FIX,
    category_choices,
)
from rucola.errors import RucolaError

HINT = "export the review project as JSON from Label Studio; do not edit the export by hand"
# How deep an export may nest: Label Studio's is 8 levels (the list, a task, its
# annotations, one, its result, a region, its value, its choices); far below the depth at
# which Python's recursion limit stops json.dumps, repr or pydantic on the way.
MAX_DEPTH = 50
# White space that separates words: str.split's, less the information separators
# U+001C-U+001F and U+0085, controls that ``corpus.normalize`` calls unprintable (the
# corrected text keeps them, so the decision sees them, as the build would).
_SPACES = re.compile(r"[^\S\x1c-\x1f\x85]+")


@dataclass(frozen=True)
class Answer:
    """One reviewer's answer to one task; texts are whitespace-normalised."""

    reviewer: str
    decision: str
    category: str | None  # a category of ``corpus.categories``, ``none``, or not given
    text: str  # the corrected sentence ("" when none was written)
    comment: str


@dataclass(frozen=True)
class ReviewTask:
    """A task as exported (the row's identity and current values) and its answers."""

    split: str
    domain: str | None
    id: int
    sentence: str
    label: int
    error_type: str | None
    answers: tuple[Answer, ...]

    @property
    def name(self) -> str:
        """``train/in_domain/12``: how messages and the undecided list name the row."""
        return f"{self.split}/{self.domain or '-'}/{self.id}"

    @property
    def key(self) -> tuple[int, str, int]:
        """The row's identity (split, id scope, id) in the order errata are written."""
        return (SPLIT_INDEX[self.split], id_scope(self.split, self.domain), self.id)


class _Data(_Shape):
    split: Literal["train", "validation", "test"]
    domain: str | None = None
    id: int
    sentence: str
    label: int
    error_type: str | None = None


class _Annotation(_Shape):
    result: list[dict[str, Any]] = []
    was_cancelled: bool = False


class _Task(_Shape):
    data: _Data
    annotations: list[_Annotation] = []


def normalise_text(value: str) -> str:
    """Runs of white space as one space, none at the ends: two reviewers who typed the
    same correction with another spacing wrote the same text."""
    return _SPACES.sub(" ", value).strip(" ")


def _load_export(path: Path) -> list[dict[str, Any]]:
    """The export's tasks (``label_studio._load``), refused when nested too deeply to walk:
    JSON deeper than Python's recursion limit (the reader's RecursionError), or deeper than
    ``MAX_DEPTH`` (measured without recursion)."""
    try:
        tasks = _load(path)
    except RecursionError:
        raise RucolaError(
            "not a Label Studio export: JSON nested too deeply to read", path, hint=HINT
        ) from None
    for index, ls_task in enumerate(tasks, start=1):
        stack: list[tuple[Any, int]] = [(ls_task, 2)]  # the list is level 1, a task level 2
        while stack:
            value, depth = stack.pop()
            if depth > MAX_DEPTH:
                raise _error(path, f"#{index}", f"nested deeper than {MAX_DEPTH} levels")
            children = value.values() if isinstance(value, dict) else value
            stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return tasks


def _task_name(ls_task: dict[str, Any], index: int) -> str:
    """Our identity when the task carries it, else its position (and Label Studio id)."""
    data = ls_task.get("data")
    if isinstance(data, dict) and all(k in data for k in ("split", "id")):
        return f"{data.get('split')}/{data.get('domain') or '-'}/{data.get('id')}"
    ls_id = ls_task.get("id")
    return f"#{index}" + (f" (Label Studio id {ls_id})" if ls_id is not None else "")


def _error(path: Path, task: str, message: str, hint: str | None = HINT) -> RucolaError:
    return RucolaError(f"task {task}: {message}", path, hint=hint)


def _check(ls_task: dict[str, Any], index: int, path: Path) -> None:
    """Fail on a task whose shape is not Label Studio's, or that lacks our data."""
    try:
        _Task.model_validate(ls_task)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = _where(error["loc"])
        if error["type"] == "missing":
            message = f"{where} is missing: not a task `rucola audit export` wrote"
        else:
            shown = json.dumps(error["input"], ensure_ascii=False)[:60]
            message = f"{where} {_expected(error['msg'])}, not {shown}"
        raise _error(path, _task_name(ls_task, index), message) from None
    data = ls_task["data"]
    domain = data.get("domain")
    if domain is not None and domain not in DOMAINS:
        raise _error(path, _task_name(ls_task, index), f"unknown domain {domain!r}")
    if domain is None and data["split"] != "test":
        raise _error(
            path, _task_name(ls_task, index), "data.domain is missing (required outside test)"
        )


def _one_choice(region: dict[str, Any], allowed: Sequence[str], path: Path, task: str) -> str:
    """The single choice of a ``Choices`` region, spelt as ``allowed`` spells it."""
    value = region.get("value")
    picked = value.get("choices") if isinstance(value, dict) else None
    name = region.get("from_name")
    if not isinstance(picked, list) or len(picked) != 1 or not isinstance(picked[0], str):
        raise _error(path, task, f"{name!r} must hold exactly one choice, not {picked!r}")
    by_key = {a.casefold(): a for a in allowed}
    choice = by_key.get(picked[0].strip().casefold())
    if choice is None:
        raise _error(
            path,
            task,
            f"unknown {name} {picked[0]!r}",
            hint=f"one of {', '.join(allowed)} (review_config.xml)",
        )
    return choice


def _text(region: dict[str, Any], path: Path, task: str) -> str:
    """A ``TextArea`` region's text: its submissions joined, whitespace-normalised."""
    value = region.get("value")
    texts = value.get("text") if isinstance(value, dict) else None
    if isinstance(texts, str):
        texts = [texts]
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise _error(path, task, f"{region.get('from_name')!r} must hold value.text, a list")
    return normalise_text(" ".join(texts))


def _reviewer(annotation: dict[str, Any], path: Path, task: str) -> str:
    """The reviewer, read as the crowd rounds' reader reads a worker."""
    text = completed_by(annotation)
    if not text:
        raise _error(path, task, f"annotation {annotation.get('id')} has no completed_by")
    return text


def _answer(
    annotation: dict[str, Any], error_types: Sequence[str], path: Path, task: str
) -> Answer:
    reviewer = _reviewer(annotation, path, task)
    found: dict[str, Any] = {}
    number = annotation.get("id")
    for region in annotation.get("result", []):
        name = region.get("from_name")
        if name in found:
            raise _error(path, task, f"annotation {number} answers {name!r} twice")
        if name == DECISION:
            found[name] = _one_choice(region, DECISIONS, path, task)
        elif name == CATEGORY:
            found[name] = _one_choice(region, category_choices(error_types), path, task)
        elif name in (FIX, COMMENT):
            found[name] = _text(region, path, task)
        else:
            raise _error(
                path,
                task,
                f"unknown from_name {name!r} in annotation {number}",
                hint="the review answers are decision, category, text and comment "
                "(review_config.xml); was the project set up with another config?",
            )
    if DECISION not in found:
        raise _error(path, task, f"annotation {number} (reviewer {reviewer}) has no decision")
    return Answer(
        reviewer=reviewer,
        decision=found[DECISION],
        category=found.get(CATEGORY),
        text=found.get(FIX, ""),
        comment=found.get(COMMENT, ""),
    )


def _latest_per_reviewer(
    annotations: list[dict[str, Any]], error_types: Sequence[str], path: Path, task: str
) -> tuple[Answer, ...]:
    """The answers of a task, one per reviewer (the last created), in reviewer order."""
    latest: dict[str, tuple[tuple[int, int], Answer]] = {}
    for position, annotation in enumerate(annotations):
        if annotation.get("was_cancelled"):
            continue
        answer = _answer(annotation, error_types, path, task)
        number = annotation.get("id")
        order = (number if isinstance(number, int) else -1, position)
        if answer.reviewer not in latest or latest[answer.reviewer][0] < order:
            latest[answer.reviewer] = (order, answer)
    return tuple(latest[r][1] for r in sorted(latest, key=reviewer_order))


def reviewer_order(reviewer: str) -> tuple[int, int, str]:
    """Numeric Label Studio user ids in numeric order, other names after them."""
    return (0, int(reviewer), "") if reviewer.isdigit() else (1, 0, reviewer)


def read_review(path: str | Path, error_types: Sequence[str]) -> list[ReviewTask]:
    """Every task of a Label Studio JSON export of the review, checked, in row order."""
    path = Path(path)
    tasks: dict[tuple[int, str, int], tuple[int, ReviewTask]] = {}
    for index, ls_task in enumerate(_load_export(path), start=1):
        _check(ls_task, index, path)
        data = ls_task["data"]
        task = ReviewTask(
            split=data["split"],
            domain=data.get("domain"),
            id=data["id"],
            sentence=data["sentence"],
            label=data["label"],
            error_type=data.get("error_type") or None,
            answers=(),
        )
        if task.key in tasks:
            raise _error(
                path,
                task.name,
                f"appears twice in the export (tasks #{tasks[task.key][0]} and #{index})",
                hint="the tasks were imported into the project twice: review each row once",
            )
        answers = _latest_per_reviewer(ls_task.get("annotations", []), error_types, path, task.name)
        tasks[task.key] = (index, replace(task, answers=answers))
    return [tasks[key][1] for key in sorted(tasks)]
