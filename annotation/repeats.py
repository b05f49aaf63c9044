"""One worker answering one task more than once: which of the answers is the vote.

Real exports hold such repeats: a game that showed an item to a player again (ItaCoLA has
three, each time with the same answer), a Label Studio annotator who opened a task twice,
a Toloka task reissued to the same performer. A second answer must never count as a second
opinion, so within one worker's answers to one (non-control) task:

- answers that all agree are one vote: the first is used, the others get the fate
  ``repeated_vote``;
- answers that differ follow ``annotate.repeated_votes``: ``error`` (the default: one line
  naming both rows, since the export may be wrong), ``first`` or ``last`` (in reading
  order: files sorted, rows as they appear), or ``drop`` (none of them counts). Every
  answer not used gets the fate ``conflicting_vote``.

Only answers that could count are compared: rows whose assignment was accepted or approved
and that carry an answer. Control tasks may be shown to a worker again on purpose; each
answer then only feeds the worker's control accuracy.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rucola.annotation import toloka as tl
from rucola.errors import RucolaError
from rucola.settings import RepeatedVotes

REPEATED_VOTE = "repeated_vote"
CONFLICTING_VOTE = "conflicting_vote"


def _place(row: pd.Series) -> str:
    return str(row["origin"])


def repeat_fates(votes: pd.DataFrame, policy: RepeatedVotes = "error") -> np.ndarray:
    """Per vote: ``repeated_vote``, ``conflicting_vote`` or None (not a repeat).

    Raises ``RucolaError`` naming the later row and the earlier one when answers conflict
    and ``policy`` is ``error``. ``policy`` is one of the schema's (``annotate.repeated_votes``
    is checked when params are read, ``--repeated-votes`` like it)."""
    fates = np.full(len(votes), None, dtype=object)
    if votes.empty:
        return fates
    countable = (
        votes["status"].isin(tl.KEPT_STATUSES).to_numpy()
        & votes["label"].notna().to_numpy()
        & votes["golden"].isna().to_numpy()
    )
    subset = votes[countable]
    repeated = subset.duplicated(["worker", "task"], keep=False)
    if not repeated.any():
        return fates
    position = pd.Series(np.arange(len(votes)), index=votes.index)
    for _, group in subset[repeated].groupby(["worker", "task"], sort=False):
        rows = position[group.index].to_numpy()
        if group["label"].nunique() == 1:
            fates[rows[1:]] = REPEATED_VOTE
            continue
        if policy == "error":
            first = group.iloc[0]
            other = group[group["label"] != first["label"]].iloc[0]
            line = int(other["line"])
            raise RucolaError(
                f"worker {other['worker']!r} answered task {other['task']!r} twice with "
                f"different answers: {other['label']!r} at {_place(other)}, "
                f"{first['label']!r} at {_place(first)}",
                other["source"],
                line if line > 0 else None,
                hint="set annotate.repeated_votes to first, last or drop",
            )
        fates[rows] = CONFLICTING_VOTE
        if policy == "first":
            fates[rows[0]] = None
        elif policy == "last":
            fates[rows[-1]] = None
    return fates
