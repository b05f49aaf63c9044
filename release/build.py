"""The release build: a Hugging Face dataset folder and the private gold.

Only data that passed validation is released: the validation report must be a success
and must carry the SHA-256 of exactly the file being released.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from corpus import schema
from rucola.errors import RucolaError
from rucola.io import atomic_dir, file_sha256

RELEASE_COLUMNS = ["id", "sentence", "label", "error_type", "domain", "detailed_source"]
HIDDEN = ["error_type", "domain", "detailed_source"]
CONFIGS = {
    "default": schema.DOMAINS,
    "in_domain": [schema.IN_DOMAIN],
    "out_of_domain": [schema.OUT_OF_DOMAIN],
}


def features():  # noqa: ANN201 - datasets.Features
    from datasets import ClassLabel, Features, Value

    return Features(
        {
            "id": Value("int64"),
            "sentence": Value("string"),
            "label": ClassLabel(names=schema.LABEL_NAMES),
            "error_type": Value("string"),
            "domain": Value("string"),
            "detailed_source": Value("string"),
        }
    )


def arrow_schema() -> pa.Schema:
    fields = pa.schema(
        [
            ("id", pa.int64()),
            ("sentence", pa.string()),
            ("label", pa.int64()),
            ("error_type", pa.string()),
            ("domain", pa.string()),
            ("detailed_source", pa.string()),
        ]
    )
    # The metadata ``datasets`` reads back, so ``label`` loads as a ClassLabel.
    meta = {"huggingface": json.dumps({"info": {"features": features().to_dict()}})}
    return fields.with_metadata(meta)


def check_validated(input_path: Path, report_path: Path) -> None:
    if not report_path.is_file():
        raise RucolaError("no validation report; run 'rucola validate' first", report_path)
    report = json.loads(report_path.read_text(encoding="utf-8"))
    if not report.get("success"):
        raise RucolaError(
            "validation failed; the release is built only from validated data", report_path
        )
    if report.get("data_sha256") != file_sha256(input_path):
        raise RucolaError(
            f"the validation report is for other data than {input_path}",
            report_path,
            hint="run 'rucola validate' again",
        )


def public_rows(frame: pd.DataFrame, split: str) -> pd.DataFrame:
    rows = frame[RELEASE_COLUMNS].sort_values("id").reset_index(drop=True)
    if split == "test":  # hidden labels: the gold lives in the private folder only
        rows["label"] = -1
        for column in HIDDEN:
            rows[column] = None
    return rows


def split_files(frame: pd.DataFrame) -> dict[str, dict[str, pd.DataFrame]]:
    """config -> split -> public rows, leaving out empty combinations."""
    out: dict[str, dict[str, pd.DataFrame]] = {}
    for config, domains in CONFIGS.items():
        part = frame[frame["domain"].isin(domains)]
        splits = {
            s: public_rows(part[part["split"] == s], s)
            for s in schema.SPLITS
            if (part["split"] == s).any()
        }
        if splits:
            out[config] = splits
    return out


def build_release(
    input_path: str | Path,
    validation_report: str | Path,
    params: dict,
    out_dir: str | Path,
    private_dir: str | Path,
) -> dict:
    from release.card import render_card
    from release.plots import category_plot, token_length_plot

    input_path, report_path = Path(input_path), Path(validation_report)
    if not input_path.is_file():
        raise RucolaError("split data not found; run 'rucola split' first", input_path)
    check_validated(input_path, report_path)
    frame = pq.read_table(input_path).to_pandas()
    files = split_files(frame)
    target = arrow_schema()
    counts: dict[str, Any] = {}
    with atomic_dir(out_dir) as tmp:
        for config, splits in files.items():
            (tmp / config).mkdir()
            for split, rows in splits.items():
                table = pa.Table.from_pandas(rows, schema=target, preserve_index=False)
                table = table.replace_schema_metadata(target.metadata)
                pq.write_table(table, tmp / config / f"{split}.parquet", compression="zstd")
            counts[config] = {s: len(r) for s, r in splits.items()}
        token_length_plot(frame, tmp / "token_lengths.png")
        category_plot(frame[frame["split"] != "test"], tmp / "error_types.png")
        card = render_card(frame, files, params, file_sha256(input_path), features())
        (tmp / "README.md").write_text(card, encoding="utf-8")
    gold = frame[frame["split"] == "test"].sort_values("id")
    with atomic_dir(private_dir) as tmp:
        pq.write_table(
            pa.Table.from_pandas(
                gold[["id", "sentence", "label", "error_type", "domain", "detailed_source"]],
                preserve_index=False,
            ).replace_schema_metadata(None),
            tmp / "test_gold.parquet",
            compression="zstd",
        )
    return counts
