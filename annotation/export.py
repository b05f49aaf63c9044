"""Task pools for the next round of people: pages with control tasks, in the Toloka layout.

A page holds ``page_size`` sentences of which ``controls_per_page`` are control tasks
from the golden set (RuCoLA: five sentences, one control). Controls measure each worker,
so they are drawn so that consecutive pages use different ones, and placed at a random
position on the page; everything is shuffled with ``seed``, from inputs sorted by id, so
the same inputs give the same pool. Rows are written page after page (every
``page_size`` rows form one page). A Label Studio task list and labelling config are
written alongside (``label_studio``), so the same pool runs on either platform.

``run_export`` is the ``annotate export`` command: it reads the candidates (stage 1) or
aggregates the stage-1 answers (stage 2), and the pool, its Label Studio twin (tasks and
config) and the manifest appear together; the manifest is the run's report, with
``read``, ``kept`` and ``set_aside`` (``rucola.stage``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rucola.annotation import label_studio as ls
from rucola.annotation import toloka as tl
from rucola.annotation.answers import read_stage1
from rucola.annotation.merge import candidate_votes, merge_options, merge_votes, task_reason
from rucola.annotation.pools import Pools, read_tasks
from rucola.annotation.votes import (
    LONG_STAGE1,
    STAGE1_FIELD,
    UNACCEPTABLE_LABEL,
    Stage2Form,
    normalise_token,
)
from rucola.errors import RucolaError
from rucola.io import stable_hash, write_json, write_text
from rucola.params import optional_path
from rucola.stage import StageRun

if TYPE_CHECKING:
    from rucola.settings import Annotate

STAGE = "annotate_export"

CONTROL_COLUMNS = ["id", "sentence", "label", "error_type", "hint"]


def control_path(value: str | Path | Sequence[str | Path] | None) -> Path | None:
    """``annotate.controls``: at most one golden-set file (a list, as DVC tracks it, or a
    plain path or null as the command line and older params give it)."""
    path = optional_path(value, "annotate.controls", "golden set")
    return None if path is None else Path(path)


def read_controls(path: str | Path | Sequence[str | Path] | None, form: Stage2Form) -> pd.DataFrame:
    """The golden set: ``id, sentence, label[, error_type][, hint]`` (TSV or CSV).

    ``label`` is ``1``/``acceptable`` or ``0``/``unacceptable``; ``error_type`` (needed for
    stage-2 controls) is a category of the stage-2 ``form`` (``corpus.categories``, out of
    domain). No path (an empty ``annotate.controls``): no controls.
    """
    path = control_path(path)
    if path is None:
        return pd.DataFrame(columns=CONTROL_COLUMNS).astype({"label": "int64"})
    frame = tl.read_table(path, "," if path.suffix == ".csv" else "\t")
    frame.columns = [c if c == tl.LINE else c.strip().lower() for c in frame.columns]
    tl.require_columns(frame, ["id", "sentence", "label"], path)
    rows = []
    seen: dict[str, int] = {}
    for row in frame.to_dict("records"):
        line = int(row[tl.LINE])
        key = row["id"].strip()
        if not key or not row["sentence"].strip():
            raise RucolaError("empty id or sentence", path, line)
        if key in seen:
            raise RucolaError(
                f"duplicated control id {key!r} (first at line {seen[key]})", path, line
            )
        seen[key] = line
        label = LONG_STAGE1.get(normalise_token(row["label"]))
        if label not in ("0", "1"):
            raise RucolaError(
                f"unknown label {row['label']!r}",
                path,
                line,
                hint="use 1/acceptable or 0/unacceptable",
            )
        error_type = (row.get("error_type") or "").strip()
        if error_type in ("", "0"):
            error_type = None
        elif form.error_type(error_type) is None:
            raise RucolaError(
                f"unknown error_type {error_type!r}",
                path,
                line,
                hint=f"one of {', '.join(form.error_types)}",
            )
        else:
            error_type = form.error_type(error_type)
        if error_type and label == "1":
            raise RucolaError("an acceptable control cannot have an error_type", path, line)
        rows.append((key, row["sentence"].strip(), int(label), error_type, row.get("hint") or ""))
    return pd.DataFrame(rows, columns=CONTROL_COLUMNS).sort_values("id", kind="stable")


def stage_controls(controls: pd.DataFrame, stage: int) -> pd.DataFrame:
    """Stage 1 uses every control; stage 2 only unacceptable ones with a category."""
    if stage == 1:
        return controls
    return controls[(controls["label"] == 0) & controls["error_type"].notna()]


def make_pages(
    task_ids: Sequence[str],
    control_ids: Sequence[str],
    page_size: int,
    controls_per_page: int,
    rng: np.random.Generator,
) -> list[list[tuple[str, bool]]]:
    """Shuffle tasks into pages of ``page_size - controls_per_page`` plus the controls.

    Controls come from a cycle of shuffled passes over the golden set, so no control is
    used twice before all have been used once.
    """
    per_page = int(page_size) - int(controls_per_page)
    if per_page < 1 or controls_per_page < 0:
        raise RucolaError(
            f"page_size {page_size} leaves no room for tasks beside {controls_per_page} controls"
        )
    if controls_per_page and len(control_ids) < controls_per_page:
        raise RucolaError(
            f"{len(control_ids)} control task(s) for {controls_per_page} per page",
            hint="add golden sentences to annotate.controls",
        )
    order = [task_ids[i] for i in rng.permutation(len(task_ids))]
    pool: list[str] = []
    pages = []
    for start in range(0, len(order), per_page):
        page: list[tuple[str, bool]] = [(t, False) for t in order[start : start + per_page]]
        chosen: list[str] = []
        while len(chosen) < controls_per_page:
            if not pool:
                pool = [control_ids[i] for i in rng.permutation(len(control_ids))]
            candidate = pool.pop(0)
            if candidate in chosen:
                pool.append(candidate)
                continue
            chosen.append(candidate)
        for control in chosen:
            page.insert(int(rng.integers(0, len(page) + 1)), (control, True))
        pages.append(page)
    return pages


def golden_fields(
    stage: int, control: dict[str, Any], form: Stage2Form, field: str = STAGE1_FIELD
) -> dict[str, str]:
    """The ``GOLDEN:*`` cells of a control task."""
    if stage == 1:
        return {tl.golden(field): "no" if control["label"] == 1 else "yes"}
    category = str(control["error_type"]).lower()
    return {tl.golden(f): "true" if f == category else "false" for f in form.required}


def pool_frame(
    stage: int,
    pages: list[list[tuple[str, bool]]],
    sentences: dict[str, str],
    controls: pd.DataFrame,
    form: Stage2Form,
) -> pd.DataFrame:
    """The pool in the Toloka task layout, page after page."""
    fields = [tl.golden(STAGE1_FIELD)] if stage == 1 else [tl.golden(f) for f in form.required]
    by_id = controls.set_index("id").to_dict("index")
    rows = []
    for page in pages:
        for task, is_control in page:
            row = {tl.INPUT_ID: task, tl.INPUT_SENTENCE: "", **dict.fromkeys(fields, "")}
            row[tl.HINT_TEXT] = ""
            if is_control:
                control = by_id[task]
                row[tl.INPUT_SENTENCE] = control["sentence"]
                row.update(golden_fields(stage, control, form))
                row[tl.HINT_TEXT] = control["hint"]
            else:
                row[tl.INPUT_SENTENCE] = sentences[task]
            rows.append(row)
    return pd.DataFrame(rows, columns=[tl.INPUT_ID, tl.INPUT_SENTENCE, *fields, tl.HINT_TEXT])


def export_pool(
    stage: int,
    tasks: pd.DataFrame,
    controls: pd.DataFrame,
    out_dir: str | Path,
    *,
    page_size: int,
    controls_per_page: int,
    seed: int,
    form: Stage2Form,
    run: StageRun | None = None,
) -> dict[str, Any]:
    """Write ``stage<N>_tasks.tsv``, the Label Studio ``stage<N>_tasks.json`` and
    ``stage<N>_label_config.xml``, and a manifest; returns the manifest. With ``run``, the
    pool files are staged and the manifest is left to the caller, who finishes the run
    with it as the report."""
    usable = stage_controls(controls, stage)
    overlap = set(usable["id"]) & set(tasks["id"])
    if overlap:
        raise RucolaError(f"control id {sorted(overlap)[0]!r} is also a task id")
    rng = np.random.default_rng([int(seed), stage])
    tasks = tasks.sort_values("id", kind="stable")
    pages = make_pages(
        tasks["id"].tolist(), usable["id"].tolist(), page_size, controls_per_page, rng
    )
    sentences = dict(zip(tasks["id"], tasks["sentence"], strict=True))
    pool = pool_frame(stage, pages, sentences, usable, form)
    tsv, tasks_json, config, manifest_path = pool_files(out_dir, stage)
    tl.write_toloka(pool, run.path(tsv) if run else tsv)
    label_studio = ls.tasks(pool, page_size, stage, STAGE1_FIELD)
    write_json(label_studio, run.path(tasks_json) if run else tasks_json)
    write_text(ls.label_config(stage, STAGE1_FIELD, form), run.path(config) if run else config)
    manifest = {
        "stage": stage,
        "tasks": int(len(tasks)),
        "pages": len(pages),
        "page_size": int(page_size),
        "controls_per_page": int(controls_per_page),
        "control_rows": int(sum(c for page in pages for _, c in page)),
        "distinct_controls": int(len(usable)),
        "seed": int(seed),
        "pool_id": stable_hash(*pool[tl.INPUT_ID].tolist()),
    }
    if run is None:
        write_json(manifest, manifest_path)
    return manifest


def pool_files(out_dir: str | Path, stage: int) -> tuple[Path, Path, Path, Path]:
    """The pool (Toloka TSV), its Label Studio twin (tasks and labelling config) and its
    manifest."""
    out_dir = Path(out_dir)
    return (
        out_dir / f"stage{stage}_tasks.tsv",
        out_dir / f"stage{stage}_tasks.json",
        out_dir / f"stage{stage}_label_config.xml",
        out_dir / f"stage{stage}_manifest.json",
    )


def stage2_tasks(annotated: pd.DataFrame) -> pd.DataFrame:
    """Sentences stage 1 judged unacceptable (and that have no stage-2 decision yet)."""
    chosen = annotated[
        (annotated["stage1_label"].astype("Int64") == int(UNACCEPTABLE_LABEL))
        & (annotated["n_votes_stage2"] == 0)
    ]
    return chosen[["id", "sentence"]].sort_values("id", kind="stable").reset_index(drop=True)


def _stage2_pool(settings: Annotate, run: StageRun, pools: Pools) -> pd.DataFrame:
    """The stage-2 tasks from the stage-1 answers; every stage-1 task counted."""
    votes1 = read_stage1(
        settings.stage1,
        candidate_votes(settings),
        settings.output_field,
        columns=settings.vote_columns,
    )
    result = merge_votes(
        votes1, None, method=settings.method, pools=pools, **merge_options(settings)
    )
    tasks = stage2_tasks(result.tasks)
    run.count_read(len(result.tasks))
    others = result.tasks[~result.tasks["id"].isin(tasks["id"])]
    acceptable = others["stage1_label"].astype("Int64") == 1
    run.set_aside(
        others[["id", "sentence"]].rename(columns={"id": "origin"}),
        [
            "acceptable_at_stage1" if ok else task_reason(status, reason)
            for ok, status, reason in zip(
                acceptable.fillna(False), others["status"], others["reason"], strict=True
            )
        ],
    )
    if tasks["sentence"].isna().any():
        known = read_tasks(pools.candidates).set_index("id")["sentence"]
        tasks["sentence"] = tasks["sentence"].fillna(tasks["id"].map(known))
    unknown = tasks["sentence"].isna()
    if unknown.any():
        raise RucolaError(
            f"no sentence for task {tasks.loc[unknown, 'id'].iloc[0]!r}",
            hint="the stage-1 export lacks INPUT:sentence and the candidates lack the id",
        )
    return tasks


def run_export(settings: Annotate, stage: int, pools: Pools, form: Stage2Form) -> dict[str, Any]:
    """``rucola annotate export``: a pool for ``stage`` into ``settings.export_dir``.

    Stage 1: every candidate of today's pool (``pools.candidates``; ``read`` = candidates,
    all ``kept``). Stage 2: the sentences the stage-1 answers (``settings.stage1`` and
    ``settings.votes``) judge unacceptable (``read`` = stage-1 tasks; the others set aside
    as ``acceptable_at_stage1``, ``pending:<why>`` or ``set_aside:not_in_pool``, a task
    outside today's pool: ``annotation.pools``). Returns the manifest, which names the
    golden set used (``golden_set``, null without one). The pool, its Label Studio twin
    (tasks and config) and the manifest appear together. ``form``: the stage-2 checkboxes
    (``corpus.categories``), which the controls' categories are checked against."""
    golden_path = control_path(settings.controls)
    golden = read_controls(golden_path, form)
    out_dir = settings.export_dir
    tsv, tasks_json, config, manifest_path = pool_files(out_dir, stage)
    with StageRun(STAGE, report=manifest_path, outputs=[tsv, tasks_json, config]) as run:
        if stage == 1:
            tasks = read_tasks(pools.candidates)
            run.count_read(len(tasks))
        else:
            tasks = _stage2_pool(settings, run, pools)
        run.count_kept(len(tasks))
        manifest = export_pool(
            stage,
            tasks,
            golden,
            out_dir,
            page_size=settings.page_size,
            # No golden set named (annotate.controls: []): pages without control tasks.
            controls_per_page=settings.controls_per_page if golden_path else 0,
            seed=settings.seed,
            form=form,
            run=run,
        )
        return run.finish(**manifest, golden_set=str(golden_path) if golden_path else None)
