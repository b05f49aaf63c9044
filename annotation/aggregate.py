"""Stage 1: one label per task from the used votes, through crowd-kit.

``majority`` is the default because RuCoLA used it; ``dawid_skene``, ``wawa`` and ``glad``
weigh workers by their estimated skill, which helps when some workers answer at random.
Whatever the method, a task with fewer than ``min_votes`` usable votes, or whose two labels
come out equally likely (a tie), is ``pending``: it needs more answers, never a guess.

The skill models see every used vote (tasks below ``min_votes`` included, since they still
tell about workers). Input is sorted by task and worker, and the EM methods start from the
majority vote, so the same votes give the same labels on every run.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import get_args

import numpy as np
import pandas as pd

from rucola.determinism import rounded
from rucola.errors import RucolaError
from rucola.settings import AggregationMethod

# The schema's list (``annotate.method``), so a method added there is one place to add.
METHODS: tuple[str, ...] = get_args(AggregationMethod)
LABELLED = "labelled"
PENDING = "pending"
TOO_FEW_VOTES = "too_few_votes"
TIE = "tie"

RESULT_COLUMNS = [
    "task",
    "label",
    "n_votes",
    "share_acceptable",
    "agreement",
    "confidence",
    "status",
    "reason",
]


def check_method(method: str) -> str:
    """``method`` if crowd-kit runs it here. Params are checked by the schema already; this
    guards the library callers (benchmarks, the simulation) that pass a method as text."""
    if method not in METHODS:
        raise RucolaError(
            f"unknown aggregation method {method!r}", hint=f"choose one of {', '.join(METHODS)}"
        )
    return method


def _aggregator(method: str):  # noqa: ANN202 - crowd-kit classes share no public base type
    from crowdkit.aggregation import GLAD, DawidSkene, MajorityVote, Wawa

    return {
        "majority": MajorityVote,
        "dawid_skene": lambda: DawidSkene(n_iter=100),
        "wawa": Wawa,
        "glad": GLAD,
    }[method]()


def label_probabilities(votes: pd.DataFrame, method: str) -> pd.DataFrame:
    """Per task, the probability of label 0 and of label 1 under ``method``."""
    check_method(method)
    data = (
        votes[["task", "worker", "label"]]
        .astype({"task": str, "worker": str, "label": "int64"})
        .sort_values(["task", "worker"], kind="stable")
        .reset_index(drop=True)
    )
    if data.empty:
        return pd.DataFrame(columns=[0, 1], dtype=float)
    if data["label"].nunique() == 1 and method != "majority":
        method = "majority"  # the skill models are undefined with one label
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # crowd-kit 1.4.2 uses pandas APIs pandas 3 deprecates
        probas = _aggregator(method).fit_predict_proba(data)
    probas = probas.reindex(columns=[0, 1], fill_value=0.0).fillna(0.0).astype(float)
    # Dawid-Skene's EM and GLAD's gradients end in CPU-dependent last bits: rounded before
    # a label is chosen or a confidence written (rucola.determinism)
    probas = pd.DataFrame(rounded(probas.to_numpy()), index=probas.index, columns=probas.columns)
    probas.index = probas.index.astype(str)
    probas.columns = [0, 1]
    return probas.sort_index()


def aggregate_stage1(
    used: pd.DataFrame, tasks: Sequence[str], method: str, min_votes: int
) -> pd.DataFrame:
    """One row per task in ``tasks`` (sorted): label or pending, with the soft label.

    ``used`` holds the votes that survived cleaning, labels ``"0"``/``"1"``.
    ``share_acceptable`` is the raw share of acceptable votes (the soft label);
    ``agreement`` the share of votes equal to the label (for a pending task, the larger
    side); ``confidence`` the method's probability of the label.
    """
    check_method(method)
    votes = used.assign(label=used["label"].astype("int64"))
    counts = votes.groupby("task")["label"].agg(["size", "sum"])
    probas = label_probabilities(votes, method)
    index = pd.Index(sorted(set(tasks) | set(counts.index)), name="task", dtype=object)
    n = counts["size"].reindex(index).fillna(0).astype("int64")
    n_acceptable = counts["sum"].reindex(index).fillna(0).astype("int64")
    p1 = probas[1].reindex(index).fillna(0.5).to_numpy()
    p0 = probas[0].reindex(index).fillna(0.5).to_numpy()

    share = np.where(n > 0, n_acceptable / np.maximum(n, 1), np.nan)
    tie = np.isclose(p0, p1, rtol=0.0, atol=1e-9)
    few = n.to_numpy() < int(min_votes)
    label = np.where(p1 > p0, 1, 0)
    status = np.where(few | tie, PENDING, LABELLED)
    reason = np.where(few, TOO_FEW_VOTES, np.where(tie, TIE, None))
    agree_label = np.where(label == 1, share, 1 - share)
    agreement = np.where(status == LABELLED, agree_label, np.maximum(share, 1 - share))
    result = pd.DataFrame(
        {
            "task": index.to_numpy(),
            "label": pd.array(np.where(status == LABELLED, label, 0), dtype="Int64"),
            "n_votes": n.to_numpy(),
            "share_acceptable": share,
            "agreement": agreement,
            "confidence": np.maximum(p0, p1),
            "status": status,
            "reason": reason,
        }
    )
    result.loc[result["status"] != LABELLED, "label"] = pd.NA
    return result[RESULT_COLUMNS]
