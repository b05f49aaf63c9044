"""Votes from a long table: one row per vote (``task,worker,label[,golden]``), or several.

The generic answer format of ``annotate.votes`` (and of any ``.csv`` among the answers):
``annotate.vote_columns`` names the file's own columns for ours, so a published table is
read as it comes, and with its ``separator`` a row may list several votes (ItaCoLA).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from rucola.annotation import toloka as tl
from rucola.annotation.votes import (
    LONG_STAGE1,
    assemble,
    has_suffix,
    map_answer,
    require_rows,
)
from rucola.errors import RucolaError
from rucola.settings import DOMAINS, VoteColumns
from rucola.settings.corpus import DEFAULT_SPLITS

# Our columns of a vote, each named in the file as ``annotate.vote_columns`` says.
OURS = ("task", "worker", "label", "golden", "sentence", "split", "domain")
# The row a human evaluation's vote names may be given whole: its split and domain.
ROW_KEY = ("split", "domain")
VOTE_NUMBER = "_vote"  # a vote's position in a row that lists several (1-based)


def vote_columns(columns: VoteColumns | Mapping[str, str | None] | None) -> VoteColumns:
    """The file's column names: ``annotate.vote_columns`` as the params give it, or a
    partial mapping (a script's, a benchmark's) over its defaults, checked by the schema."""
    if columns is None:
        return VoteColumns()
    if isinstance(columns, VoteColumns):
        return columns
    return VoteColumns.model_validate(dict(columns))


def _canonical_columns(frame: pd.DataFrame, columns: VoteColumns, path: str | Path) -> pd.DataFrame:
    """Rename the file's columns (matched in any case) to ours: ``task``, ``worker``..."""
    renames = {}
    for ours in OURS:
        theirs = str(getattr(columns, ours)).strip().lower()
        if theirs != ours and theirs in frame.columns:
            if ours in frame.columns:
                raise RucolaError(
                    f"column {ours!r} is there, and annotate.vote_columns.{ours} names "
                    f"{theirs!r} too",
                    path,
                    1,
                    hint=f"rename one, or set annotate.vote_columns.{ours}: {ours}",
                )
            renames[theirs] = ours
    frame = frame.rename(columns=renames)
    missing = [c for c in ("task", "worker", "label") if c not in frame.columns]
    if missing:
        wanted = ", ".join(str(getattr(columns, c)) for c in missing)
        present = ", ".join(c for c in frame.columns if c != tl.LINE)
        raise RucolaError(
            f"missing column(s) {wanted}",
            path,
            1,
            hint=f"the header has {present}; annotate.vote_columns maps the names",
        )
    return frame


def _split_votes(frame: pd.DataFrame, separator: str | None, path: str | Path) -> pd.DataFrame:
    """One row per vote: a row whose worker cell lists several workers (``a,b,c``) and
    whose label cell lists as many answers (``1,0,1``) becomes that many rows, in order."""
    frame[VOTE_NUMBER] = 1
    if not separator or not frame["worker"].str.contains(separator, regex=False).any():
        return frame
    workers = frame["worker"].str.split(separator, regex=False)
    labels = frame["label"].str.split(separator, regex=False)
    for i, (who, what) in enumerate(zip(workers, labels, strict=True)):
        if len(who) != len(what):
            raise RucolaError(
                f"{len(what)} answer(s) for {len(who)} worker(s): {frame['label'].iat[i]!r} "
                f"by {frame['worker'].iat[i]!r}",
                path,
                int(frame[tl.LINE].iat[i]),
                hint="a row listing several votes needs one answer per worker, in order",
            )
    frame = frame.assign(
        worker=workers,
        label=labels,
        **{VOTE_NUMBER: [list(range(1, len(w) + 1)) for w in workers]},
    )
    return frame.explode(["worker", "label", VOTE_NUMBER], ignore_index=True)


def read_long(
    path: str | Path, columns: VoteColumns | Mapping[str, str | None] | None = None
) -> pd.DataFrame:
    """Stage-1 votes from the generic long table ``task,worker,label[,golden]``.

    Optional columns: ``sentence``, ``assignment``, ``status``, ``started``, ``submitted``.
    Comma-separated, or tab-separated when the file ends in ``.tsv``. ``columns``
    (``annotate.vote_columns``) names the file's own columns for ours, so a published table
    is read as it comes; with its ``separator``, a row may list several votes (ItaCoLA:
    ``1,1,0`` by ``vj6buGww,HQ8yy7gw,OeynLncz``), each then its own vote with its own
    assignment (``FILE:LINE#N``).
    """
    columns = vote_columns(columns)
    frame = tl.read_table(path, "\t" if has_suffix(path, ".tsv") else ",")
    frame.columns = [c if c == tl.LINE else c.strip().lower() for c in frame.columns]
    frame = _canonical_columns(frame, columns, path)
    require_rows(frame, path)
    frame = _split_votes(frame, columns.separator, path)
    several = frame.groupby(tl.LINE)[VOTE_NUMBER].transform("size") > 1
    source = str(path)
    if several.any():
        base = (
            frame["assignment"].str.strip()
            if "assignment" in frame.columns
            else source + ":" + frame[tl.LINE].astype(str)
        )
        frame["assignment"] = base.where(~several, base + "#" + frame[VOTE_NUMBER].astype(str))
    optional = {c: c if c in frame.columns else None for c in ("assignment", "status")}
    answered = (
        frame["status"].str.strip().str.upper().replace("", "ACCEPTED").isin(tl.ANSWERED_STATUSES)
        if optional["status"]
        else pd.Series(True, index=frame.index)
    )
    labels: list[str | None] = []
    goldens: list[str | None] = []
    for i, (value, line) in enumerate(zip(frame["label"], frame[tl.LINE], strict=True)):
        line = int(line)
        labels.append(
            map_answer(value, LONG_STAGE1, "label", path, line) if answered.iat[i] else None
        )
        gold = frame["golden"].iat[i].strip() if "golden" in frame.columns else ""
        goldens.append(map_answer(gold, LONG_STAGE1, "golden", path, line) if gold else None)
    votes = assemble(
        frame,
        path,
        task="task",
        worker="worker",
        labels=labels,
        goldens=goldens,
        sentence="sentence" if "sentence" in frame.columns else None,
        assignment=optional["assignment"],
        status=optional["status"],
        started="started" if "started" in frame.columns else None,
        submitted="submitted" if "submitted" in frame.columns else None,
    )
    votes["origin"] = votes["origin"].where(
        ~several.to_numpy(), votes["origin"] + " (vote " + frame[VOTE_NUMBER].astype(str) + ")"
    )
    for column in ROW_KEY:
        if column in frame.columns:
            votes[column] = _row_key(frame, column, path)
    return votes


def _row_key(frame: pd.DataFrame, column: str, path: str | Path) -> list[str | None]:
    """A vote's ``split`` (``train``, ``dev``/``validation``, ``test``) or ``domain`` (one
    of the corpus's domains), checked; an empty cell gives none."""
    allowed = DEFAULT_SPLITS if column == "split" else {d: d for d in DOMAINS}
    values: list[str | None] = []
    for value, line in zip(frame[column], frame[tl.LINE], strict=True):
        text = str(value).strip()
        if not text:
            values.append(None)
            continue
        if text.lower() not in allowed:
            raise RucolaError(
                f"unknown {column} {text!r}",
                path,
                int(line),
                hint=f"expected one of {', '.join(sorted(set(allowed)))}, or an empty cell",
            )
        values.append(allowed[text.lower()])
    return values
