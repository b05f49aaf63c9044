"""A small published corpus for the errata tests (tests/ is on sys.path): the rows the
split stage reads, the pin of the version they were published in, and errata files.

Published rows carry their identity (``published_split``, ``published_id``); one row is new
in this build; the pin names one more row, ``train in_domain 9``, that an earlier stage set
aside (it is not in the data). Test row 0 has no gold (label -1, no domain), test row 1 has.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import yaml
from identity import with_identity

# sentence, label, error_type, split, domain, id (published; None: new in this build)
ROWS: list[tuple[Any, ...]] = [
    ("Кот спит на диване.", 1, None, "train", "in_domain", 0),
    ("Кот спят на диване.", 0, "Morphology", "train", "in_domain", 1),
    ("Собака громко лает во дворе.", 1, None, "train", "in_domain", 2),
    ("Собака громко лают во дворе.", 0, "Syntax", "train", "in_domain", 3),
    ("Мама мыла раму утром.", 1, None, "validation", "in_domain", 0),
    ("Он пошёл в магазин вчера.", 0, "Hallucination", "validation", "out_of_domain", 0),
    ("Дети играют в саду.", -1, None, "test", None, 0),
    ("Дети играет в саду.", 0, "Morphology", "test", "in_domain", 1),
    ("Совсем новое предложение здесь.", 1, None, None, "in_domain", None),
]
SET_ASIDE_EARLIER = ("Удалённое раньше предложение.", "train", "in_domain", 9)
HEADER = "split,domain,id,field,new,reason"


def split_input() -> pd.DataFrame:
    """What the split stage reads (``filter.out``)."""
    frame = pd.DataFrame(
        ROWS, columns=["sentence", "label", "error_type", "published_split", "domain", "pid"]
    )
    frame["published_id"] = pd.array(frame.pop("pid"), dtype="Int64")
    frame["detailed_source"] = ["Book"] * len(frame)
    frame["mark"] = ""
    frame["group"] = [f"g{i}" for i in range(len(frame))]
    frame["origin"] = [f"rows.csv:{i + 2}" for i in range(len(frame))]
    frame["corrections"] = None
    frame["n_tokens"] = frame["sentence"].str.split().str.len().astype("int64")
    frame["high_freq_share"] = 1.0
    return frame


def pin_rows() -> pd.DataFrame:
    """The published version the build pins: every published row and the one set aside."""
    published = [(s, sp, d, i) for s, _, _, sp, d, i in ROWS if sp is not None]
    return pd.DataFrame(
        [*published, SET_ASIDE_EARLIER], columns=["sentence", "split", "domain", "id"]
    ).astype({"id": "int64"})


def write_project(folder: Path, errata: list[str] | None = None) -> Path:
    """The input, the pin and ``params.yaml`` of a split in ``folder`` (paths relative to
    it); ``errata``: the files ``extract.errata`` names."""
    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pandas(split_input(), preserve_index=False), folder / "in.parquet")
    pq.write_table(pa.Table.from_pandas(pin_rows(), preserve_index=False), folder / "pin.parquet")
    params = with_identity(
        {
            "filter": {"out": "in.parquet"},  # what split reads
            "extract": {"errata": list(errata or [])},
            "split": {
                "out": "out/split.parquet",
                "rejected": "out/rejected.parquet",
                "report": "out/split.json",
                "pin": ["pin.parquet"],
            },
        }
    )
    path = folder / "params.yaml"
    path.write_text(yaml.safe_dump(params, allow_unicode=True), encoding="utf-8")
    return path


def write_errata(path: Path, *lines: str, header: str = HEADER) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join([header, *lines]) + "\n", encoding="utf-8")
    return path
