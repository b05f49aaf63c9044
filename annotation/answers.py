"""Every answer file of a round, whatever its format, read into one table of votes.

The format is told from the file: a Toloka export (``.tsv``), a Label Studio JSON export
(``.json``), or a long table (``.csv``, and every file named in ``annotate.votes``, which
may list several votes on a row as ItaCoLA does). Its own module, above the readers, so
that the Label Studio reader can use the vote vocabulary of ``votes`` without a cycle.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from rucola.annotation import toloka as tl
from rucola.annotation.label_studio import read_export
from rucola.annotation.long_table import read_long
from rucola.annotation.votes import (
    STAGE1_FIELD,
    Stage2Form,
    check_votes,
    concat_votes,
    expand_paths,
    has_suffix,
    require_rows,
    stage1_from_toloka,
    stage2_from_toloka,
)

if TYPE_CHECKING:
    from rucola.settings import VoteColumns


def read_stage1(
    exports: Sequence[str | Path],
    long_tables: Sequence[str | Path] = (),
    field: str = STAGE1_FIELD,
    *,
    columns: VoteColumns | Mapping[str, str | None] | None = None,
) -> pd.DataFrame:
    """All stage-1 votes, the format told from the file: Toloka exports (``.tsv``), Label
    Studio exports (``.json``), long tables (``.csv``, and every file of ``long_tables``,
    read with ``columns``). Whether a task was exported is decided later, alike for every
    format (``annotation.pools``)."""
    parts = []
    for path in expand_paths(exports, (".tsv", ".csv", ".json")):
        if has_suffix(path, ".csv"):
            parts.append(read_long(path, columns))
        elif has_suffix(path, ".json"):
            parts.append(read_export(path, 1, field))
        else:
            parts.append(stage1_from_toloka(require_rows(tl.read_toloka(path), path), path, field))
    parts.extend(read_long(path, columns) for path in expand_paths(long_tables, (".csv", ".tsv")))
    votes = concat_votes(parts)
    check_votes(votes)
    return votes


def read_stage2(exports: Sequence[str | Path], form: Stage2Form) -> pd.DataFrame:
    """All stage-2 votes, in the checkboxes of ``form``: Toloka exports (``.tsv``) and
    Label Studio exports (``.json``)."""
    parts = [
        read_export(path, 2, STAGE1_FIELD, form)
        if has_suffix(path, ".json")
        else stage2_from_toloka(require_rows(tl.read_toloka(path), path), path, form)
        for path in expand_paths(exports, (".tsv", ".json"))
    ]
    votes = concat_votes(parts)
    check_votes(votes)
    return votes
