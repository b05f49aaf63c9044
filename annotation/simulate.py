"""Planning aid: answers drawn from a worker model for sentences whose labels are known.

Before paying for a pool, a maintainer wants to know which overlap, and which aggregation
method, recovers the labels well enough. ``simulate`` plays both stages the way they run
(the worker model, pages and dynamic overlap: ``annotation.worker_model``); stage 2 gets
the sentences the stage-1 majority called unacceptable, as it would.

The answers are written in the Toloka result layout or, with ``format: label_studio``, as
a Label Studio JSON export holding the same answers (``label_studio.write_export``), so the
merge reads them as it would read a real export; each method's accuracy and coverage
against the truth is reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rucola.annotation import label_studio as ls
from rucola.annotation import toloka as tl
from rucola.annotation.aggregate import METHODS
from rucola.annotation.merge import merge_options, merge_votes
from rucola.annotation.result import MergeResult
from rucola.annotation.votes import (
    STAGE1_FIELD,
    Stage2Form,
    has_suffix,
    stage1_from_toloka,
    stage2_from_toloka,
)
from rucola.annotation.worker_model import Plan, WorkerModel, simulate_stage1, simulate_stage2
from rucola.errors import RucolaError
from rucola.stage import read_frame

if TYPE_CHECKING:
    from rucola.settings import Annotate, AnswerFormat, Simulate

__all__ = ["Plan", "Simulation", "WorkerModel", "evaluate", "read_truth", "run_simulation"]

# The answers file of each stage, per answer format (``annotate.simulate.format``).
FORMATS: dict[AnswerFormat, str] = {"toloka": "results.tsv", "label_studio": "results.json"}


def read_truth(path: str | Path, form: Stage2Form) -> pd.DataFrame:
    """Known labels: ``id, sentence, label, error_type`` (parquet, CSV or TSV), an
    unacceptable row's ``error_type`` a category of the stage-2 ``form``.

    The published RuCoLA CSVs work as they are (``acceptable`` for ``label``, ``0`` as the
    error type of acceptable rows); ``candidate_id`` may stand for ``id``.
    """
    path = Path(path)
    if not path.is_file():
        raise RucolaError("no such file", path)
    if has_suffix(path, ".parquet"):
        frame = read_frame(path, "truth table")
        lines = pd.Series(np.arange(len(frame)) + 2)
    else:
        frame = tl.read_table(path, "\t" if has_suffix(path, ".tsv") else ",")
        lines = frame[tl.LINE]
    if "id" not in frame.columns and "candidate_id" in frame.columns:
        frame = frame.rename(columns={"candidate_id": "id"})
    if "label" not in frame.columns and "acceptable" in frame.columns:
        frame = frame.rename(columns={"acceptable": "label"})
    tl.require_columns(frame, ["id", "sentence", "label", "error_type"], path)
    rows = []
    for i, row in enumerate(frame[["id", "sentence", "label", "error_type"]].to_dict("records")):
        line = int(lines.iloc[i])
        label = str(row["label"]).strip()
        if label not in ("0", "1"):
            raise RucolaError(f"label must be 0 or 1, not {label!r}", path, line)
        error_type = row["error_type"]
        error_type = (
            None if pd.isna(error_type) or str(error_type) in ("", "0") else str(error_type)
        )
        if label == "0":
            canonical = None if error_type is None else form.error_type(error_type)
            if canonical is None:
                raise RucolaError(
                    f"unacceptable row needs an error_type, not {row['error_type']!r}",
                    path,
                    line,
                    hint=f"one of {', '.join(form.error_types)}",
                )
            error_type = canonical
        else:
            error_type = None
        rows.append((str(row["id"]), str(row["sentence"]), int(label), error_type))
    truth = pd.DataFrame(rows, columns=["id", "sentence", "label", "error_type"])
    if truth["id"].duplicated().any():
        raise RucolaError(f"duplicated id {truth['id'][truth['id'].duplicated()].iloc[0]!r}", path)
    return truth.sort_values("id", kind="stable").reset_index(drop=True)


def evaluate(tasks: pd.DataFrame, truth: pd.DataFrame) -> dict[str, Any]:
    """Accuracy among labelled sentences, and coverage (labelled share of all)."""
    joined = truth.merge(tasks, on="id", how="left", suffixes=("_true", ""))
    n = len(joined)
    labelled = joined[joined["status"] == "labelled"]
    label_ok = labelled["label"].astype("Int64") == labelled["label_true"]
    unacceptable = labelled[(labelled["label"] == 0) & (labelled["label_true"] == 0)]
    type_ok = unacceptable["error_type"] == unacceptable["error_type_true"]
    full_ok = label_ok & (
        (labelled["label"] == 1) | (labelled["error_type"] == labelled["error_type_true"])
    )
    status = joined["status"].fillna("missing").str.split(":").str[0]
    return {
        "sentences": int(n),
        "labelled": int(len(labelled)),
        "coverage": round(len(labelled) / n, 4) if n else None,
        "accuracy": round(float(label_ok.mean()), 4) if len(labelled) else None,
        "error_type_accuracy": round(float(type_ok.mean()), 4) if len(unacceptable) else None,
        "full_accuracy": round(float(full_ok.mean()), 4) if len(labelled) else None,
        "pending": int((status == "pending").sum()),
        "set_aside": int((status == "set_aside").sum()),
    }


@dataclass
class Simulation:
    stage1: pd.DataFrame  # Toloka result layout
    stage2: pd.DataFrame
    results: dict[str, MergeResult]
    table: list[dict[str, Any]]
    budget: dict[str, Any]
    votes1: pd.DataFrame  # the same answers as votes (``votes.VOTE_COLUMNS``)
    votes2: pd.DataFrame
    form: Stage2Form  # the stage-2 checkboxes


def simulate(
    truth: pd.DataFrame,
    controls: pd.DataFrame,
    plan: Plan,
    settings: Annotate,
    *,
    seed: int,
    form: Stage2Form,
    methods: Sequence[str] = METHODS,
) -> Simulation:
    """Both stages (stage 2 in the checkboxes of ``form``), then the merge with each method
    (the other merge params of ``settings``), scored against the truth."""
    options = merge_options(settings)
    clash = sorted(set(truth["id"]) & set(controls["id"]))
    if clash:
        raise RucolaError(f"truth id {clash[0]!r} is also a control id")
    stage1 = simulate_stage1(truth, controls, plan, seed)
    votes1 = stage1_from_toloka(stage1.assign(**{tl.LINE: np.arange(len(stage1)) + 2}), "<stage1>")
    first = merge_votes(votes1, None, method="majority", **options)
    pool = first.tasks.loc[first.tasks["stage1_label"] == 0, "id"].tolist()
    stage2 = simulate_stage2(truth, pool, controls, plan, seed, form)
    lines2 = stage2.assign(**{tl.LINE: np.arange(len(stage2)) + 2})
    votes2 = stage2_from_toloka(lines2, "<stage2>", form)
    results = {}
    table = []
    for method in methods:
        result = merge_votes(votes1, votes2, method=method, form=form, **options)
        results[method] = result
        table.append({"method": method, **evaluate(result.tasks, truth)})
    answered1 = stage1[(stage1[tl.STATUS] != "EXPIRED") & (stage1[tl.golden(STAGE1_FIELD)] == "")]
    budget = {
        "stage1": {
            "assignments": int(stage1[tl.ASSIGNMENT_ID].nunique()),
            "answers": int(len(stage1)),
            "answers_per_sentence": round(len(answered1) / max(len(truth), 1), 3),
        },
        "stage2": {
            "sentences": len(pool),
            "assignments": int(stage2[tl.ASSIGNMENT_ID].nunique()) if len(stage2) else 0,
            "answers": int(len(stage2)),
        },
    }
    return Simulation(stage1, stage2, results, table, budget, votes1, votes2, form)


def plan_from_settings(settings: Annotate, simulation: Simulate) -> Plan:
    """The ``annotate.simulate`` settings (and the pool's page layout) as a ``Plan``."""
    return Plan(
        overlap=simulation.overlap,
        max_overlap=simulation.max_overlap,
        confidence=simulation.confidence,
        page_size=settings.page_size,
        controls_per_page=settings.controls_per_page,
        min_control_accuracy=settings.min_control_accuracy,
        min_page_seconds=float(settings.min_page_seconds or 0),
        stage1=WorkerModel(
            workers=simulation.workers,
            accuracy=tuple(simulation.accuracy),
            spammer_share=simulation.spammer_share,
            not_sure_rate=simulation.not_sure_rate,
            expired_rate=simulation.expired_rate,
        ),
        stage2=WorkerModel(
            workers=simulation.stage2_workers,
            accuracy=tuple(simulation.stage2_accuracy),
            spammer_share=simulation.stage2_spammer_share,
            not_sure_rate=simulation.not_sure_rate,
            expired_rate=simulation.expired_rate,
        ),
    )


def write_results(sim: Simulation, out_dir: Path, fmt: AnswerFormat = "toloka") -> list[str]:
    """``stage1/`` and ``stage2/`` answer files in ``fmt``; Label Studio users are numbered
    over both stages' workers in sorted order, so a worker is one user throughout. The
    other format's file, left by an earlier run, is removed: the merge reads a folder's
    files of both formats, and would count every answer twice. Only files rucola wrote
    are replaced or removed (``rucola.ownership``): every one is checked before the first
    is touched, so a person's answers there make the command refuse, changing nothing."""
    from rucola.ownership import check_may_replace, remove

    workers = sorted(set(sim.votes1["worker"]) | set(sim.votes2["worker"]))
    users = {w: ls.OWNER + 1 + i for i, w in enumerate(workers)}
    paths = {stage: out_dir / f"stage{stage}" / FORMATS[fmt] for stage in (1, 2)}
    others = [
        path.parent / name
        for path in paths.values()
        for name in sorted(set(FORMATS.values()) - {path.name})
    ]
    for path in [*paths.values(), *others]:
        check_may_replace(path, action="replace or delete")
    for other in others:
        remove(other)
    files = []
    for stage, frame, votes in ((1, sim.stage1, sim.votes1), (2, sim.stage2, sim.votes2)):
        path = paths[stage]
        if fmt == "toloka":
            tl.write_toloka(frame, path)
        else:
            ls.write_export(votes, path, stage, STAGE1_FIELD, users, sim.form)
        files.append(str(path))
    return files


def run_simulation(settings: Annotate, controls: pd.DataFrame, form: Stage2Form) -> dict[str, Any]:
    """Simulate ``settings.simulate`` (seeded with ``settings.seed``; stage 2 in the
    checkboxes of ``form``), score every method, write the results (optional, in
    ``format``) and the report."""
    from rucola.io import write_json

    simulation = settings.simulate
    if simulation.truth is None:
        raise RucolaError("no truth table", hint="pass --truth FILE or set annotate.simulate.truth")
    truth = read_truth(simulation.truth, form)
    plan = plan_from_settings(settings, simulation)
    seed = settings.seed
    sim = simulate(
        truth, controls, plan, settings, seed=seed, form=form, methods=simulation.methods
    )
    files = []
    if simulation.out_dir:
        files = write_results(sim, Path(simulation.out_dir), simulation.format)
    report = {
        "truth": str(simulation.truth),
        "seed": int(seed),
        "plan": simulation.model_dump(exclude={"truth", "out_dir", "report", "methods", "format"}),
        "methods": sim.table,
        "budget": sim.budget,
        "files": files,
    }
    write_json(report, simulation.report)
    return report
