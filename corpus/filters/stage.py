"""The filter stage: thresholds over measured attributes, a side file for the rejected."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from rucola.corpus.filters.base import rule_reasons
from rucola.corpus.filters.duplicates import find_duplicates
from rucola.corpus.filters.frequency import HighFrequencyShareRule, high_freq_share
from rucola.corpus.filters.length import TokenCountRule
from rucola.corpus.plots import token_length_histogram
from rucola.corpus.schema import OUT_OF_DOMAIN
from rucola.errors import RucolaError
from rucola.io import write_json, write_parquet


def build_rules(params: dict[str, Any]) -> list:
    """The threshold rules; a threshold set to null is off (rebuilding a published release
    keeps every row it has)."""
    rules: list = []
    try:
        low, high = params["min_tokens"], params["max_tokens"]
        if low is not None or high is not None:
            rules.append(
                TokenCountRule(0 if low is None else int(low), 10**9 if high is None else int(high))
            )
        if params["min_high_freq_share"] is not None:
            rules.append(HighFrequencyShareRule(float(params["min_high_freq_share"])))
    except ValueError as exc:
        raise RucolaError(str(exc), "params.yaml") from None
    return rules


def _column(table: pa.Table, name: str, default: Any) -> pa.ChunkedArray | pa.Array:
    if name in table.column_names:
        return table.column(name)
    return pa.array([default] * table.num_rows, pa.string())


def _duplicate_view(table: pa.Table) -> pd.DataFrame:
    """Only the columns the duplicate step reads, as plain Python objects (no copies).

    Candidates lack the corpus columns: their domain is out-of-domain and their candidate
    id stands for origin and group.
    """
    n = table.num_rows
    if "origin" in table.column_names:
        origin = table.column("origin").to_pylist()
    elif "candidate_id" in table.column_names:
        origin = table.column("candidate_id").to_pylist()
    else:
        origin = [str(i) for i in range(n)]
    columns = {
        "sentence": pd.Series(table.column("sentence").to_pylist(), dtype=object),
        "domain": pd.Series(
            table.column("domain").to_pylist()
            if "domain" in table.column_names
            else np.full(n, OUT_OF_DOMAIN, dtype=object),
            dtype=object,
        ),
        "origin": pd.Series(origin, dtype=object),
    }
    columns["group"] = (
        pd.Series(table.column("group").to_pylist(), dtype=object)
        if "group" in table.column_names
        else columns["origin"]
    )
    if "published_id" in table.column_names:
        columns["published"] = pd.Series(
            table.column("published_id").is_valid().to_numpy(zero_copy_only=False), dtype=bool
        )
    view = pd.DataFrame(columns, copy=False)
    if "label" in table.column_names:
        view["label"] = table.column("label").to_pandas()
    return view


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
        frame = pd.DataFrame({"sentence": table.column("sentence").to_pylist()})
        frame["origin"] = (
            table.column("origin").to_pylist() if "origin" in table.column_names else path
        )
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def _with_reason(table: pa.Table, reasons: np.ndarray, of: np.ndarray | None) -> pa.Table:
    table = table.add_column(0, "reason", pa.array(reasons.astype(str).tolist(), pa.string()))
    values = [None] * table.num_rows if of is None else of.tolist()
    return table.append_column("near_duplicate_of", pa.array(values, pa.string()))


def run_filter(params: dict[str, Any]) -> dict[str, Any]:
    """Thresholds, then duplicates; columns stay in Arrow so a million rows fit in memory."""
    input_path = Path(params["input"])
    if not input_path.exists():
        raise RucolaError("input not found; run 'rucola measure' first", input_path)
    table = pq.read_table(input_path)
    for column in ("n_tokens", "word_ipm"):
        if column not in table.column_names:
            raise RucolaError(f"no '{column}' attribute; run 'rucola measure' first", input_path)
    share = high_freq_share(table.column("word_ipm"), float(params["min_ipm"]))
    table = table.drop_columns("word_ipm").append_column(
        "high_freq_share", pa.array(share, pa.float64())
    )
    n_tokens = table.column("n_tokens").to_numpy()
    rules = build_rules(params)
    reasons = rule_reasons(pd.DataFrame({"n_tokens": n_tokens, "high_freq_share": share}), rules)
    passed = np.equal(reasons, None)
    kept = table.filter(pa.array(passed))
    rejected = [_with_reason(table.filter(pa.array(~passed)), reasons[~passed], None)]
    counts = Counter(reasons[~passed].tolist())
    read = table.num_rows
    del table  # a million rows: keep one copy of the columns, not two
    pa.default_memory_pool().release_unused()

    settings = params["near_duplicates"]
    found = find_duplicates(
        _duplicate_view(kept), settings, _read_reference(params.get("reference"))
    )
    drop = ~np.equal(found.reason, None)
    if "group" in kept.column_names:
        kept = kept.set_column(
            kept.column_names.index("group"),
            kept.schema.field("group"),
            pa.array(found.group.tolist(), kept.schema.field("group").type),
        )
    rejected.append(_with_reason(kept.filter(pa.array(drop)), found.reason[drop], found.of[drop]))
    counts.update(found.reason[drop].tolist())
    kept = kept.filter(pa.array(~drop))
    rejected_table = pa.concat_tables(rejected, promote_options="default")
    report = {
        "read": int(read),
        "kept": int(kept.num_rows),
        "rejected": int(rejected_table.num_rows),
        "rejected_by_reason": dict(sorted(counts.items())),
        "kept_share": round(kept.num_rows / read, 4) if read else None,
        "mean_high_freq_share": round(float(share.mean()), 4) if read else None,
        "mean_tokens": round(float(n_tokens.mean()), 2) if read else None,
        "rules": {rule.name: rule.params() for rule in rules}
        | {"frequency": {"min_ipm": float(params["min_ipm"])}},
        "duplicates": {
            "clusters": found.clusters,
            "duplicate": int((found.reason == "duplicate").sum()),
            "near_duplicate": int((found.reason == "near_duplicate").sum()),
            "settings": {k: settings[k] for k in sorted(settings)},
        },
    }
    write_parquet(kept, params["out"])
    write_parquet(rejected_table, params["rejected"])
    histogram = pd.DataFrame(
        {
            "domain": _column(kept, "domain", OUT_OF_DOMAIN).to_pylist(),
            "n_tokens": kept.column("n_tokens").to_numpy(),
        }
    )
    token_length_histogram(histogram, params["plot"], params["plot_png"])
    write_json(report, params["report"])
    return report
