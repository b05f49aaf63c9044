"""What changed between two releases: rows added, removed, relabelled, re-categorised and
moved between splits, per source and per split, as a Markdown section for the changelog."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq

from corpus.pin import sentence_key
from rucola.errors import RucolaError

COLUMNS = ["sentence", "label", "error_type", "split", "detailed_source", "domain"]


def read_release(path: str | Path) -> pd.DataFrame:
    """A release folder (hidden test labels taken from ``../private`` when present) or a
    split parquet, as one frame keyed by normalised sentence."""
    path = Path(path)
    if path.is_file() and path.suffix == ".parquet":
        frame = pq.read_table(path).to_pandas()
    elif path.is_dir():
        parts = []
        for file in sorted((path / "default").glob("*.parquet")):
            part = pq.read_table(file).to_pandas()
            part["split"] = file.stem.split("-")[0]
            parts.append(part)
        if not parts:
            raise RucolaError("no default/*.parquet files: not a release folder", path)
        frame = pd.concat(parts, ignore_index=True)
        gold_path = path.parent / "private" / "test_gold.parquet"
        test = frame["split"] == "test"
        if gold_path.is_file() and test.any():
            gold = pq.read_table(gold_path).to_pandas().set_index("id")
            for column in ("label", "error_type", "detailed_source", "domain"):
                if column in gold.columns:
                    frame.loc[test, column] = frame.loc[test, "id"].map(gold[column]).to_numpy()
    else:
        raise RucolaError("expected a release folder or a split parquet", path)
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise RucolaError(f"missing column(s) {', '.join(missing)}", path)
    frame = frame[COLUMNS].copy()
    frame["key"] = [sentence_key(s) for s in frame["sentence"]]
    return frame.drop_duplicates("key").set_index("key")


def diff_releases(old: pd.DataFrame, new: pd.DataFrame) -> dict[str, Any]:
    both = old.join(new, how="inner", suffixes=("_old", "_new"))
    changes = {
        "added": new.loc[new.index.difference(old.index)],
        "removed": old.loc[old.index.difference(new.index)],
        "relabelled": both[both["label_old"].astype(str) != both["label_new"].astype(str)],
        "recategorised": both[
            both["error_type_old"].fillna("") != both["error_type_new"].fillna("")
        ],
        "moved": both[both["split_old"] != both["split_new"]],
    }
    result: dict[str, Any] = {"old_rows": int(len(old)), "new_rows": int(len(new))}
    for kind, rows in changes.items():
        source = (
            rows["detailed_source"] if "detailed_source" in rows else rows["detailed_source_new"]
        )
        split = rows["split"] if "split" in rows else rows["split_new"]
        entry: dict[str, Any] = {
            "rows": int(len(rows)),
            "by_source": {str(k): int(v) for k, v in sorted(source.value_counts().items())},
            "by_split": {str(k): int(v) for k, v in sorted(split.value_counts().items())},
        }
        if kind == "moved":
            pairs = (rows["split_old"] + " -> " + rows["split_new"]).value_counts()
            entry["by_move"] = {str(k): int(v) for k, v in sorted(pairs.items())}
            entry["train_to_test"] = int(
                ((rows["split_old"] == "train") & (rows["split_new"] == "test")).sum()
            )
        result[kind] = entry
    return result


def to_markdown(result: dict[str, Any], title: str) -> str:
    lines = [
        f"## {title}",
        "",
        f"{result['old_rows']} rows before, {result['new_rows']} rows after.",
        "",
        "| change | rows | by split | by source |",
        "|---|---|---|---|",
    ]
    for kind in ("added", "removed", "relabelled", "recategorised", "moved"):
        entry = result[kind]
        by_split = (
            ", ".join(f"{k} {v}" for k, v in entry.get("by_move", entry["by_split"]).items()) or "-"
        )
        by_source = ", ".join(f"{k} {v}" for k, v in entry["by_source"].items()) or "-"
        lines.append(f"| {kind} | {entry['rows']} | {by_split} | {by_source} |")
    return "\n".join(lines) + "\n"


def release_diff(old_path: str | Path, new_path: str | Path) -> dict[str, Any]:
    return diff_releases(read_release(old_path), read_release(new_path))
