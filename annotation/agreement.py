"""How much people agreed: WAWA per category (the paper's Table 9) and Krippendorff's alpha.

WAWA (worker agreement with aggregate) of a category is, over the sentences whose
aggregate answer is that category, each worker's share of answers equal to the aggregate,
averaged over workers. It says how clear-cut a category is for the people who judged it;
alpha says how far agreement exceeds chance over all tasks.
"""

from __future__ import annotations

import math

import pandas as pd


def _round(value: float) -> float | None:
    return None if value is None or math.isnan(value) else round(float(value), 4)


def with_aggregate(votes: pd.DataFrame, answers: pd.Series) -> pd.DataFrame:
    """Votes on tasks that have an aggregate answer, with ``agrees`` (bool)."""
    aggregate = votes["task"].map(answers)
    kept = votes[aggregate.notna()].copy()
    kept["aggregate"] = aggregate[aggregate.notna()].astype(str)
    kept["agrees"] = kept["label"].astype(str) == kept["aggregate"]
    return kept


def wawa_by_category(
    votes: pd.DataFrame, answers: pd.Series, categories: pd.Series
) -> dict[str, dict[str, float | int | None]]:
    """WAWA per category: ``answers`` and ``categories`` are indexed by task."""
    scored = with_aggregate(votes, answers)
    scored["category"] = scored["task"].map(categories)
    scored = scored[scored["category"].notna()]
    result: dict[str, dict[str, float | int | None]] = {}
    for category, rows in scored.groupby("category", sort=True):
        per_worker = rows.groupby("worker")["agrees"].mean()
        result[str(category)] = {
            "wawa": _round(per_worker.mean()),
            "tasks": int(rows["task"].nunique()),
            "votes": int(len(rows)),
            "workers": int(len(per_worker)),
        }
    if len(scored):
        per_worker = scored.groupby("worker")["agrees"].mean()
        result["overall"] = {
            "wawa": _round(per_worker.mean()),
            "tasks": int(scored["task"].nunique()),
            "votes": int(len(scored)),
            "workers": int(len(per_worker)),
        }
    return result


def worker_agreement(votes: pd.DataFrame, answers: pd.Series) -> pd.Series:
    """Each worker's share of used votes equal to the aggregate (labelled tasks only)."""
    scored = with_aggregate(votes, answers)
    return scored.groupby("worker")["agrees"].mean()


def krippendorff_alpha(votes: pd.DataFrame) -> float | None:
    """Nominal alpha over tasks with at least two votes (crowd-kit, through NLTK)."""
    data = votes[["task", "worker", "label"]].astype(str)
    data = data[data.groupby("task")["worker"].transform("size") >= 2]
    if data.empty or data["label"].nunique() < 2:
        return None
    from crowdkit.metrics.data import alpha_krippendorff

    data = data.sort_values(["task", "worker"], kind="stable").reset_index(drop=True)
    return _round(alpha_krippendorff(data))
