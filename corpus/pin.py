"""Pinned splits: rows of a previous release keep their split and id in the next one.

A new version must never move a sentence from train into test, nor renumber a row that
leaderboard submissions refer to. The pin can be a release folder (``data/release/rucola``),
the split stage's parquet, or a folder in the published RuCoLA CSV layout. A row is matched
to the pin by its published identity (split, id scope, id) when it carries one, so a row
whose text a correction changed keeps its place; otherwise by its normalised text.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from corpus import schema
from corpus.homoglyphs import fix_homoglyphs
from corpus.normalize import normalize_text
from corpus.sources.rucola_csv import is_published_layout, read_published_release
from rucola.errors import RucolaError

PIN_COLUMNS = ["key", "split", "scope", "id"]


def sentence_key(sentence: str) -> str:
    return fix_homoglyphs(normalize_text(sentence))[0]


def id_scopes(frame: pd.DataFrame) -> list[str]:
    """:func:`id_scope` of every row of a frame with ``split`` and ``domain`` columns."""
    return [id_scope(s, d) for s, d in zip(frame["split"], frame["domain"], strict=True)]


def id_scope(split: object, domain: object) -> str:
    """Ids are unique per published file: per split and domain in train and validation,
    per split in the test file, which hides the domain."""
    if split == "test" or domain is None or (isinstance(domain, float) and pd.isna(domain)):
        return ""
    return str(domain)


def _from_rucola_csv(folder: Path) -> pd.DataFrame:
    """In the published order: the published train and test share a sentence, and a
    sentence a model was trained on must stay in train when it is matched by text."""
    rows = [
        (e.text, e.published_split, e.domain, e.published_id)
        for e in read_published_release(folder, {}, "utf-8")
    ]
    return pd.DataFrame(rows, columns=["sentence", "split", "domain", "id"])


def _from_release(folder: Path) -> pd.DataFrame:
    files = sorted((folder / "default").glob("*.parquet"))
    if not files:
        raise RucolaError("no default/*.parquet files in this release folder", folder)
    parts = []
    for path in files:
        table = pq.read_table(path, columns=["id", "sentence", "domain"]).to_pandas()
        table["split"] = path.stem.split("-")[0]
        parts.append(table)
    order = {s: i for i, s in enumerate(schema.SPLITS)}
    frame = pd.concat(parts, ignore_index=True)
    return frame.sort_values("split", key=lambda s: s.map(order), kind="stable")


def _from_parquet(path: Path) -> pd.DataFrame:
    table = pq.read_table(path)
    if not {"sentence", "split"} <= set(table.column_names):
        raise RucolaError("a pinned parquet needs 'sentence' and 'split' columns", path)
    columns = [c for c in ("sentence", "split", "id", "domain") if c in table.column_names]
    return table.select(columns).to_pandas()


def load_pin(path: str | Path) -> pd.DataFrame:
    """One row per pinned sentence: normalised ``key``, ``split``, id ``scope`` and ``id``
    (null when the pin has no ids), in the pin's order (earlier rows win on a repeat)."""
    path = Path(path)
    if path.is_dir():
        frame = _from_rucola_csv(path) if is_published_layout(path) else _from_release(path)
    elif path.is_file() and path.suffix == ".parquet":
        frame = _from_parquet(path)
    else:
        raise RucolaError(
            "split.pin must be a release folder, a parquet file or a folder of "
            "published RuCoLA CSVs",
            path,
        )
    unknown = set(frame["split"]) - set(schema.SPLITS)
    if unknown:
        raise RucolaError(f"unknown split name(s) {sorted(unknown)} in the pin", path)
    if "domain" not in frame.columns:
        frame = frame.assign(domain=None)
    ids = frame["id"] if "id" in frame.columns else pd.Series(None, index=frame.index)
    return pd.DataFrame(
        {
            "key": [sentence_key(s) for s in frame["sentence"]],
            "split": frame["split"].astype(str).to_numpy(),
            "scope": id_scopes(frame),
            "id": pd.array(ids.to_numpy(), dtype="Int64"),
        }
    ).reset_index(drop=True)


def pin_paths(value: object) -> list[str]:
    """``split.pin`` as a list: null or [] (no pin), a path, or a list of paths."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise RucolaError(f"split.pin must be a path or a list of paths, not {value!r}", "params.yaml")
