"""The corrections ledger: every row of a published release that a build changed, and why.

``release build`` writes it to the private folder (``corrections.parquet``: a test row's
cause would tell what its hidden label was); ``release diff`` reads it beside the new
release and names the cause of each change from the entry of that change's own action, so
a row both corrected at extraction and relabelled by an erratum shows each cause with its
own change.

Entries come from three places: the split row's ``corrections`` (text corrected at
extraction, e.g. homoglyphs: ``corrected``), its ``review`` (the errata applied by the split
stage, ``corpus.errata``: ``relabelled``, ``recategorised`` or ``corrected``, cause
``erratum: <reason>``), and the side files of set-aside rows (``removed``, with the reason
and detail; a row an erratum removed has the cause ``erratum: <reason>``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import pyarrow as pa

from rucola.corpus import schema
from rucola.corpus.errata import REASON as ERRATUM
from rucola.corpus.errata import REVIEW
from rucola.errors import RucolaError
from rucola.stage import read_table

if TYPE_CHECKING:
    from rucola.settings import Params

LEDGER_FILE = "corrections.parquet"
LEDGER_SCHEMA = pa.schema(
    [
        ("split", pa.string()),
        ("domain", pa.string()),
        ("id", pa.int64()),
        ("sentence", pa.string()),
        ("action", pa.string()),  # corrected | removed | relabelled | recategorised
        ("reason", pa.string()),
    ]
)
# What an erratum's change of a field is in the ledger (and in ``release diff``).
ERRATUM_ACTIONS = {"label": "relabelled", "error_type": "recategorised", "sentence": "corrected"}


# What the ledger needs of a side file of set-aside rows (``corpus.schema.SET_ASIDE_SCHEMA``;
# ``detail``, ``sentence`` and ``domain`` are read where the file has them).
LEDGER_INPUT = ["reason", "published_id", "published_split"]
LEDGER_OPTIONAL = ["detail", "sentence", "domain"]


def _rejected_files(params: Params) -> list[Path]:
    """Every side file of rows set aside on the way to the split data, and after it (the
    rows errata removed, ``split.rejected``)."""
    paths = [
        params.extract.rejected,
        params.filter.rejected,
        params.annotate.corpus.rejected,
        params.split.rejected,
    ]
    return [Path(p) for p in paths if Path(p).is_file()]


def _erratum_cause(reason: str) -> str:
    return f"{ERRATUM}: {reason}"


def _review_entries(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """One ledger entry per change an erratum made to a kept row (the split row's
    ``review``, written by ``corpus.errata``): relabelled, recategorised or corrected,
    with the erratum's reason. The row kept its published split and id."""
    if REVIEW not in frame.columns:
        return []
    entries = []
    reviewed = frame[frame[REVIEW].notna()]
    for row in reviewed.to_dict(orient="records"):
        for change in json.loads(row[REVIEW]):
            entries.append(
                {
                    "split": row["split"],
                    "domain": row["domain"] if isinstance(row["domain"], str) else None,
                    "id": int(row["id"]),
                    "sentence": row["sentence"],
                    "action": ERRATUM_ACTIONS[change["field"]],
                    "reason": _erratum_cause(change["reason"]),
                }
            )
    return entries


def corrections_ledger(frame: pd.DataFrame, params: Params) -> pa.Table:
    """Rows of a published release that this build changed, each with its cause: text
    corrected at extraction (``corrections``), a row changed by an erratum (``review``:
    relabelled, recategorised or corrected, cause ``erratum: <reason>``), or set aside with
    a reason (an erratum's removal: ``erratum: <reason>``). ``release diff`` names the cause
    of every change from it, the entry of the change's own action."""
    entries: list[dict[str, Any]] = []
    if "published_id" in frame.columns and "corrections" in frame.columns:
        corrected = frame[frame["published_id"].notna() & frame["corrections"].notna()]
        for row in corrected.itertuples(index=False):
            entries.append(
                {
                    "split": row.split,
                    "domain": row.domain,
                    "id": int(row.published_id),
                    "sentence": row.sentence,
                    "action": "corrected",
                    "reason": row.corrections,
                }
            )
    entries += _review_entries(frame)
    for path in _rejected_files(params):
        hint = "rebuild it with the stage that writes it"
        table = read_table(path, "set-aside rows", hint=hint)
        missing = [c for c in LEDGER_INPUT if c not in table.column_names]
        if missing:
            raise RucolaError(f"set-aside rows has no column {missing[0]!r}", path, hint=hint)
        rejected = table.to_pandas().reindex(columns=[*LEDGER_INPUT, *LEDGER_OPTIONAL])
        rejected = rejected[rejected["published_id"].notna()]
        for row in rejected.to_dict(orient="records"):
            detail = row.get("detail") if isinstance(row.get("detail"), str) else None
            if row["reason"] == ERRATUM and detail is not None:
                reason = _erratum_cause(detail)
            else:
                reason = row["reason"] + (f" ({detail})" if detail is not None else "")
            entries.append(
                {
                    "split": row["published_split"],
                    "domain": row.get("domain") if isinstance(row.get("domain"), str) else None,
                    "id": int(row["published_id"]),
                    "sentence": row.get("sentence"),
                    "action": "removed",
                    "reason": reason,
                }
            )
    ledger = pd.DataFrame(entries, columns=LEDGER_SCHEMA.names)
    ledger = ledger.astype(object).where(ledger.notna(), None)
    ledger = ledger.sort_values(
        ["split", "id"],
        key=lambda c: c.map(schema.SPLIT_INDEX) if c.name == "split" else c,
        kind="stable",
    )
    return pa.Table.from_pandas(ledger, schema=LEDGER_SCHEMA, preserve_index=False)
