"""The worker model a simulation draws answers from: who answers, how well, page by page.

``simulate`` plans a pool with it: workers (a share of spammers answering at random, the
others right with an accuracy drawn uniformly from a range; everyone sometimes says "not
sure") take pages of ``page_size`` with control tasks from the golden set, each page going
to a worker who has not seen its sentences; some assignments expire (empty answers); every
sentence gets ``overlap`` answers, then more, up to ``max_overlap``, while the majority
share of its answers is below ``confidence``. The answers come out in the Toloka result
layout, as a platform would give them.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rucola.annotation import toloka as tl
from rucola.annotation.export import make_pages, stage_controls
from rucola.annotation.votes import NO_VIOLATION, NOT_SURE, STAGE1_FIELD, Stage2Form
from rucola.io import stable_hash

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


def _stage2_answer(
    rng: np.random.Generator, spammer: bool, accuracy: float, right: str, *, choices: list[str]
) -> str:
    if spammer:
        return choices[int(rng.integers(0, len(choices)))]
    if rng.random() < accuracy:
        return right
    wrong = [c for c in choices if c != right]
    return wrong[int(rng.integers(0, len(wrong)))]


def _timestamp(value: pd.Timestamp) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}"


def _frame(
    rows: list[dict[str, Any]],
    stage: int,
    control_golden: dict[str, str],
    form: Stage2Form | None = None,
) -> pd.DataFrame:
    """Simulated answers in the Toloka result layout (stage 2: the checkboxes of ``form``)."""
    if stage == 2 and form is None:
        raise ValueError("stage 2 needs its form")
    stage2 = form.fields if form is not None else []
    stage2_golden = form.required if form is not None else []
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
            for f in stage2:
                record[tl.output(f)] = "" if not row["answer"] else str(f in checked).lower()
            gold = control_golden.get(row["task"], "") if row["control"] else ""
            for f in stage2_golden:
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
        else [*(tl.output(f) for f in stage2), *(tl.golden(f) for f in stage2_golden)]
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
    truth: pd.DataFrame,
    pool: Sequence[str],
    controls: pd.DataFrame,
    plan: Plan,
    seed: int,
    form: Stage2Form,
) -> pd.DataFrame:
    """Stage-2 answers for the ``pool`` ids (the true answer of an acceptable one: none),
    in the checkboxes of ``form``."""
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
        answer=functools.partial(_stage2_answer, choices=form.required),
        rng=rng,
    )
    return _frame(rows, 2, control_truth, form)
