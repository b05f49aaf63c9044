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
from rucola.errors import RucolaError

RUCOLA_FILES = {
    "in_domain_train.csv": ("train", schema.IN_DOMAIN),
    "in_domain_dev.csv": ("validation", schema.IN_DOMAIN),
    "out_of_domain_dev.csv": ("validation", schema.OUT_OF_DOMAIN),
    "test.csv": ("test", None),
}
PIN_COLUMNS = ["key", "split", "scope", "id"]


def sentence_key(sentence: str) -> str:
    return fix_homoglyphs(normalize_text(sentence))[0]


def id_scope(split: object, domain: object) -> str:
    """Ids are unique per published file: per split and domain in train and validation,
    per split in the test file, which hides the domain."""
    if split == "test" or domain is None or (isinstance(domain, float) and pd.isna(domain)):
        return ""
    return str(domain)


def _from_rucola_csv(folder: Path) -> pd.DataFrame:
    """Earlier files first: the published train and test share a sentence, and a sentence a
    model was trained on must stay in train when it is matched by text."""
    parts = []
    for name, (split, domain) in RUCOLA_FILES.items():
        path = folder / name
        if path.is_file():
            frame = pd.read_csv(path, dtype=str, keep_default_na=False)
            for column in ("id", "sentence"):
                if column not in frame.columns:
                    raise RucolaError(f"no '{column}' column", path, 1)
            ids = pd.to_numeric(frame["id"], errors="coerce")
            if ids.isna().any():
                line = int(ids.isna().to_numpy().argmax()) + 2
                raise RucolaError("an id that is not an integer", path, line)
            parts.append(
                pd.DataFrame(
                    {
                        "sentence": frame["sentence"],
                        "split": split,
                        "domain": domain,
                        "id": ids.astype("int64"),
                    }
                )
            )
    return pd.concat(parts, ignore_index=True)


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
        if any((path / name).is_file() for name in RUCOLA_FILES):
            frame = _from_rucola_csv(path)
        else:
            frame = _from_release(path)
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
    domain = frame["domain"] if "domain" in frame.columns else pd.Series(None, index=frame.index)
    ids = frame["id"] if "id" in frame.columns else pd.Series(None, index=frame.index)
    return pd.DataFrame(
        {
            "key": [sentence_key(s) for s in frame["sentence"]],
            "split": frame["split"].astype(str).to_numpy(),
            "scope": [id_scope(s, d) for s, d in zip(frame["split"], domain, strict=True)],
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
