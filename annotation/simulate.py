"""Planning aid: answers drawn from a worker model for sentences whose labels are known.

Before paying for a pool, a maintainer wants to know which overlap, and which aggregation
method, recovers the labels well enough. ``simulate`` plays both stages the way they run:

- workers: a share of spammers answering at random, the others right with an accuracy drawn
  uniformly from a range; everyone sometimes says "not sure";
- pages of ``page_size`` with control tasks from the golden set, each page given to a
  worker who has not seen its sentences; some assignments expire (empty answers);
- dynamic overlap: every sentence gets ``overlap`` answers, then more, up to
  ``max_overlap``, while the majority share of its answers is below ``confidence``;
- stage 2 gets the sentences the stage-1 majority called unacceptable, as it would.

The answers are written in the Toloka result layout or, with ``format: label_studio``, as
a Label Studio JSON export holding the same answers (``label_studio.write_export``), so the
merge reads them as it would read a real export; each method's accuracy and coverage
against the truth is reported.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from rucola.annotation import label_studio as ls
from rucola.annotation import toloka as tl
from rucola.annotation.aggregate import METHODS
from rucola.annotation.categories import ERROR_TYPES
from rucola.annotation.export import make_pages, stage_controls
from rucola.annotation.merge import merge_votes
from rucola.annotation.result import MergeResult
from rucola.annotation.votes import (
    CATEGORIES,
    NO_VIOLATION,
    NOT_SURE,
    STAGE1_FIELD,
    STAGE2_FIELDS,
    has_suffix,
    stage1_from_toloka,
    stage2_from_toloka,
)
from rucola.errors import RucolaError
from rucola.io import stable_hash
from rucola.stage import read_frame

TYPES_BY_NAME = {v.lower(): v for v in ERROR_TYPES.values()}
STAGE2_CHOICES = [*CATEGORIES, NO_VIOLATION]
FORMATS = {"toloka": "results.tsv", "label_studio": "results.json"}  # answers file per stage
START = pd.Timestamp("2024-01-01T09:00:00")


@dataclass
class WorkerModel:
    """Who answers: how many, how good, how many spammers, how fast."""

    workers: int = 60
    accuracy: tuple[float, float] = (0.75, 0.95)
    spammer_share: float = 0.2
    not_sure_rate: float = 0.02
    expired_rate: float = 0.02
    seconds: tuple[float, float] = (40.0, 180.0)  # honest workers, per page
    spammer_seconds: tuple[float, float] = (10.0, 90.0)


@dataclass
class Plan:
    """How the pool runs: overlap, pages, controls."""

    overlap: int = 3
    max_overlap: int = 5
    confidence: float = 0.75
    page_size: int = 5
    controls_per_page: int = 1
    min_control_accuracy: float = 0.5
    min_page_seconds: float = 30.0
    stage1: WorkerModel = field(default_factory=WorkerModel)
    stage2: WorkerModel = field(
        default_factory=lambda: WorkerModel(workers=20, accuracy=(0.8, 0.95), spammer_share=0.05)
    )


def read_truth(path: str | Path) -> pd.DataFrame:
    """Known labels: ``id, sentence, label, error_type`` (parquet, CSV or TSV).

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
            if error_type is None or error_type.lower() not in TYPES_BY_NAME:
                raise RucolaError(
                    f"unacceptable row needs an error_type, not {row['error_type']!r}",
                    path,
                    line,
                    hint=f"one of {', '.join(TYPES_BY_NAME.values())}",
                )
            error_type = TYPES_BY_NAME[error_type.lower()]
        else:
            error_type = None
        rows.append((str(row["id"]), str(row["sentence"]), int(label), error_type))
    truth = pd.DataFrame(rows, columns=["id", "sentence", "label", "error_type"])
    if truth["id"].duplicated().any():
        raise RucolaError(f"duplicated id {truth['id'][truth['id'].duplicated()].iloc[0]!r}", path)
    return truth.sort_values("id", kind="stable").reset_index(drop=True)


def draw_workers(model: WorkerModel, rng: np.random.Generator, prefix: str) -> pd.DataFrame:
    n = int(model.workers)
    spammers = np.zeros(n, dtype=bool)
    spammers[: int(round(model.spammer_share * n))] = True
    rng.shuffle(spammers)
    accuracy = rng.uniform(model.accuracy[0], model.accuracy[1], n)
    return pd.DataFrame(
        {
            "worker": [f"{prefix}{i:03d}" for i in range(n)],
            "spammer": spammers,
            "accuracy": np.where(spammers, np.nan, accuracy),
        }
    )


def _confident(votes: list[str], overlap: int, confidence: float) -> bool:
    if len(votes) < overlap:
        return False
    top = Counter(votes).most_common(1)[0][1]
    return top / len(votes) >= confidence


def _play(
    *,
    stage: int,
    truth: dict[str, str],
    sentences: dict[str, str],
    controls: pd.DataFrame,
    control_truth: dict[str, str],
    workers: pd.DataFrame,
    model: WorkerModel,
    plan: Plan,
    answer: Callable[[np.random.Generator, bool, float, str], str],
    rng: np.random.Generator,
) -> list[dict[str, Any]]:
    """Run rounds of pages until every task is confident or at ``max_overlap``.

    As a platform does while a pool runs, answers from fast pages and from workers whose
    control accuracy has fallen to the threshold do not count towards confidence, so such
    tasks are asked again (within ``max_overlap``).
    """
    answers: dict[str, list[tuple[str, str, bool]]] = {t: [] for t in truth}
    tally: dict[str, list[int]] = {w: [0, 0] for w in workers["worker"]}

    def trusted(worker: str) -> bool:
        right, total = tally[worker]
        return total == 0 or right / total > plan.min_control_accuracy

    def usable(task: str) -> list[str]:
        return [v for w, v, fast in answers[task] if not fast and v != NOT_SURE and trusted(w)]

    assigned: dict[str, int] = dict.fromkeys(truth, 0)
    seen: dict[str, set[str]] = {w: set() for w in workers["worker"]}
    profile = workers.set_index("worker").to_dict("index")
    names = workers["worker"].tolist()
    control_sentences = dict(zip(controls["id"], controls["sentence"], strict=True))
    rows: list[dict[str, Any]] = []
    clock = START + pd.Timedelta(days=stage - 1)
    counter = 0
    max_overlap = max(plan.max_overlap, plan.overlap)
    while True:
        need = sorted(
            t
            for t in truth
            if assigned[t] < plan.overlap
            or (
                assigned[t] < max_overlap
                and not _confident(usable(t), plan.overlap, plan.confidence)
            )
        )
        if not need:
            break
        pages = make_pages(
            need, controls["id"].tolist(), plan.page_size, plan.controls_per_page, rng
        )
        for page in pages:
            tasks = {t for t, control in page if not control}
            expired = rng.random() < model.expired_rate
            worker = next(
                (w for w in (names[i] for i in rng.permutation(len(names))) if not tasks & seen[w]),
                None,
            )
            if worker is None:
                for t in tasks:  # nobody left who has not seen these: stop asking
                    assigned[t] = max_overlap
                continue
            info = profile[worker]
            low, high = model.spammer_seconds if info["spammer"] else model.seconds
            started = clock + pd.Timedelta(seconds=int(rng.integers(0, 600)))
            duration = float(round(rng.uniform(low, high), 3))
            submitted = started + pd.Timedelta(seconds=duration)
            fast = duration < plan.min_page_seconds
            clock += pd.Timedelta(seconds=7)
            counter += 1
            assignment = f"sim{stage}-{counter:06d}"
            for task, control in page:
                if expired:
                    value = ""
                else:
                    right = control_truth[task] if control else truth[task]
                    value = answer(rng, bool(info["spammer"]), float(info["accuracy"]), right)
                    if rng.random() < model.not_sure_rate:
                        value = NOT_SURE
                    if control:
                        tally[worker][0] += int(value == right)
                        tally[worker][1] += 1
                    else:
                        seen[worker].add(task)
                        answers[task].append((worker, value, fast))
                rows.append(
                    {
                        "task": task,
                        "sentence": control_sentences[task] if control else sentences[task],
                        "control": control,
                        "answer": value,
                        "assignment": assignment,
                        "worker": worker,
                        "status": "EXPIRED" if expired else "APPROVED",
                        "started": started,
                        "submitted": submitted,
                    }
                )
            if not expired:
                for t in tasks:
                    assigned[t] += 1
    return rows


def _stage1_answer(rng: np.random.Generator, spammer: bool, accuracy: float, right: str) -> str:
    if spammer:
        return "yes" if rng.random() < 0.5 else "no"
    if rng.random() < accuracy:
        return right
    return "no" if right == "yes" else "yes"


def _stage2_answer(rng: np.random.Generator, spammer: bool, accuracy: float, right: str) -> str:
    if spammer:
        return STAGE2_CHOICES[int(rng.integers(0, len(STAGE2_CHOICES)))]
    if rng.random() < accuracy:
        return right
    wrong = [c for c in STAGE2_CHOICES if c != right]
    return wrong[int(rng.integers(0, len(wrong)))]


def _timestamp(value: pd.Timestamp) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}"


def _frame(rows: list[dict[str, Any]], stage: int, control_golden: dict[str, str]) -> pd.DataFrame:
    """Simulated answers in the Toloka result layout."""
    records = []
    for row in rows:
        record = {tl.INPUT_ID: row["task"], tl.INPUT_SENTENCE: row["sentence"]}
        if stage == 1:
            record[tl.output(STAGE1_FIELD)] = row["answer"]
            record[tl.golden(STAGE1_FIELD)] = (
                control_golden.get(row["task"], "") if row["control"] else ""
            )
        else:
            checked = set(row["answer"].split("|")) if row["answer"] else set()
            for f in STAGE2_FIELDS:
                record[tl.output(f)] = "" if not row["answer"] else str(f in checked).lower()
            gold = control_golden.get(row["task"], "") if row["control"] else ""
            for f in STAGE2_FIELDS[:-1]:
                record[tl.golden(f)] = str(f == gold).lower() if gold else ""
        record[tl.HINT_TEXT] = ""
        record[tl.TASK_ID] = stable_hash(str(stage), row["task"])
        record[tl.ASSIGNMENT_ID] = row["assignment"]
        record[tl.WORKER_ID] = row["worker"]
        record[tl.STATUS] = row["status"]
        record[tl.STARTED] = _timestamp(row["started"])
        record[tl.SUBMITTED] = _timestamp(row["submitted"])
        records.append(record)
    fields = (
        [tl.output(STAGE1_FIELD), tl.golden(STAGE1_FIELD)]
        if stage == 1
        else [*(tl.output(f) for f in STAGE2_FIELDS), *(tl.golden(f) for f in STAGE2_FIELDS[:-1])]
    )
    columns = [
        tl.INPUT_ID,
        tl.INPUT_SENTENCE,
        *fields,
        tl.HINT_TEXT,
        tl.TASK_ID,
        tl.ASSIGNMENT_ID,
        tl.WORKER_ID,
        tl.STATUS,
        tl.STARTED,
        tl.SUBMITTED,
    ]
    frame = pd.DataFrame(records, columns=columns, dtype=object)
    return frame.sort_values([tl.ASSIGNMENT_ID], kind="stable").reset_index(drop=True)


def simulate_stage1(
    truth: pd.DataFrame, controls: pd.DataFrame, plan: Plan, seed: int
) -> pd.DataFrame:
    rng = np.random.default_rng([int(seed), 1])
    workers = draw_workers(plan.stage1, rng, "w1-")
    usable = stage_controls(controls, 1)
    control_truth = {r.id: ("no" if r.label == 1 else "yes") for r in usable.itertuples()}
    rows = _play(
        stage=1,
        truth={r.id: ("no" if r.label == 1 else "yes") for r in truth.itertuples()},
        sentences=dict(zip(truth["id"], truth["sentence"], strict=True)),
        controls=usable,
        control_truth=control_truth,
        workers=workers,
        model=plan.stage1,
        plan=plan,
        answer=_stage1_answer,
        rng=rng,
    )
    return _frame(rows, 1, control_truth)


def simulate_stage2(
    truth: pd.DataFrame, pool: Sequence[str], controls: pd.DataFrame, plan: Plan, seed: int
) -> pd.DataFrame:
    """Stage-2 answers for the ``pool`` ids (the true answer of an acceptable one: none)."""
    rng = np.random.default_rng([int(seed), 2])
    workers = draw_workers(plan.stage2, rng, "w2-")
    usable = stage_controls(controls, 2)
    control_truth = {r.id: str(r.error_type).lower() for r in usable.itertuples()}
    chosen = truth[truth["id"].isin(set(pool))]
    right = {
        r.id: (NO_VIOLATION if r.label == 1 else str(r.error_type).lower())
        for r in chosen.itertuples()
    }
    rows = _play(
        stage=2,
        truth=right,
        sentences=dict(zip(chosen["id"], chosen["sentence"], strict=True)),
        controls=usable,
        control_truth=control_truth,
        workers=workers,
        model=plan.stage2,
        plan=plan,
        answer=_stage2_answer,
        rng=rng,
    )
    return _frame(rows, 2, control_truth)


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


def simulate(
    truth: pd.DataFrame,
    controls: pd.DataFrame,
    plan: Plan,
    params: dict[str, Any],
    *,
    seed: int,
    methods: Sequence[str] = METHODS,
) -> Simulation:
    """Both stages, then the merge with each method, scored against the truth."""
    options = {
        "min_votes": int(params["min_votes"]),
        "min_control_accuracy": float(params["min_control_accuracy"]),
        "min_page_seconds": params.get("min_page_seconds"),
    }
    clash = sorted(set(truth["id"]) & set(controls["id"]))
    if clash:
        raise RucolaError(f"truth id {clash[0]!r} is also a control id")
    stage1 = simulate_stage1(truth, controls, plan, seed)
    votes1 = stage1_from_toloka(stage1.assign(**{tl.LINE: np.arange(len(stage1)) + 2}), "<stage1>")
    first = merge_votes(votes1, None, method="majority", **options)
    pool = first.tasks.loc[first.tasks["stage1_label"] == 0, "id"].tolist()
    stage2 = simulate_stage2(truth, pool, controls, plan, seed)
    votes2 = stage2_from_toloka(stage2.assign(**{tl.LINE: np.arange(len(stage2)) + 2}), "<stage2>")
    results = {}
    table = []
    for method in methods:
        result = merge_votes(votes1, votes2, method=method, **options)
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
    return Simulation(stage1, stage2, results, table, budget, votes1, votes2)


def plan_from_settings(section: dict[str, Any], settings: dict[str, Any]) -> Plan:
    """The ``annotate.simulate`` settings (and the pool's page layout) as a ``Plan``."""
    return Plan(
        overlap=int(settings["overlap"]),
        max_overlap=int(settings["max_overlap"]),
        confidence=float(settings["confidence"]),
        page_size=int(section["page_size"]),
        controls_per_page=int(section["controls_per_page"]),
        min_control_accuracy=float(section["min_control_accuracy"]),
        min_page_seconds=float(section["min_page_seconds"] or 0),
        stage1=WorkerModel(
            workers=int(settings["workers"]),
            accuracy=tuple(settings["accuracy"]),
            spammer_share=float(settings["spammer_share"]),
            not_sure_rate=float(settings["not_sure_rate"]),
            expired_rate=float(settings["expired_rate"]),
        ),
        stage2=WorkerModel(
            workers=int(settings["stage2_workers"]),
            accuracy=tuple(settings["stage2_accuracy"]),
            spammer_share=float(settings["stage2_spammer_share"]),
            not_sure_rate=float(settings["not_sure_rate"]),
            expired_rate=float(settings["expired_rate"]),
        ),
    )


def write_results(sim: Simulation, out_dir: Path, fmt: str = "toloka") -> list[str]:
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
            ls.write_export(votes, path, stage, STAGE1_FIELD, users)
        files.append(str(path))
    return files


def run_simulation(
    section: dict[str, Any], settings: dict[str, Any], controls: pd.DataFrame, *, seed: int
) -> dict[str, Any]:
    """Simulate, score every method, write the results (optional, in ``format``) and the
    report."""
    from rucola.io import write_json

    fmt = settings.get("format") or "toloka"  # checked by the params schema and the CLI
    truth = read_truth(settings["truth"])
    plan = plan_from_settings(section, settings)
    sim = simulate(truth, controls, plan, section, seed=seed, methods=settings["methods"])
    files = []
    if settings.get("out_dir"):
        files = write_results(sim, Path(settings["out_dir"]), fmt)
    report = {
        "truth": str(settings["truth"]),
        "seed": int(seed),
        "plan": {
            k: v
            for k, v in settings.items()
            if k not in ("truth", "out_dir", "report", "methods", "format")
        },
        "methods": sim.table,
        "budget": sim.budget,
        "files": files,
    }
    if settings.get("report"):
        write_json(report, settings["report"])
    return report
