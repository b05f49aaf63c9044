"""The merge: exports in, one labelled row per task out, plus the annotation report.

``merge_votes`` works on vote tables (so that ``simulate`` and ``export`` can call it
without files); ``run_merge`` reads the files named in params or on the command line, and
stages the annotated table, ``reports/annotation.json``, the worker table and the agreement
plot, which move into place together once all of them are written (``rucola.stage``), so
a failure leaves the previous outputs as they were.

Accounting (``rucola.stage``): the row of this stage is the task (a sentence people
answered on; control tasks are not tasks).

- ``read``: the tasks with at least one answer row;
- ``kept``: the ``labelled`` ones, which ``annotate corpus`` adds to the corpus;
- ``set_aside``: the others, by ``pending:<why>`` (``too_few_votes``, ``tie``,
  ``awaiting_stage2``, ``stage2_too_few_votes``: more answers may label them) or
  ``set_aside:<why>`` (stage 2 found several categories, ``other``, or no majority;
  ``not_in_pool``: a candidate outside today's pool, ``annotation.pools``).

Every task, labelled or not, stays in the annotated table with its status, since the next
round and ``annotate corpus`` need them. Votes are counted apart, per stage, in ``votes``
(read = used + control + dropped by reason).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd
import pyarrow as pa

from rucola.annotation.aggregate import LABELLED, PENDING, aggregate_stage1, check_method
from rucola.annotation.answers import read_stage1, read_stage2
from rucola.annotation.categories import (
    NOT_IN_STAGE2_POOL,
    SET_ASIDE,
    aggregate_stage2,
    combine,
)
from rucola.annotation.cleaning import USED, clean
from rucola.annotation.pools import NOT_IN_POOL, Pools
from rucola.annotation.report import (
    build_report,
    public_report,
    write_agreement_plot,
    write_workers,
)
from rucola.annotation.result import MergeResult, status_counts
from rucola.annotation.votes import (
    ACCEPTABLE_LABEL,
    UNACCEPTABLE_LABEL,
    Stage2Form,
)
from rucola.corpus import schema
from rucola.errors import RucolaError
from rucola.io import write_parquet
from rucola.stage import StageRun

if TYPE_CHECKING:
    from rucola.settings import Annotate, RepeatedVotes

STAGE = "annotate_merge"
# A stage-1 vote as the release spells it.
ANSWERS = {ACCEPTABLE_LABEL: "acceptable", UNACCEPTABLE_LABEL: "unacceptable"}
__all__ = [
    "ANNOTATED_SCHEMA",
    "MergeResult",
    "merge_options",
    "merge_votes",
    "run_merge",
    "status_counts",
]

ANNOTATED_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("sentence", pa.string()),
        ("label", pa.int64()),
        ("error_type", pa.string()),
        ("n_votes", pa.int64()),
        ("share_acceptable", pa.float64()),
        ("agreement", pa.float64()),
        ("confidence", pa.float64()),
        ("status", pa.string()),
        ("reason", pa.string()),
        ("stage1_label", pa.int64()),
        ("n_votes_stage2", pa.int64()),
        ("categories", pa.string()),
        ("agreement_stage2", pa.float64()),
        ("method", pa.string()),
    ]
)


def control_tasks(votes: pd.DataFrame) -> set[str]:
    return set(votes.loc[votes["golden"].notna(), "task"])


def first_sentences(*tables: pd.DataFrame) -> pd.Series:
    """The first non-empty ``INPUT:sentence`` seen for each task, in reading order."""
    parts = [t[["task", "sentence"]] for t in tables if len(t)]
    if not parts:
        return pd.Series(dtype=object)
    both = pd.concat(parts, ignore_index=True)
    both = both[both["sentence"].notna() & (both["sentence"].astype(str).str.strip() != "")]
    return both.drop_duplicates("task").set_index("task")["sentence"]


def merge_votes(
    votes1: pd.DataFrame,
    votes2: pd.DataFrame | None,
    *,
    method: str,
    min_votes: int,
    min_control_accuracy: float,
    min_page_seconds: float | None,
    repeated_votes: RepeatedVotes = "error",
    pools: Pools | None = None,
    form: Stage2Form | None = None,
) -> MergeResult:
    """Clean, aggregate stage 1, aggregate stage 2 over the stage-1 unacceptable tasks.

    ``pools``: today's pool and every pool; without it every task is taken as it comes.
    ``form``: the stage-2 checkboxes (``corpus.categories``), which stage-2 votes need."""
    check_method(method)
    if votes2 is not None and form is None:
        raise ValueError("stage-2 votes need the stage-2 form")
    if votes2 is not None and not form.error_types:  # type: ignore[union-attr]
        raise RucolaError(
            "stage-2 answers, but the corpus declares no categories for out-of-domain rows",
            hint="a single round is final: empty annotate.stage2, or declare "
            "corpus.categories.out_of_domain",
        )
    cleaning = {
        "min_control_accuracy": min_control_accuracy,
        "min_page_seconds": min_page_seconds,
        "repeated_votes": repeated_votes,
    }
    outside1 = pools.outside(votes1) if pools is not None else None
    outside2 = pools.outside(votes2) if pools is not None and votes2 is not None else None
    cleaned1 = clean(votes1, **cleaning, outside=outside1)
    controls = control_tasks(votes1)
    tasks = sorted(set(votes1["task"]) - controls)
    stage1 = aggregate_stage1(cleaned1.used, tasks, method, min_votes)
    cleaned2 = None
    stage2 = pd.DataFrame(columns=["task", "n_votes_stage2", "categories", "agreement_stage2"])
    stage2 = stage2.assign(outcome=None, error_type=None, reason=None)
    if votes2 is not None:
        cleaned2 = clean(votes2, **cleaning, outside=outside2)
        pool = set(stage1.loc[(stage1["status"] == LABELLED) & (stage1["label"] == 0), "task"])
        fate = cleaned2.votes["fate"]
        outside = (fate == USED) & ~cleaned2.votes["task"].isin(pool)
        cleaned2.votes.loc[outside, "fate"] = NOT_IN_STAGE2_POOL
        assert form is not None
        stage2 = aggregate_stage2(cleaned2.used, min_votes, form)
    final = combine(stage1, stage2, single_round=form is not None and not form.error_types)
    if outside1 is not None and outside1.any():
        # Answered on an earlier pool: kept on file, set aside while outside today's.
        away = final["task"].isin(set(votes1.loc[outside1, "task"]))
        final.loc[away, ["status", "reason"]] = [f"{SET_ASIDE}:{NOT_IN_POOL}", NOT_IN_POOL]
        final.loc[away, "label"] = pd.NA
    sentences = first_sentences(votes1, votes2 if votes2 is not None else votes1.iloc[:0])
    final.insert(1, "sentence", final["task"].map(sentences))
    final = final.rename(columns={"task": "id"})
    final["method"] = method
    final = final.sort_values("id", kind="stable").reset_index(drop=True)
    return MergeResult(_typed(final[ANNOTATED_SCHEMA.names]), cleaned1, cleaned2, method)


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    """Nullable integers, floats, and strings with None (not NaN) for missing values."""
    frame = frame.copy()
    for item in ANNOTATED_SCHEMA:
        column = frame[item.name]
        if pa.types.is_integer(item.type):
            frame[item.name] = column.astype("Int64")
        elif pa.types.is_floating(item.type):
            frame[item.name] = column.astype(float)
        else:
            frame[item.name] = column.astype(object).where(column.notna(), None)
    return frame


def task_reason(status: str, reason: Any) -> str:
    """Why a task is not labelled: ``pending:<why>`` or its ``set_aside:<why>`` status."""
    if status == PENDING:
        return f"{PENDING}:{reason}" if isinstance(reason, str) and reason else PENDING
    return status


def kept_votes(result: MergeResult) -> pd.DataFrame:
    """Every vote that counted (fate ``used``), both stages, in ``schema.VOTES_SCHEMA``:
    what the release publishes per annotator (hashed) and what soft labels are made of."""
    parts = []
    for stage, cleaned in ((1, result.stage1), (2, result.stage2)):
        if cleaned is None:
            continue
        used = cleaned.used
        answer = used["label"].map(ANSWERS) if stage == 1 else used["label"]
        parts.append(
            pd.DataFrame(
                {
                    "task": used["task"].astype(str),
                    "stage": stage,
                    "worker": used["worker"].astype(str),
                    "answer": answer.astype(str),
                }
            )
        )
    columns = schema.VOTES_SCHEMA.names
    if not parts:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in columns})
    table = pd.concat(parts, ignore_index=True)[columns]
    return table.sort_values(["stage", "task", "worker", "answer"], kind="stable").reset_index(
        drop=True
    )


def candidate_votes(settings: Annotate) -> list[str]:
    """The long tables of ``annotate.votes`` whose tasks are candidates: all of them, or
    none where ``annotate.votes_target`` is ``corpus`` (votes on existing rows are a human
    evaluation, ``annotate human-eval``, never rows to add)."""
    return list(settings.votes) if settings.votes_target == "candidates" else []


def merge_options(settings: Annotate) -> dict[str, Any]:
    """The ``annotate`` params :func:`merge_votes` takes, beside the method."""
    return {
        "min_votes": settings.min_votes,
        "min_control_accuracy": settings.min_control_accuracy,
        "min_page_seconds": settings.min_page_seconds,
        "repeated_votes": settings.repeated_votes,
    }


def run_merge(settings: Annotate, form: Stage2Form, pools: Pools | None = None) -> dict[str, Any]:
    """Read the answers ``settings`` name, merge them, then write everything at once (the
    annotated table ``out``, the ``report``, ``workers``, the agreement ``plot`` and
    ``plot_png``, the kept votes ``votes_out``); returns the report.

    Params that name no answers at all give an empty round (no rows, a report that says
    so); a file or folder that is named but holds no answer is an error. ``form``: the
    stage-2 checkboxes (``corpus.categories``); ``pools``: today's pool and every pool the
    answers are checked against (``annotation.pools``)."""
    votes1 = read_stage1(
        settings.stage1,
        candidate_votes(settings),
        settings.output_field,
        columns=settings.vote_columns,
    )
    votes2 = read_stage2(settings.stage2, form) if settings.stage2 else None
    result = merge_votes(
        votes1, votes2, method=settings.method, pools=pools, form=form, **merge_options(settings)
    )
    data = build_report(result, settings)
    data["pools"] = pools.report() if pools is not None else {"checked": False}
    data["inputs"] = {
        "stage1": sorted({str(s) for s in votes1["source"]}),
        "stage2": sorted({str(s) for s in votes2["source"]}) if votes2 is not None else [],
    }
    tasks = result.tasks
    out, votes_out = settings.out, settings.votes_out
    outputs = [settings.workers, settings.plot, settings.plot_png, votes_out]
    with StageRun(
        STAGE,
        report=settings.report,
        private_report=settings.private_report,
        out=out,
        outputs=outputs,
    ) as run:
        run.count_read(len(tasks))
        labelled = tasks["status"] == LABELLED
        run.count_kept(int(labelled.sum()))
        others = tasks[~labelled]
        run.set_aside(
            pd.DataFrame(
                {
                    "origin": "annotations:" + others["id"].astype(str),
                    "sentence": others["sentence"],
                }
            ),
            [task_reason(s, r) for s, r in zip(others["status"], others["reason"], strict=True)],
        )
        write_parquet(tasks, run.path(out), ANNOTATED_SCHEMA)
        write_workers(result, run.path(settings.workers))
        write_parquet(kept_votes(result), run.path(votes_out), schema.VOTES_SCHEMA)
        public = public_report(data)
        write_agreement_plot(public, run.path(settings.plot), run.path(settings.plot_png))
        report = run.finish(private=data, **public)
        return {**report, **data}
