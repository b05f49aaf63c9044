"""The filter stage: thresholds over measured attributes, a side file for the rejected."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from corpus.filters.base import apply_rules
from corpus.filters.frequency import HighFrequencyShareRule, high_freq_share
from corpus.filters.length import TokenCountRule
from corpus.plots import token_length_histogram
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
    }
    write_parquet(outcome.kept.reset_index(drop=True), params["out"])
    write_parquet(outcome.rejected.reset_index(drop=True), params["rejected"])
    token_length_histogram(outcome.kept, params["plot"], params["plot_png"])
    write_json(report, params["report"])
    return report
