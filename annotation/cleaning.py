"""The fate of every vote: used, a control answer, or dropped with a counted reason.

Rules apply in order and the first one that matches names the fate, so the counts add up:
votes read = used + control + the sum of the drops.

0. ``not_in_pool``: the task is a candidate outside today's pool (``screen.out``)
   though in an earlier one (``annotation.pools``); nothing else about the vote is
   looked at, so such answers are never fatal (a conflicting repeat among them included).
1. ``status_<status>``: the assignment was not accepted or approved (rejected, expired,
   skipped, or still only submitted).
2. ``repeated_vote``: the worker answered the task before with the same answer;
   ``conflicting_vote``: with a different answer, and ``annotate.repeated_votes`` did not
   choose this one (``annotation.repeats``; the default policy is an error).
3. ``fast_page``: the page was submitted faster than ``min_page_seconds`` (only where the
   export has ``ASSIGNMENT:submitted``; the paper dropped stage-2 pages under 30 s).
4. ``control``: an answer to a control task; it measures the worker and is not aggregated.
5. ``low_control_accuracy``: the worker's accuracy on control tasks is at or below
   ``min_control_accuracy`` (RuCoLA kept votes only from workers above 50%); workers
   without control answers are kept (a long CSV has none) and flagged in the worker table.
6. ``not_sure``: the worker chose "not sure", which counts as no vote.
7. ``empty_answer``: a stage-2 answer with nothing checked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from rucola.annotation import toloka as tl
from rucola.annotation.pools import NOT_IN_POOL
from rucola.annotation.repeats import repeat_fates
from rucola.annotation.votes import NOT_SURE

if TYPE_CHECKING:
    from rucola.settings import RepeatedVotes

USED = "used"
CONTROL = "control"
FAST_PAGE = "fast_page"
LOW_CONTROL_ACCURACY = "low_control_accuracy"
EMPTY_ANSWER = "empty_answer"

WORKER_COLUMNS = [
    "worker",
    "answers",
    "used",
    "control_answers",
    "control_correct",
    "control_accuracy",
    "kept",
    "reason",
]


@dataclass
class Cleaned:
    """Votes with a ``fate`` column, and one row per worker."""

    votes: pd.DataFrame
    workers: pd.DataFrame

    @property
    def used(self) -> pd.DataFrame:
        return self.votes[self.votes["fate"] == USED]

    def counts(self) -> dict[str, object]:
        fates = self.votes["fate"].value_counts()
        dropped = {k: int(v) for k, v in sorted(fates.items()) if k not in (USED, CONTROL)}
        return {
            "read": int(len(self.votes)),
            "used": int(fates.get(USED, 0)),
            "control": int(fates.get(CONTROL, 0)),
            "dropped": int(sum(dropped.values())),
            "dropped_by_reason": dropped,
        }


def clean(
    votes: pd.DataFrame,
    *,
    min_control_accuracy: float,
    min_page_seconds: float | None,
    repeated_votes: RepeatedVotes = "error",
    outside: np.ndarray | None = None,
) -> Cleaned:
    """Assign every vote its fate (see the module docstring) and build the worker table.

    ``outside``: per vote, whether its task is outside today's pool (``Pools.outside``)."""
    votes = votes.copy()
    fate = np.full(len(votes), None, dtype=object)

    def assign(mask: np.ndarray | pd.Series, name: object) -> None:
        mask = np.asarray(mask, dtype=bool)
        pending = np.equal(fate, None)
        values = name if isinstance(name, np.ndarray) else np.full(len(fate), name, dtype=object)
        fate[pending & mask] = values[pending & mask]

    away = np.zeros(len(votes), dtype=bool) if outside is None else np.asarray(outside, bool)
    assign(away, NOT_IN_POOL)
    status = votes["status"].to_numpy(dtype=object)
    assign(
        ~np.isin(status, tl.KEPT_STATUSES),
        np.array([f"status_{s.lower()}" for s in status], dtype=object),
    )
    repeats = np.full(len(votes), None, dtype=object)
    repeats[~away] = repeat_fates(votes[~away], repeated_votes)
    assign(np.not_equal(repeats, None), repeats)
    if min_page_seconds is not None and min_page_seconds > 0:
        seconds = votes["seconds"].astype(float).to_numpy()
        assign(~np.isnan(seconds) & (seconds < float(min_page_seconds)), FAST_PAGE)
    is_control = votes["golden"].notna().to_numpy()
    assign(is_control, CONTROL)

    controls = votes[np.equal(fate, CONTROL)]
    correct = (
        (controls["label"] == controls["golden"]).groupby(controls["worker"]).agg(["size", "sum"])
    )
    accuracy = (correct["sum"] / correct["size"]).rename("control_accuracy")
    low = accuracy[accuracy <= float(min_control_accuracy)].index
    assign(votes["worker"].isin(low).to_numpy(), LOW_CONTROL_ACCURACY)
    labels = votes["label"].to_numpy(dtype=object)
    assign(labels == NOT_SURE, NOT_SURE)
    assign(labels == "", EMPTY_ANSWER)
    assign(np.ones(len(fate), dtype=bool), USED)
    votes["fate"] = fate

    grouped = votes.groupby("worker", sort=True)
    workers = pd.DataFrame(
        {
            "answers": grouped.size(),
            "used": grouped["fate"].apply(lambda f: int((f == USED).sum())),
        }
    )
    workers["control_answers"] = correct["size"].reindex(workers.index).fillna(0).astype("int64")
    workers["control_correct"] = correct["sum"].reindex(workers.index).fillna(0).astype("int64")
    workers["control_accuracy"] = accuracy.reindex(workers.index).astype(float)
    workers["kept"] = ~workers.index.isin(low)
    workers["reason"] = np.where(
        workers.index.isin(low),
        LOW_CONTROL_ACCURACY,
        np.where(workers["control_answers"] == 0, "no_controls", None),
    )
    workers = workers.reset_index()[WORKER_COLUMNS]
    return Cleaned(votes, workers)
