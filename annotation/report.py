"""``reports/annotation.json``, the worker table and the agreement plot.

The report accounts for every vote read (used, control, or dropped by reason), every task
(by status and reason), every worker (kept or dropped and why), and the agreement figures
the paper reports: WAWA per category (its Table 9) and Krippendorff's alpha.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from rucola.annotation.agreement import (
    krippendorff_alpha,
    wawa_by_category,
    worker_agreement,
)
from rucola.annotation.cleaning import USED, WORKER_COLUMNS, Cleaned
from rucola.annotation.result import MergeResult, status_counts
from rucola.annotation.votes import NO_VIOLATION
from rucola.io import atomic_path, write_text

if TYPE_CHECKING:
    from rucola.settings import Annotate

WORKER_TABLE_COLUMNS = [
    "stage",
    *WORKER_COLUMNS[:-2],
    "agreement_with_aggregate",
    "kept",
    "reason",
]


def _round(value: Any) -> float | None:
    if value is None or (isinstance(value, float) and math.isnan(value)) or pd.isna(value):
        return None
    return round(float(value), 4)


def stage_answers(result: MergeResult) -> tuple[pd.Series, pd.Series, pd.Series, pd.Series]:
    """Aggregate answers and categories per task, stage 1 and stage 2."""
    tasks = result.tasks.set_index("id")
    decided1 = tasks["stage1_label"].dropna().astype("int64")
    answers1 = decided1.astype(str)
    categories1 = decided1.map({1: "acceptable", 0: "unacceptable"})
    typed = tasks["error_type"].dropna()
    relabelled = tasks.index[(tasks["stage1_label"] == 0) & (tasks["label"] == 1)]
    answers2 = pd.concat(
        [typed.str.lower(), pd.Series(NO_VIOLATION, index=relabelled, dtype=object)]
    )
    categories2 = pd.concat([typed, pd.Series(NO_VIOLATION, index=relabelled, dtype=object)])
    return answers1, categories1, answers2, categories2


def _workers(cleaned: Cleaned, answers: pd.Series, stage: int) -> pd.DataFrame:
    table = cleaned.workers.copy()
    agreement = worker_agreement(cleaned.votes[cleaned.votes["fate"] == USED], answers)
    table["agreement_with_aggregate"] = table["worker"].map(agreement).astype(float)
    table.insert(0, "stage", stage)
    return table[WORKER_TABLE_COLUMNS]


def worker_table(result: MergeResult) -> pd.DataFrame:
    answers1, _, answers2, _ = stage_answers(result)
    parts = [_workers(result.stage1, answers1, 1)]
    if result.stage2 is not None:
        parts.append(_workers(result.stage2, answers2, 2))
    return pd.concat(parts, ignore_index=True).sort_values(["stage", "worker"], kind="stable")


def _worker_summary(table: pd.DataFrame) -> dict[str, Any]:
    dropped = table[~table["kept"]]
    return {
        "total": int(len(table)),
        "kept": int(table["kept"].sum()),
        "dropped": int(len(dropped)),
        "dropped_by_reason": {
            str(k): int(v) for k, v in sorted(dropped["reason"].value_counts().items())
        },
        "without_controls": int((table["control_answers"] == 0).sum()),
    }


def _reasons(tasks: pd.DataFrame, prefix: str) -> dict[str, int]:
    rows = tasks[tasks["status"].str.startswith(prefix)]
    return {str(k): int(v) for k, v in sorted(rows["reason"].value_counts().items())}


def has_answers(result: MergeResult) -> bool:
    """Whether any answer was read: without one, no annotation round was used."""
    stages = [result.stage1] if result.stage2 is None else [result.stage1, result.stage2]
    return any(len(cleaned.votes) for cleaned in stages)


def build_report(result: MergeResult, settings: Annotate) -> dict[str, Any]:
    """The report; ``has_answers`` is false (and every count zero) when no answers were
    read, e.g. when params name none: the dataset card (``release.card``) then has no
    annotation section."""
    tasks = result.tasks
    answers1, categories1, answers2, categories2 = stage_answers(result)
    used1 = result.stage1.used
    labelled = tasks[tasks["status"] == "labelled"]
    table = worker_table(result)
    report: dict[str, Any] = {
        "has_answers": has_answers(result),
        "method": result.method,
        "params": {
            k: getattr(settings, k)
            for k in ("min_votes", "min_control_accuracy", "min_page_seconds")
        },
        "votes": {"stage1": result.stage1.counts()},
        "tasks": {
            "total": int(len(tasks)),
            "by_status": status_counts(tasks),
            "pending_by_reason": _reasons(tasks, "pending"),
            "labelled": {
                "acceptable": int((labelled["label"] == 1).sum()),
                "unacceptable": int((labelled["label"] == 0).sum()),
                "by_error_type": {
                    str(k): int(v) for k, v in sorted(labelled["error_type"].value_counts().items())
                },
                "relabelled_by_stage2": int(
                    ((labelled["stage1_label"] == 0) & (labelled["label"] == 1)).sum()
                ),
            },
            "mean_share_acceptable": _round(tasks["share_acceptable"].mean()),
        },
        "agreement": {
            "stage1": {
                "wawa": wawa_by_category(used1, answers1, categories1),
                "krippendorff_alpha": krippendorff_alpha(used1),
            }
        },
        "workers": {"stage1": _worker_summary(table[table["stage"] == 1])},
        # Per worker without the worker: this report is tracked by git, so raw worker ids
        # stay in the private worker table (``annotate.workers``).
        "control_accuracies": sorted(
            round(float(a), 4) for a in table["control_accuracy"] if pd.notna(a)
        ),
    }
    if not report["has_answers"]:
        report["note"] = "no annotation answers were read: no annotation round was used"
    if result.stage2 is not None:
        used2 = result.stage2.used
        report["votes"]["stage2"] = result.stage2.counts()
        report["agreement"]["stage2"] = {
            "wawa": wawa_by_category(used2, answers2, categories2),
            "krippendorff_alpha": krippendorff_alpha(used2),
        }
        report["workers"]["stage2"] = _worker_summary(table[table["stage"] == 2])
    return report


def public_report(report: dict[str, Any]) -> dict[str, Any]:
    """What git may track of the annotation report (and the card shows): everything but
    what is counted per label or category of the tasks, since the aggregated labels of
    the candidates that become test rows are hidden. Agreement stays, overall per stage;
    per label and category it goes to the private report."""
    public = {**report, "tasks": dict(report["tasks"])}
    public["tasks"].pop("labelled", None)
    public["tasks"].pop("mean_share_acceptable", None)
    public["agreement"] = {
        stage: {
            **info,
            "wawa": {k: v for k, v in (info.get("wawa") or {}).items() if k == "overall"},
        }
        for stage, info in report.get("agreement", {}).items()
    }
    return public


def write_workers(result: MergeResult, path: str | Path) -> None:
    table = worker_table(result).copy()
    for column in ("control_accuracy", "agreement_with_aggregate"):
        table[column] = table[column].round(4)
    write_text(table.to_csv(index=False, lineterminator="\n"), path)


def agreement_rows(report: dict[str, Any]) -> pd.DataFrame:
    rows = []
    for stage, info in sorted(report["agreement"].items()):
        for category, values in sorted(info["wawa"].items()):
            rows.append({"category": f"{stage}:{category}", "wawa": values["wawa"]})
    return pd.DataFrame(rows, columns=["category", "wawa"])


def write_agreement_plot(
    report: dict[str, Any], csv_path: str | Path, png_path: str | Path
) -> None:
    """WAWA per category (CSV for ``dvc plots``, PNG) and the workers' control accuracy."""
    rows = agreement_rows(report)
    write_text(rows.to_csv(index=False, lineterminator="\n"), csv_path)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not report.get("has_answers", True):
        # No round: the CSV has its header only, the PNG says so (not a broken image).
        fig, note = plt.subplots(figsize=(10, 4), dpi=100)
        note.axis("off")
        note.text(0.5, 0.5, "No annotation answers: no annotation round was used.", ha="center")
    else:
        fig = _draw_agreement(plt, report, rows)
    fig.tight_layout()
    with atomic_path(png_path) as tmp:
        fig.savefig(tmp, format="png", metadata={"Software": None})
    plt.close(fig)


def _draw_agreement(plt: Any, report: dict[str, Any], rows: pd.DataFrame) -> Any:
    """The agreement figure: WAWA per category (left), workers by control accuracy (right,
    integer counts)."""
    from matplotlib.ticker import MaxNLocator

    accuracy = report["control_accuracies"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), dpi=100)
    left.barh(rows["category"], rows["wawa"].fillna(0.0), color="tab:blue")
    left.set_xlim(0, 1)
    left.set_xlabel("WAWA (worker agreement with aggregate)")
    left.set_title("Agreement per category")
    left.invert_yaxis()
    right.hist(accuracy, bins=[i / 10 for i in range(11)], color="tab:gray")
    threshold = report["params"].get("min_control_accuracy")
    if threshold is not None:
        right.axvline(float(threshold), color="tab:red", linestyle="--", label="threshold")
        right.legend()
    right.set_xlabel("control accuracy")
    right.set_ylabel("workers")
    # workers are counted: a few of them would otherwise get ticks at 0.5, 1.5, ...
    right.yaxis.set_major_locator(MaxNLocator(integer=True))
    right.set_title("Workers on control tasks")
    return fig
