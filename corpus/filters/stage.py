"""The filter stage: thresholds over measured attributes, a side file for the rejected."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from corpus.filters.base import FilterOutcome, apply_rules
from corpus.filters.duplicates import find_duplicates
from corpus.filters.frequency import HighFrequencyShareRule, high_freq_share
from corpus.filters.length import TokenCountRule
from corpus.plots import token_length_histogram
from corpus.schema import OUT_OF_DOMAIN
from rucola.errors import RucolaError
from rucola.io import write_json, write_parquet


def build_rules(params: dict[str, Any]) -> list:
    try:
        return [
            TokenCountRule(int(params["min_tokens"]), int(params["max_tokens"])),
            HighFrequencyShareRule(float(params["min_high_freq_share"])),
        ]
    except ValueError as exc:
        raise RucolaError(str(exc), "params.yaml") from None


def _with_defaults(frame: pd.DataFrame) -> pd.DataFrame:
    """Candidates (not yet labelled) lack the corpus columns the duplicate step reads."""
    if "domain" not in frame:
        frame["domain"] = OUT_OF_DOMAIN
    if "origin" not in frame:
        frame["origin"] = (
            frame["candidate_id"] if "candidate_id" in frame else frame.index.astype(str)
        )
    if "group" not in frame:
        frame["group"] = frame["origin"]
    return frame


def _read_reference(paths: list[str] | None) -> pd.DataFrame | None:
    if not paths:
        return None
    frames = []
    for path in paths:
        if not Path(path).is_file():
            raise RucolaError("reference file not found", path)
        table = pq.read_table(path)
        if "sentence" not in table.column_names:
            raise RucolaError("no 'sentence' column in the reference file", path)
        frame = table.select(["sentence"]).to_pandas()
        frame["origin"] = (
            table.column("origin").to_pandas() if "origin" in table.column_names else path
        )
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def _set_aside_duplicates(outcome: FilterOutcome, params: dict[str, Any]) -> dict[str, Any]:
    """Move duplicates of kept rows from ``outcome.kept`` to ``outcome.rejected``."""
    settings = params["near_duplicates"]
    kept = _with_defaults(outcome.kept)
    found = find_duplicates(kept, settings, _read_reference(params.get("reference")))
    drop = ~np.equal(found.reason, None)
    kept["group"] = found.group
    moved = kept.loc[drop].copy()
    moved.insert(0, "reason", found.reason[drop].astype(str))
    moved["near_duplicate_of"] = found.of[drop]
    outcome.kept = kept.loc[~drop]
    outcome.rejected = pd.concat([outcome.rejected, moved], ignore_index=True)
    for reason in moved["reason"]:
        outcome.counts[reason] += 1
    return {
        "clusters": found.clusters,
        "duplicate": int((found.reason == "duplicate").sum()),
        "near_duplicate": int((found.reason == "near_duplicate").sum()),
        "settings": {k: settings[k] for k in sorted(settings)},
    }


def run_filter(params: dict[str, Any]) -> dict[str, Any]:
    input_path = Path(params["input"])
    if not input_path.exists():
        raise RucolaError("input not found; run 'rucola measure' first", input_path)
    table = pq.read_table(input_path)
    for column in ("n_tokens", "word_ipm"):
        if column not in table.column_names:
            raise RucolaError(f"no '{column}' attribute; run 'rucola measure' first", input_path)
    share = high_freq_share(table.column("word_ipm"), float(params["min_ipm"]))
    frame = table.drop_columns("word_ipm").to_pandas()
    frame["high_freq_share"] = share
    rules = build_rules(params)
    outcome = apply_rules(frame, rules)
    duplicates = _set_aside_duplicates(outcome, params)
    report = {
        "read": int(len(frame)),
        "kept": int(len(outcome.kept)),
        "rejected": int(len(outcome.rejected)),
        "rejected_by_reason": dict(sorted(outcome.counts.items())),
        "kept_share": round(len(outcome.kept) / len(frame), 4) if len(frame) else None,
        "mean_high_freq_share": round(float(share.mean()), 4) if len(frame) else None,
        "mean_tokens": round(float(frame["n_tokens"].mean()), 2) if len(frame) else None,
        "rules": {rule.name: rule.params() for rule in rules}
        | {"frequency": {"min_ipm": float(params["min_ipm"])}},
        "duplicates": duplicates,
    }
    write_parquet(outcome.kept.reset_index(drop=True), params["out"])
    write_parquet(outcome.rejected.reset_index(drop=True), params["rejected"])
    token_length_histogram(outcome.kept, params["plot"], params["plot_png"])
    write_json(report, params["report"])
    return report
