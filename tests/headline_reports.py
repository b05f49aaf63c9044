"""Stage reports for the headline metrics' tests (``rucola summarize``), in the shapes the
stages write them: a split report of three domains and the filter, baseline and annotation
reports, at their params keys' default paths."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from identity import with_identity


def cell(rows: int, share: float | None, **extra: Any) -> dict[str, Any]:
    """One open split (train or validation) of one domain as ``reports/split.json``
    writes it."""
    return {
        "rows": rows,
        "acceptable_share": share,
        "sources": extra.get("sources", {}),
        "error_types": extra.get("error_types", {}),
    }


def split_report() -> dict[str, Any]:
    """The public split report of a build with three domains: in-domain 80/10/10,
    out-of-domain none in train, learner with its own test split, and 5 published test
    rows whose gold the maintainer does not hold; the test split is one count per
    released configuration, never per domain."""
    return {
        "seed": 42,
        "ratios": {
            "in_domain": [0.8, 0.1, 0.1],
            "out_of_domain": [0.0, 0.5, 0.5],
            "learner": [0.8, 0.1, 0.1],
        },
        "domains": {
            "in_domain": {"splits": {"train": cell(80, 0.7), "validation": cell(10, 0.6)}},
            "out_of_domain": {"splits": {"train": cell(0, None), "validation": cell(20, 0.25)}},
            "learner": {"splits": {"train": cell(16, 0.5), "validation": cell(2, 0.5)}},
        },
        "test": {"rows": 37, "configs": {"default": 35, "learner": 2}},
        "unlabelled": {"train": 0, "validation": 0, "test": 5},
        "kept": 165,
        "read": 165,
    }


def reports(has_answers: bool = True) -> dict[str, dict[str, Any]]:
    """Every report the headline reads, named by their params keys' default paths."""
    annotation: dict[str, Any] = {"has_answers": has_answers}
    if has_answers:
        annotation["agreement"] = {
            "stage1": {"krippendorff_alpha": 0.23871, "wawa": {}},
            "stage2": {"krippendorff_alpha": -0.5, "wawa": {}},
        }
    return {
        "reports/filter.json": {"read": 170, "kept": 165, "kept_share": 0.9706},
        "reports/split.json": split_report(),
        "reports/baseline.json": {
            "logistic_regression": {
                "validation": {"overall": {"mcc": -0.05234, "accuracy": 0.4}},
            },
            "majority": {"validation": {"overall": {"mcc": 0.0}}},
        },
        "reports/annotation.json": annotation,
    }


def write_reports(root: Path, contents: dict[str, dict[str, Any]]) -> None:
    for name, data in contents.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(json.dumps(data), encoding="utf-8")
    (root / "params.yaml").write_text(
        yaml.safe_dump(with_identity({"summarize": {"out": "m.json"}}), allow_unicode=True)
    )
