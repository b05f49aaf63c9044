"""The dataset card: YAML the Hub and ``datasets`` read, and a body with computed tables.

The text lives in ``templates/card.md.j2``; this module only computes what goes into it.
Test-split label statistics are never computed, so a card cannot leak hidden labels.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jinja2
import pandas as pd
import yaml

from corpus import schema

TEMPLATES = Path(__file__).parent / "templates"


def size_category(n: int) -> str:
    for limit, name in [
        (1_000, "n<1K"),
        (10_000, "1K<n<10K"),
        (100_000, "10K<n<100K"),
        (1_000_000, "100K<n<1M"),
    ]:
        if n < limit:
            return name
    return "n>1M"


def _num_bytes(rows: pd.DataFrame) -> int:
    """Arrow size of the split, as ``datasets`` records it in split info."""
    import pyarrow as pa

    return int(pa.Table.from_pandas(rows, preserve_index=False).nbytes)


def yaml_header(
    files: dict[str, dict[str, pd.DataFrame]], params: dict, total: int, features: Any
) -> str:
    configs = []
    infos = []
    for config, splits in files.items():
        entry: dict[str, Any] = {
            "config_name": config,
            "data_files": [{"split": s, "path": f"{config}/{s}.parquet"} for s in splits],
        }
        if config == "default":
            entry["default"] = True
        configs.append(entry)
        infos.append(
            {
                "config_name": config,
                "features": features._to_yaml_list(),
                "splits": [
                    {"name": s, "num_bytes": _num_bytes(rows), "num_examples": len(rows)}
                    for s, rows in splits.items()
                ],
            }
        )
    header = {
        "pretty_name": params["release"]["pretty_name"],
        "license": params["release"]["license"],
        "language": ["ru"],
        "task_categories": ["text-classification"],
        "task_ids": ["acceptability-classification"],
        "size_categories": [size_category(total)],
        "configs": configs,
        "dataset_info": infos,
    }
    return yaml.safe_dump(header, allow_unicode=True, sort_keys=False)


def _share(value: float) -> str:
    return f"{value:.1%}"


def source_rows(frame: pd.DataFrame) -> list[dict[str, Any]]:
    labelled = frame[frame["split"] != "test"]
    rows = []
    for (domain, source), part in frame.groupby(["domain", "detailed_source"], sort=True):
        known = labelled[(labelled["domain"] == domain) & (labelled["detailed_source"] == source)]
        bad = known[known["label"] == schema.UNACCEPTABLE]
        shares = [
            _share((bad["error_type"] == c).mean()) if len(bad) else "-"
            for c in schema.ALL_ERROR_TYPES
        ]
        rows.append(
            {
                "domain": domain,
                "source": source,
                "sentences": len(known),
                "acceptable": _share(known["label"].mean()) if len(known) else "-",
                "shares": shares,
                "test": int((part["split"] == "test").sum()),
            }
        )
    return rows


def split_rows(frame: pd.DataFrame) -> list[dict[str, Any]]:
    rows = []
    for domain, part in frame.groupby("domain", sort=True):
        counts = part["split"].value_counts()
        rows.append({"domain": domain, **{s: int(counts.get(s, 0)) for s in schema.SPLITS}})
    return rows


def _baseline(params: dict) -> dict[str, Any] | None:
    path = Path(params.get("baseline", {}).get("report", ""))
    if not path.is_file():
        return None
    report = json.loads(path.read_text(encoding="utf-8"))
    lr = report["logistic_regression"]
    return {
        "majority": report["majority"]["validation"]["overall"],
        "lr": lr["validation"]["overall"],
        "features": lr["features"],
        "C": lr["C"],
    }


def _annotation(params: dict) -> str | None:
    path = Path(params.get("release", {}).get("annotation_report") or "")
    if not path.is_file():
        return None
    report = json.loads(path.read_text(encoding="utf-8"))
    lines = ["| category | WAWA agreement |", "|---|---|"]
    for category, value in sorted(report.get("wawa_by_category", {}).items()):
        lines.append(f"| {category} | {value} |")
    if "krippendorff_alpha" in report:
        lines.append(f"\nKrippendorff's alpha: {report['krippendorff_alpha']}")
    return "\n".join(lines)


def render_card(
    frame: pd.DataFrame,
    files: dict[str, dict[str, pd.DataFrame]],
    params: dict,
    data_sha256: str,
    features: Any,
) -> str:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES), keep_trailing_newline=True, autoescape=False
    )
    template = environment.get_template("card.md.j2")
    return template.render(
        yaml_header=yaml_header(files, params, len(frame), features),
        pretty_name=params["release"]["pretty_name"],
        data_sha256=data_sha256,
        configs=", ".join(files),
        split_rows=split_rows(frame),
        ratios={d: r for d, r in params["split"]["ratios"].items() if d in set(frame["domain"])},
        categories=schema.ALL_ERROR_TYPES,
        source_rows=source_rows(frame),
        baseline=_baseline(params),
        annotation=_annotation(params),
    )
