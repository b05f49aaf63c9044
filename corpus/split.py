"""The split stage: stratified, group-aware, deterministic train/validation/test.

Rows that share a ``group`` (variants of one alternation, later near-duplicate clusters)
are one unit and land in one split, so no pair of minimally different sentences straddles
train and test. Units are ordered by stratum (label, source, category) and, within one, by
a seeded hash of the group; each unit then goes to the split that is furthest behind its
ratio. This is systematic sampling: split sizes and label shares match the ratios to within
one unit and every stratum is spread proportionally. Keeping earlier assignments across
releases is the job of a pin, not of this rule.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from rucola.corpus import schema
from rucola.corpus.dedup import sentence_key
from rucola.corpus.pin import id_scope, id_scopes, load_pin
from rucola.errors import RucolaError
from rucola.io import stable_hash
from rucola.params import path_list
from rucola.settings import split_ratios
from rucola.stage import StageRun, read_frame

# What the split reads of a row (the base schema's columns it sorts and stratifies by).
REQUIRED = ["sentence", "label", "domain", "detailed_source", "error_type", "group"]
TYPES = schema.SPLIT_ROW_SCHEMA  # read_frame checks the types of the columns the input has


def _ratios(params: dict[str, Any], domain: str) -> list[float]:
    ratios = params["ratios"].get(domain)
    if ratios is None:
        raise RucolaError(f"split.ratios has no entry for domain '{domain}'", "params.yaml")
    return split_ratios(ratios, f"split.ratios.{domain}")


def assign_splits(
    frame: pd.DataFrame, ratios: list[float], seed: int, pinned: pd.Series | None = None
) -> pd.Series:
    """Split name per row of one domain (index aligned with ``frame``).

    A unit (group) goes to the split whose rows fall furthest behind the ratios, counted per
    label and weighted by the unit's own label mix, so groups that hold both an acceptable
    and an unacceptable variant keep the label shares balanced too. ``pinned`` (split name
    or None per row) is hard: a pinned row keeps its split whatever its group does; the
    group's unpinned rows join its pinned rows' split (the most common one), and the other
    units fill the splits around them.
    """
    if frame.empty:
        return pd.Series([], dtype=object, index=frame.index)
    ordered = frame.sort_values(["group", "sentence"], kind="stable")
    first = ordered.groupby("group", sort=True).head(1)
    mix = pd.crosstab(ordered["group"], ordered["label"]).reindex(columns=[0, 1], fill_value=0)
    units = pd.DataFrame(
        {
            "group": first["group"].to_numpy(),
            "label": first["label"].to_numpy(),
            "source": first["detailed_source"].fillna("").to_numpy(),
            "error_type": first["error_type"].fillna("").to_numpy(),
        }
    )
    units["order"] = [stable_hash(str(seed), g) for g in units["group"]]
    units = units.sort_values(["label", "source", "error_type", "order"], kind="stable")
    target = np.asarray(ratios)[:, None]  # split x label
    counts = np.zeros((3, 2))
    seen = np.zeros(2)
    choice: dict[str, str] = {}
    fixed = pinned.dropna() if pinned is not None else pd.Series([], dtype=object)
    if len(fixed):
        pinned_rows = pd.DataFrame(
            {"group": frame.loc[fixed.index, "group"].to_numpy(), "split": fixed.to_numpy()}
        )
        pinned_rows["rank"] = pinned_rows["split"].map(schema.SPLIT_INDEX)
        tally = pinned_rows.value_counts(["group", "split", "rank"]).reset_index(name="n")
        tally = tally.sort_values(["group", "n", "rank"], ascending=[True, False, True])
        choice = dict(tally.drop_duplicates("group")[["group", "split"]].to_numpy().tolist())
        for group, split in choice.items():
            sizes = mix.loc[group].to_numpy(dtype=float)
            counts[schema.SPLIT_INDEX[split]] += sizes
            seen += sizes
        units = units[~units["group"].isin(choice)]
    for group in units["group"]:
        sizes = mix.loc[group].to_numpy(dtype=float)
        seen += sizes
        deficit = ((target * seen - counts) * sizes).sum(axis=1)
        deficit[np.asarray(ratios) == 0] = -np.inf
        index = int(np.argmax(deficit))
        counts[index] += sizes
        choice[group] = schema.SPLITS[index]
    result = frame["group"].map(choice)
    if len(fixed):
        result.loc[fixed.index] = fixed  # the pin wins over the group
    return result


def _distribution(frame: pd.DataFrame) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for domain, rows in frame.groupby("domain", sort=True):
        per_split: dict[str, Any] = {}
        for split in schema.SPLITS:
            part = rows[rows["split"] == split]
            unacceptable = part[part["label"] == schema.UNACCEPTABLE]
            per_split[split] = {
                "rows": int(len(part)),
                "share": round(len(part) / len(rows), 4),
                "acceptable_share": round(float(part["label"].mean()), 4) if len(part) else None,
                "sources": {
                    str(k): int(v)
                    for k, v in sorted(part["detailed_source"].value_counts().items())
                },
                "error_types": {
                    str(k): int(v)
                    for k, v in sorted(unacceptable["error_type"].value_counts().items())
                },
            }
        out[str(domain)] = {
            "rows": int(len(rows)),
            "acceptable_share": round(float(rows["label"].mean()), 4),
            "groups": int(rows["group"].nunique()),
            "splits": per_split,
        }
    return out


def _pins(frame: pd.DataFrame, paths: list[str]) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Per row the split and id the pins demand (``pinned_split``, ``pinned_id``; null when
    free), and what the pins list that is no longer in the data.

    A row of a published release is pinned by its own ``published_split`` and
    ``published_id``; the pins (``split.pin``) match the other rows, by published identity
    when the row has one, else by normalised text; earlier pins and earlier pin rows win.
    """
    n = len(frame)
    split = pd.Series([None] * n, index=frame.index, dtype=object)
    ids = pd.Series(pd.array([None] * n, dtype="Int64"), index=frame.index)
    if "published_split" in frame.columns:
        published = frame["published_split"].notna() & frame["published_id"].notna()
        split[published] = frame.loc[published, "published_split"]
        ids[published] = frame.loc[published, "published_id"]
    report: dict[str, Any] = {
        "published": int(split.notna().sum()),
        "paths": list(paths),
        "pinned": 0,
        "removed": 0,
        "removed_examples": [],
    }
    if not paths:
        return pd.DataFrame({"pinned_split": split, "pinned_id": ids}), report
    keys = [sentence_key(s) for s in frame["sentence"]]
    has_identity = split.notna()
    identity = [
        (sp, id_scope(sp, d), int(i)) if known else None
        for sp, d, i, known in zip(
            split, frame["domain"], ids.fillna(-1), has_identity, strict=True
        )
    ]
    by_pin = 0
    for path in paths:
        pins = load_pin(path)
        by_identity = {
            (sp, sc, int(i)): k
            for k, (sp, sc, i) in enumerate(
                zip(pins["split"], pins["scope"], pins["id"], strict=True)
            )
            if not pd.isna(i)
        }
        by_key: dict[str, int] = {}
        for k, key in enumerate(pins["key"]):
            by_key.setdefault(key, k)
        matched = np.zeros(len(pins), bool)
        for row, (key, ident) in enumerate(zip(keys, identity, strict=True)):
            k = by_identity.get(ident) if ident is not None else None
            if k is None:
                k = by_key.get(key)
            if k is None:
                continue
            matched[k] = True
            index = frame.index[row]
            if split[index] is None:
                split[index] = pins["split"].iat[k]
                if not pd.isna(pins["id"].iat[k]):
                    ids[index] = pins["id"].iat[k]
                by_pin += 1
        removed = pins.loc[~matched, "key"].tolist()
        report["removed"] += len(removed)
        report["removed_examples"] += removed[: max(0, 20 - len(report["removed_examples"]))]
    report["pinned"] = by_pin
    return pd.DataFrame({"pinned_split": split, "pinned_id": ids}), report


def _straddling(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Groups whose pinned rows sit in more than one split: the pins win, the group is
    split, and the report lists it."""
    pinned = frame[frame["pinned_split"].notna()]
    spread = pinned.groupby("group")["pinned_split"].nunique()
    out = []
    for group in sorted(spread[spread > 1].index):
        rows = frame[frame["group"] == group]
        out.append(
            {
                "group": str(group),
                "rows": [
                    {"sentence": s, "split": sp}
                    for s, sp in zip(rows["sentence"], rows["split"], strict=True)
                ],
            }
        )
    return out


def _assign_ids(frame: pd.DataFrame, seed: int) -> pd.Series:
    """Kept ids for pinned rows; new rows get ids after the largest id of their split, in
    a seeded hash order of their text, so new test ids reveal neither domain nor label."""
    ids = frame["pinned_id"].copy()
    for split in schema.SPLITS:
        in_split = (frame["split"] == split).to_numpy()
        new = frame.index[in_split & ids.isna().to_numpy()]
        if len(new) == 0:
            continue
        kept = ids[in_split].dropna()
        start = int(kept.max()) + 1 if len(kept) else 0
        order = sorted(new, key=lambda i: (stable_hash(str(seed), frame.at[i, "sentence"]), i))
        ids[order] = np.arange(start, start + len(order))
    return ids.astype("int64")


def run_split(params: dict[str, Any]) -> dict[str, Any]:
    """The stage: every row read is kept (``read == kept``), with a split and an id."""
    with StageRun("split", report=params["report"], out=params["out"]) as run:
        frame = read_frame(params["input"], hint="run 'rucola filter' first", types=TYPES)
        run.count_read(len(frame))
        frame, extra = _split(frame, params)
        return run.finish(frame, **extra)


def _split(frame: pd.DataFrame, params: dict[str, Any]) -> tuple[pd.DataFrame, dict[str, Any]]:
    input_path = Path(params["input"])
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise RucolaError(f"missing column(s) {', '.join(missing)}", input_path)
    mixed = frame.groupby("group")["domain"].nunique()
    if (mixed > 1).any():
        raise RucolaError(f"group '{mixed[mixed > 1].index[0]}' spans two domains", input_path)
    seed = int(params["seed"])
    pins, pin_report = _pins(frame, path_list(params.get("pin"), "split.pin"))
    frame["pinned_split"] = pins["pinned_split"]
    frame["pinned_id"] = pins["pinned_id"]
    unknown = frame["domain"].isna()
    if (unknown & frame["pinned_split"].isna()).any():
        row = frame[unknown & frame["pinned_split"].isna()].iloc[0]
        raise RucolaError(
            f"row without a domain and without a published split: {row.get('origin')}",
            input_path,
        )
    frame["split"] = frame["pinned_split"]  # unlabelled published test rows
    domains = sorted(frame.loc[~unknown, "domain"].unique())
    for domain in domains:
        mask = frame["domain"] == domain
        frame.loc[mask, "split"] = assign_splits(
            frame[mask], _ratios(params, domain), seed, frame.loc[mask, "pinned_split"]
        )
    frame["id"] = _assign_ids(frame, seed)
    # Rows in a fixed order: split, id scope (domain in train and validation), id.
    frame["_split"] = frame["split"].map(schema.SPLIT_INDEX)
    frame["_scope"] = id_scopes(frame)
    frame = frame.sort_values(["_split", "_scope", "id", "sentence"], kind="stable")
    frame = frame.drop(columns=["_split", "_scope", "pinned_id"]).reset_index(drop=True)
    straddling = _straddling(frame)
    report = {
        "seed": seed,
        "ratios": {d: _ratios(params, d) for d in domains},
        "domains": _distribution(frame),
        "unlabelled": {
            split: int(((frame["split"] == split) & (frame["label"] == schema.UNLABELLED)).sum())
            for split in schema.SPLITS
        },
        "pin": {
            **pin_report,
            "new": int(frame["pinned_split"].isna().sum()),
            "straddling_groups": len(straddling),
            "straddling": straddling[:50],
        },
    }
    return frame, report
