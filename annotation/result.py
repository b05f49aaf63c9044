"""What a merge of answers gives: the task table and the cleaned votes of each stage.

Its own module so that ``merge`` (which computes it) and ``report`` (which describes it)
both import it, and neither imports the other in a circle.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from rucola.annotation.cleaning import Cleaned


@dataclass
class MergeResult:
    tasks: pd.DataFrame  # one row per task, ``merge.ANNOTATED_SCHEMA``
    stage1: Cleaned
    stage2: Cleaned | None
    method: str


def status_counts(tasks: pd.DataFrame) -> dict[str, int]:
    return {str(k): int(v) for k, v in sorted(tasks["status"].value_counts().items())}
