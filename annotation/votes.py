"""Every answer source normalised to one long table of votes.

Whatever the source (a Toloka export here, the generic ``task,worker,label`` table in
``long_table``, a Label Studio export in ``label_studio``), a vote
becomes one row: ``task``, ``sentence``, ``worker``, ``label``, ``golden``, ``assignment``,
``status``, ``started``, ``submitted``, ``seconds``, ``source``, ``line``, ``origin``.
Labels are strings in one vocabulary per stage, so that cleaning and control accuracy can
compare ``label`` with ``golden`` without knowing the stage:

- stage 1: ``"1"`` acceptable, ``"0"`` unacceptable, ``"not_sure"``;
- stage 2: the checked categories joined by ``|`` in the order of the form
  (:class:`Stage2Form`: ``"syntax"``, ``"morphology|semantics"``), ``"no_violation"``,
  ``"not_sure"``, or ``""`` (nothing checked).

Malformed input (missing columns, an unknown answer, a duplicated assignment id) fails here
with the file and line, before anything is counted. A worker answering one task twice is
not malformed: ``repeats`` decides which answer counts, in cleaning.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from rucola.annotation import toloka as tl
from rucola.errors import RucolaError
from rucola.settings import OUT_OF_DOMAIN

if TYPE_CHECKING:
    from rucola.settings import Categories

NOT_SURE = "not_sure"
ACCEPTABLE_LABEL = "1"
UNACCEPTABLE_LABEL = "0"
STAGE1_FIELD = "violation"
# Stage 1 in the Toloka layout: "is there a violation?"
TOLOKA_STAGE1 = {"yes": UNACCEPTABLE_LABEL, "no": ACCEPTABLE_LABEL, NOT_SURE: NOT_SURE}
# The generic long CSV speaks of acceptability directly.
LONG_STAGE1 = {
    "1": ACCEPTABLE_LABEL,
    "acceptable": ACCEPTABLE_LABEL,
    "0": UNACCEPTABLE_LABEL,
    "unacceptable": UNACCEPTABLE_LABEL,
    NOT_SURE: NOT_SURE,
}

OTHER = "other"  # a violation no category names: the sentence is set aside
NO_VIOLATION = "no_violation"
BOOLEANS = {"true": True, "false": False, "1": True, "0": False, "": False}

VOTE_COLUMNS = [
    "task",
    "sentence",
    "worker",
    "label",
    "golden",
    "assignment",
    "status",
    "started",
    "submitted",
    "seconds",
    "source",
    "line",
    "origin",
]


@dataclass(frozen=True)
class Stage2Form:
    """The answers of stage 2 ("what is wrong with the sentence?"): one checkbox per
    category of the rows a crowd labels, the out-of-domain candidates
    (``corpus.categories.out_of_domain``, in lower case and in its order), then ``other``,
    ``no_violation`` and ``not_sure`` (which a form may leave out)."""

    error_types: tuple[str, ...]  # the categories as the corpus writes them (``Syntax``)

    @classmethod
    def of(cls, categories: Categories) -> Stage2Form:
        return cls(tuple(categories.of(OUT_OF_DOMAIN)))

    @property
    def categories(self) -> list[str]:
        """The checkboxes that name a violation: the categories, then ``other``."""
        return [*(t.lower() for t in self.error_types), OTHER]

    @property
    def required(self) -> list[str]:
        """The checkboxes every form has."""
        return [*self.categories, NO_VIOLATION]

    @property
    def fields(self) -> list[str]:
        """Every checkbox, in the order a vote's label joins them."""
        return [*self.required, NOT_SURE]

    def error_type(self, name: str) -> str | None:
        """The category a checkbox or a control names (any case), as the corpus writes
        it; None for a name that is no category."""
        return {t.lower(): t for t in self.error_types}.get(name.strip().lower())


def normalise_token(value: str) -> str:
    """``'Not sure'``, ``'not-sure'`` and ``' NOT_SURE '`` are one answer."""
    return re.sub(r"[\s\-]+", "_", value.strip().lower())


def has_suffix(path: str | Path, *suffixes: str) -> bool:
    """Whether ``path`` ends in one of ``suffixes``, in any case (``RESULTS.TSV``)."""
    return Path(path).suffix.lower() in suffixes


def expand_paths(paths: Sequence[str | Path], suffixes: Sequence[str]) -> list[Path]:
    """Files as given, folders as their files with ``suffixes`` in any case (sorted,
    recursive). A folder without one is an error, not a round without answers."""
    found: list[Path] = []
    for entry in paths:
        path = Path(entry)
        if path.is_dir():
            files = sorted(p for p in path.rglob("*") if p.is_file() and has_suffix(p, *suffixes))
            if not files:
                raise RucolaError(
                    f"no answer files ({', '.join('*' + s for s in suffixes)}) in this folder",
                    path,
                    hint="put the exports there, or remove the folder from params",
                )
            found.extend(files)
        elif path.is_file():
            found.append(path)
        else:
            raise RucolaError("no such file or folder", path)
    return found


def require_rows(frame: pd.DataFrame, path: str | Path) -> pd.DataFrame:
    """An export that holds a header but no answer is an error, not an empty round."""
    if frame.empty:
        raise RucolaError("no answers: the file has a header row but no rows", path)
    return frame


def map_answer(
    value: str, vocabulary: dict[str, str], column: str, path: str | Path, line: int
) -> str:
    key = normalise_token(value)
    if key not in vocabulary:
        raise RucolaError(
            f"unknown answer {value!r} in {column}",
            path,
            line,
            hint=f"expected one of {', '.join(sorted(set(vocabulary)))}",
        )
    return vocabulary[key]


def _statuses(frame: pd.DataFrame, column: str | None, path: str | Path) -> list[str]:
    if column is None:
        return ["ACCEPTED"] * len(frame)
    result = []
    for value, line in zip(frame[column], frame[tl.LINE], strict=True):
        status = value.strip().upper() or "ACCEPTED"
        if status not in tl.STATUSES:
            raise RucolaError(
                f"unknown assignment status {value!r}",
                path,
                int(line),
                hint=f"expected one of {', '.join(tl.STATUSES)}",
            )
        result.append(status)
    return result


def _timestamps(frame: pd.DataFrame, column: str | None, path: str | Path) -> pd.Series:
    if column is None:
        return pd.Series(pd.NaT, index=frame.index, dtype="datetime64[ns, UTC]")
    text = frame[column].str.strip()
    parsed = pd.to_datetime(text, format="ISO8601", errors="coerce", utc=True)
    bad = parsed.isna() & (text != "")
    if bad.any():
        first = bad.to_numpy().argmax()
        raise RucolaError(
            f"not an ISO 8601 timestamp in {column}: {text.iloc[first]!r}",
            path,
            int(frame[tl.LINE].iloc[first]),
        )
    return parsed


def assemble(
    frame: pd.DataFrame,
    path: str | Path,
    *,
    task: str,
    worker: str,
    labels: list[str | None],
    goldens: list[str | None],
    sentence: str | None,
    assignment: str | None,
    status: str | None,
    started: str | None,
    submitted: str | None,
) -> pd.DataFrame:
    lines = frame[tl.LINE].astype("int64")
    start = _timestamps(frame, started, path)
    end = _timestamps(frame, submitted, path)
    source = str(path)
    votes = pd.DataFrame(
        {
            "task": frame[task].str.strip().to_numpy(),
            "sentence": frame[sentence].to_numpy() if sentence else None,
            "worker": frame[worker].str.strip().to_numpy(),
            "label": labels,
            "golden": goldens,
            "assignment": (
                frame[assignment].str.strip().to_numpy()
                if assignment
                else [f"{source}:{n}" for n in lines]
            ),
            "status": _statuses(frame, status, path),
            "started": start.to_numpy(),
            "submitted": end.to_numpy(),
            "seconds": (end - start).dt.total_seconds().to_numpy(),
            "source": source,
            "line": lines.to_numpy(),
            "origin": [f"{source}:{n}" for n in lines],
        }
    )
    for column, name in (("task", task), ("worker", worker)):
        empty = votes[column] == ""
        if empty.any():
            raise RucolaError(f"empty {name}", path, int(votes.loc[empty, "line"].iloc[0]))
    answered = votes["status"].isin(tl.ANSWERED_STATUSES)
    votes.loc[~answered, "label"] = None
    return votes[VOTE_COLUMNS]


def _require_input_id(frame: pd.DataFrame, path: str | Path) -> str:
    """``INPUT:id``, the sentence id our pool wrote, is the one key of a Toloka vote.

    Toloka's own ``ASSIGNMENT:task_id`` is no substitute: it is new in every pool, so a
    stage-2 vote keyed by it matches no sentence of stage 1 (137 votes of a real export were
    dropped that way, silently)."""
    if tl.INPUT_ID not in frame.columns:
        present = ", ".join(c for c in frame.columns if c.startswith("INPUT:")) or "none"
        raise RucolaError(
            f"missing column {tl.INPUT_ID} (the sentence id every vote is keyed by)",
            path,
            1,
            hint=f"download the results with the pool's input fields (INPUT: columns here: "
            f"{present}); the pools rucola exports carry {tl.INPUT_ID}",
        )
    return tl.INPUT_ID


def stage1_from_toloka(
    frame: pd.DataFrame, path: str | Path, field: str = STAGE1_FIELD
) -> pd.DataFrame:
    """Stage-1 votes from a Toloka export; ``field`` names the ``OUTPUT:`` column."""
    task = _require_input_id(frame, path)
    out_col, gold_col = tl.output(field), tl.golden(field)
    tl.require_columns(
        frame,
        [task, out_col, tl.ASSIGNMENT_ID, tl.WORKER_ID, tl.STATUS, tl.STARTED],
        path,
    )
    answered = frame[tl.STATUS].str.strip().str.upper().isin(tl.ANSWERED_STATUSES)
    labels: list[str | None] = []
    goldens: list[str | None] = []
    has_gold = gold_col in frame.columns
    for i, (value, line) in enumerate(zip(frame[out_col], frame[tl.LINE], strict=True)):
        line = int(line)
        labels.append(
            map_answer(value, TOLOKA_STAGE1, out_col, path, line) if answered.iat[i] else None
        )
        gold = frame[gold_col].iat[i].strip() if has_gold else ""
        goldens.append(map_answer(gold, TOLOKA_STAGE1, gold_col, path, line) if gold else None)
    return _assemble_toloka(frame, path, task, labels, goldens)


def _assemble_toloka(
    frame: pd.DataFrame,
    path: str | Path,
    task: str,
    labels: list[str | None],
    goldens: list[str | None],
) -> pd.DataFrame:
    """The long table from a Toloka export's assignment columns (both stages)."""
    return assemble(
        frame,
        path,
        task=task,
        worker=tl.WORKER_ID,
        labels=labels,
        goldens=goldens,
        sentence=tl.INPUT_SENTENCE if tl.INPUT_SENTENCE in frame.columns else None,
        assignment=tl.ASSIGNMENT_ID,
        status=tl.STATUS,
        started=tl.STARTED,
        submitted=tl.SUBMITTED if tl.SUBMITTED in frame.columns else None,
    )


def _stage2_label(
    row: dict[str, str], prefix: str, fields: list[str], path: str | Path, line: int
) -> str:
    checked = []
    for field in fields:
        value = normalise_token(row[f"{prefix}{field}"])
        if value not in BOOLEANS:
            raise RucolaError(
                f"unknown answer {row[f'{prefix}{field}']!r} in {prefix}{field}",
                path,
                line,
                hint="expected true or false",
            )
        if BOOLEANS[value]:
            checked.append(field)
    if NOT_SURE in checked:
        return NOT_SURE
    return "|".join(checked)


def stage2_from_toloka(frame: pd.DataFrame, path: str | Path, form: Stage2Form) -> pd.DataFrame:
    """Stage-2 votes: one ``true``/``false`` ``OUTPUT:`` column per checkbox of ``form``."""
    task = _require_input_id(frame, path)
    tl.require_columns(
        frame,
        [
            task,
            *(tl.output(f) for f in form.required),
            tl.ASSIGNMENT_ID,
            tl.WORKER_ID,
            tl.STATUS,
            tl.STARTED,
        ],
        path,
    )
    fields = [f for f in form.fields if tl.output(f) in frame.columns]
    gold_fields = [f for f in form.fields if tl.golden(f) in frame.columns]
    answered = frame[tl.STATUS].str.strip().str.upper().isin(tl.ANSWERED_STATUSES)
    labels: list[str | None] = []
    goldens: list[str | None] = []
    for i, row in enumerate(frame.to_dict("records")):
        line = int(row[tl.LINE])
        labels.append(
            _stage2_label(row, "OUTPUT:", fields, path, line) if answered.iat[i] else None
        )
        is_control = any(row[tl.golden(f)].strip() for f in gold_fields)
        goldens.append(
            _stage2_label(row, "GOLDEN:", gold_fields, path, line) if is_control else None
        )
    return _assemble_toloka(frame, path, task, labels, goldens)


def empty_votes() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=object) for c in VOTE_COLUMNS})


def concat_votes(parts: list[pd.DataFrame]) -> pd.DataFrame:
    parts = [p for p in parts if len(p)]
    if not parts:
        return empty_votes()
    return pd.concat(parts, ignore_index=True)


def _first_offence(
    votes: pd.DataFrame, offending: pd.Series, keys: list[str], among: pd.Series | None = None
) -> tuple[pd.Series, pd.Series]:
    """The first offending row, and the first row (of ``among``) it clashes with on ``keys``."""
    row = votes[offending].iloc[0]
    same = np.logical_and.reduce([votes[k] == row[k] for k in keys])
    if among is not None:
        same &= among
    return row, votes[same].iloc[0]


def _line(row: pd.Series) -> int | None:
    """A row's physical line, or None where the format has none (a JSON export)."""
    line = int(row["line"])
    return line if line > 0 else None


def check_votes(votes: pd.DataFrame) -> None:
    """Fail on what a correct export never holds; the later of two rows is named.

    - an assignment id shared by two workers, or repeated for one task (a file read twice,
      or rows copied by hand);
    - a task that is a control in one row and not in another (a control id reused).
    """
    if votes.empty:
        return
    owners = votes.groupby("assignment", sort=False)["worker"].transform("first")
    clash = votes["worker"] != owners
    if clash.any():
        row, first = _first_offence(votes, clash, ["assignment"])
        raise RucolaError(
            f"duplicated assignment id {row['assignment']!r}: worker {row['worker']!r} "
            f"here, worker {first['worker']!r} at {first['origin']}",
            row["source"],
            _line(row),
        )
    repeated = votes.duplicated(["assignment", "task"], keep="first")
    if repeated.any():
        row, first = _first_offence(votes, repeated, ["assignment", "task"])
        raise RucolaError(
            f"duplicated assignment id {row['assignment']!r} for task {row['task']!r} "
            f"(first at {first['origin']})",
            row["source"],
            _line(row),
            hint="was a file given twice?",
        )
    is_control = votes["golden"].notna()
    controls = set(votes.loc[is_control, "task"])
    mixed = ~is_control & votes["task"].isin(controls)
    if mixed.any():
        row, first = _first_offence(votes, mixed, ["task"], among=is_control)
        raise RucolaError(
            f"task {row['task']!r} has no golden answer here but is a control task at "
            f"{first['origin']}",
            row["source"],
            _line(row),
            hint="control ids must differ from the ids of the sentences to annotate",
        )
