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
import pyarrow.parquet as pq

from corpus import schema
from rucola.errors import RucolaError
from rucola.io import stable_hash, write_json, write_parquet


def _ratios(params: dict[str, Any], domain: str) -> list[float]:
    ratios = params["ratios"].get(domain)
    if ratios is None:
        raise RucolaError(f"split.ratios has no entry for domain '{domain}'", "params.yaml")
    ratios = [float(r) for r in ratios]
    if len(ratios) != 3 or any(r < 0 for r in ratios) or abs(sum(ratios) - 1) > 1e-6:
        raise RucolaError(
            f"split.ratios.{domain} must be three non-negative numbers that "
            f"add up to 1, not {ratios}",
            "params.yaml",
        )
    return ratios


def assign_splits(
    frame: pd.DataFrame, ratios: list[float], seed: int, pinned: pd.Series | None = None
) -> pd.Series:
    """Split name per row of one domain (index aligned with ``frame``).

    A unit (group) goes to the split whose rows fall furthest behind the ratios, counted per
    label and weighted by the unit's own label mix, so groups that hold both an acceptable
    and an unacceptable variant keep the label shares balanced too. ``pinned`` (split name
    or None per row) fixes the split of a row's whole group; the other units fill the
    splits around them.
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
            "source": first["detailed_source"].to_numpy(),
            "error_type": first["error_type"].fillna("").to_numpy(),
        }
    )
    units["order"] = [stable_hash(str(seed), g) for g in units["group"]]
    units = units.sort_values(["label", "source", "error_type", "order"], kind="stable")
    target = np.asarray(ratios)[:, None]  # split x label
    counts = np.zeros((3, 2))
    seen = np.zeros(2)
    choice: dict[str, str] = {}
    if pinned is not None:
        fixed = pinned.dropna()
        fixed_groups = frame.loc[fixed.index, "group"].to_numpy()
        for group, split in zip(fixed_groups, fixed.to_numpy(), strict=True):
            choice.setdefault(group, split)
        for group, split in choice.items():
            sizes = mix.loc[group].to_numpy(dtype=float)
            counts[schema.SPLITS.index(split)] += sizes
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
    return frame["group"].map(choice)


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


def _pinned(frame: pd.DataFrame, pin: str | None) -> tuple[pd.Series | None, dict]:
    """Per row the split of the pinned release (or None), and what changed since it."""
    if not pin:
        return None, {}
    from corpus.pin import load_pin, sentence_key

    pins = load_pin(pin)
    keys = [sentence_key(s) for s in frame["sentence"]]
    pinned = pd.Series([pins.get(k) for k in keys], index=frame.index, dtype=object)
    removed = sorted(set(pins) - set(keys))
    return pinned, {
        "path": str(pin),
        "pinned": int(pinned.notna().sum()),
        "new": int(pinned.isna().sum()),
        "removed": len(removed),
        "removed_examples": removed[:20],
    }


def run_split(params: dict[str, Any]) -> dict[str, Any]:
    input_path = Path(params["input"])
    if not input_path.exists():
        raise RucolaError("input not found; run 'rucola filter' first", input_path)
    frame = pq.read_table(input_path).to_pandas()
    missing = [
        c
        for c in ("sentence", "label", "domain", "detailed_source", "error_type", "group")
        if c not in frame.columns
    ]
    if missing:
        raise RucolaError(f"missing column(s) {', '.join(missing)}", input_path)
    mixed = frame.groupby("group")["domain"].nunique()
    if (mixed > 1).any():
        raise RucolaError(f"group '{mixed[mixed > 1].index[0]}' spans both domains", input_path)
    frame["split"] = None
    seed = int(params["seed"])
    pinned, pin_report = _pinned(frame, params.get("pin"))
    for domain in sorted(frame["domain"].unique()):
        mask = frame["domain"] == domain
        frame.loc[mask, "split"] = assign_splits(
            frame[mask], _ratios(params, domain), seed, None if pinned is None else pinned[mask]
        )
    # Deterministic ids: within each split, rows ordered by domain and a content hash.
    frame["_order"] = [stable_hash(s) for s in frame["sentence"]]
    frame["_split"] = frame["split"].map({s: i for i, s in enumerate(schema.SPLITS)})
    frame["_domain"] = frame["domain"].map({d: i for i, d in enumerate(schema.DOMAINS)})
    frame = frame.sort_values(["_split", "_domain", "_order", "sentence"], kind="stable")
    frame["id"] = frame.groupby("split").cumcount().astype("int64")
    frame = frame.drop(columns=["_order", "_split", "_domain"]).reset_index(drop=True)
    report = {
        "rows": int(len(frame)),
        "seed": seed,
        "ratios": {d: _ratios(params, d) for d in sorted(frame["domain"].unique())},
        "domains": _distribution(frame),
    }
    if pin_report:
        report["pin"] = pin_report
    write_parquet(frame, params["out"])
    write_json(report, params["report"])
    return report
