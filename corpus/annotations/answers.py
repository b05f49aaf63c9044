"""Every answer file of a round, whatever its format, read into one table of votes.

The format is told from the file: a Toloka export (``.tsv``), a Label Studio JSON export
(``.json``), or a long table (``.csv``, and every file named in ``annotate.votes``, which
may list several votes on a row as ItaCoLA does). Its own module, above the readers, so
that the Label Studio reader can use the vote vocabulary of ``votes`` without a cycle.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path

import pandas as pd

from rucola.corpus.annotations import toloka as tl
from rucola.corpus.annotations.label_studio import read_export
from rucola.corpus.annotations.votes import (
    STAGE1_FIELD,
    check_votes,
    concat_votes,
    expand_paths,
    has_suffix,
    read_long,
    require_rows,
    stage1_from_toloka,
    stage2_from_toloka,
)

# The ids of the sentences we exported, asked for only when a Label Studio export is read
# (reading them needs the candidates, which a Toloka-only round does without).
KnownTasks = Callable[[], Collection[str]]


def _known(known_tasks: KnownTasks | None) -> Collection[str] | None:
    return None if known_tasks is None else known_tasks()


def read_stage1(
    exports: Sequence[str | Path],
    long_tables: Sequence[str | Path] = (),
    field: str = STAGE1_FIELD,
    *,
    columns: Mapping[str, str | None] | None = None,
    known_tasks: KnownTasks | None = None,
) -> pd.DataFrame:
    """All stage-1 votes, the format told from the file: Toloka exports (``.tsv``), Label
    Studio exports (``.json``), long tables (``.csv``, and every file of ``long_tables``,
    read with ``columns``). ``known_tasks`` gives the ids we exported, asked only when a
    Label Studio export is read (a task to label with another id is an error)."""
    parts = []
    for path in expand_paths(exports, (".tsv", ".csv", ".json")):
        if has_suffix(path, ".csv"):
            parts.append(read_long(path, columns))
        elif has_suffix(path, ".json"):
            parts.append(read_export(path, 1, field, _known(known_tasks)))
        else:
            parts.append(stage1_from_toloka(require_rows(tl.read_toloka(path), path), path, field))
    parts.extend(read_long(path, columns) for path in expand_paths(long_tables, (".csv", ".tsv")))
    votes = concat_votes(parts)
    check_votes(votes)
    return votes


def read_stage2(
    exports: Sequence[str | Path], *, known_tasks: KnownTasks | None = None
) -> pd.DataFrame:
    """All stage-2 votes: Toloka exports (``.tsv``) and Label Studio exports (``.json``)."""
    parts = [
        read_export(path, 2, STAGE1_FIELD, _known(known_tasks))
        if has_suffix(path, ".json")
        else stage2_from_toloka(require_rows(tl.read_toloka(path), path), path)
        for path in expand_paths(exports, (".tsv", ".json"))
    ]
    votes = concat_votes(parts)
    check_votes(votes)
    return votes
