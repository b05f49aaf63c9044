"""Stage 2: the kind of violation, by a majority per category, and the final label.

Stage-2 annotators may check several categories (multi-label). As in the RuCoLA paper,
each category is decided on its own by a strict majority of the task's usable votes; then

- a majority for ``no_violation`` relabels the sentence acceptable (stage 1 was wrong);
- several categories, ``other``, or none with a majority set the sentence aside with that
  reason, since the corpus holds exactly one category per unacceptable sentence;
- exactly one category (of the form: ``corpus.categories.out_of_domain``) labels it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rucola.annotation.aggregate import LABELLED, PENDING
from rucola.annotation.votes import NO_VIOLATION, OTHER, Stage2Form

SET_ASIDE = "set_aside"
SEVERAL = "several_categories"
NO_MAJORITY = "no_category_majority"
RELABELLED = "relabelled_acceptable"
STAGE2_TOO_FEW = "stage2_too_few_votes"
AWAITING_STAGE2 = "awaiting_stage2"
NOT_IN_STAGE2_POOL = "not_in_stage2_pool"

STAGE2_COLUMNS = [
    "task",
    "n_votes_stage2",
    "categories",
    "agreement_stage2",
    "outcome",
    "error_type",
    "reason",
]


def category_counts(used: pd.DataFrame, form: Stage2Form) -> pd.DataFrame:
    """Per task, how many usable votes checked each category (and ``no_violation``)."""
    fields = form.required
    parts = used["label"].astype(str).str.split("|")
    rows = pd.DataFrame(
        {f: parts.map(lambda checked, f=f: f in checked).astype("int64") for f in fields}
    )
    rows["task"] = used["task"].to_numpy()
    rows["n"] = 1
    return rows.groupby("task", sort=True)[[*fields, "n"]].sum()


def aggregate_stage2(used: pd.DataFrame, min_votes: int, form: Stage2Form) -> pd.DataFrame:
    """One row per task with stage-2 votes: the outcome and, when labelled, the category.

    ``outcome`` is ``unacceptable`` (with ``error_type``), ``acceptable`` (relabelled),
    ``pending`` or ``set_aside`` (``reason`` says why); ``categories`` lists the
    categories with a majority; ``agreement_stage2`` is the share of votes that gave
    exactly the aggregate answer.
    """
    if used.empty:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in STAGE2_COLUMNS})
    counts = category_counts(used, form)
    n = counts["n"].to_numpy()
    majority = counts[form.required].to_numpy() * 2 > n[:, None]
    rows = []
    exact = used.groupby(["task", "label"]).size()
    for i, task in enumerate(counts.index):
        chosen = [f for f, m in zip(form.required, majority[i], strict=True) if m]
        categories = [c for c in chosen if c != NO_VIOLATION]
        answer = NO_VIOLATION if NO_VIOLATION in chosen else "|".join(categories)
        agreement = float(exact.get((task, answer), 0)) / n[i] if answer else np.nan
        outcome, error_type, reason = _decide(int(n[i]), chosen, categories, min_votes, form)
        rows.append((task, int(n[i]), "|".join(chosen), agreement, outcome, error_type, reason))
    return pd.DataFrame(rows, columns=STAGE2_COLUMNS)


def _decide(
    n: int, chosen: list[str], categories: list[str], min_votes: int, form: Stage2Form
) -> tuple[str, str | None, str | None]:
    if n < int(min_votes):
        return PENDING, None, STAGE2_TOO_FEW
    if NO_VIOLATION in chosen:
        return "acceptable", None, RELABELLED
    if len(categories) > 1:
        return SET_ASIDE, None, SEVERAL
    if categories == [OTHER]:
        return SET_ASIDE, None, OTHER
    if not categories:
        return SET_ASIDE, None, NO_MAJORITY
    return "unacceptable", form.error_type(categories[0]), None


def combine(
    stage1: pd.DataFrame, stage2: pd.DataFrame, *, single_round: bool = False
) -> pd.DataFrame:
    """The final label of every stage-1 task, given the stage-2 outcomes.

    A stage-1 acceptable task is labelled; a stage-1 unacceptable one takes its stage-2
    outcome, and stays ``pending`` (``awaiting_stage2``) while it has no stage-2 votes.
    ``single_round`` (the corpus declares no categories for the rows a crowd labels):
    there is no stage 2 to ask, so stage 1 is final, unacceptable rows without a category.
    ``stage1_label`` keeps the stage-1 decision for the record.
    """
    result = stage1.copy()
    result["stage1_label"] = result["label"]
    if single_round:
        result["n_votes_stage2"] = 0
        result["categories"] = None
        result["agreement_stage2"] = np.nan
        result["error_type"] = None
        result["label"] = result["label"].astype("Int64")
        return result
    renamed = stage2.rename(columns={"error_type": "error_type_s2", "reason": "reason_s2"})
    merged = result.merge(renamed, on="task", how="left", validate="one_to_one")
    merged["n_votes_stage2"] = merged["n_votes_stage2"].fillna(0).astype("int64")
    merged["error_type"] = None
    unacceptable = (merged["status"] == LABELLED) & (merged["stage1_label"] == 0)
    outcome = merged["outcome"]

    def update(mask: pd.Series, **values: object) -> None:
        for column, value in values.items():
            merged.loc[mask, column] = value

    update(unacceptable & outcome.isna(), status=PENDING, reason=AWAITING_STAGE2)
    update(unacceptable & (outcome == PENDING), status=PENDING)
    update(unacceptable & (outcome == SET_ASIDE), status=SET_ASIDE)
    update(unacceptable & (outcome == "acceptable"), label=1)
    mask = unacceptable & outcome.isin([PENDING, SET_ASIDE, "acceptable", "unacceptable"])
    merged.loc[mask, "reason"] = merged.loc[mask, "reason_s2"]
    done = unacceptable & (outcome == "unacceptable")
    merged.loc[done, "error_type"] = merged.loc[done, "error_type_s2"]
    merged.loc[merged["status"] != LABELLED, "label"] = pd.NA
    set_aside = merged["status"] == SET_ASIDE
    merged.loc[set_aside, "status"] = SET_ASIDE + ":" + merged.loc[set_aside, "reason"].astype(str)
    merged["label"] = merged["label"].astype("Int64")
    return merged.drop(columns=["outcome", "error_type_s2", "reason_s2"])
