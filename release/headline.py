"""The headline metrics, ``reports/metrics.json``: the few numbers a person compares between
builds and DVC experiments, and the only file ``dvc metrics show`` prints.

The detailed reports (``filter.json``, ``split.json``, ``baseline.json``,
``annotation.json``) hold hundreds of numbers; as DVC metrics they made one table of 341
columns, and ``dvc exp show`` had no room for any of them. DVC prints one column per key
(nested keys as ``a.b``), each at least as wide as its header plus padding, so the file is
flat: ten short keys, shares with three decimals. Rows per split and per domain, not per
split and domain: the eleven cells of the sample's three domains made the table wider than
120 columns.

The file is tracked by git and shown wherever experiments are compared, so it tells no
more than the dataset card: a domain's rows are its train and validation rows (RuCoLA's
test split mixes its two domains and hides which row is which), the test split is one
count, and the acceptable share and the baseline's MCC are over train and validation only,
never over hidden test labels.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rucola.corpus import schema
from rucola.errors import RucolaError
from rucola.io import write_json

if TYPE_CHECKING:
    from rucola.settings import Params

# Rows of a domain: its train and validation rows (RuCoLA's test rows have no public domain).
DOMAIN_KEYS = {
    schema.IN_DOMAIN: "in_dom",
    schema.OUT_OF_DOMAIN: "out_dom",
    schema.LEARNER: "learner",
}
SPLIT_KEYS = {"train": "train", "validation": "val", "test": "test"}
DIGITS = 3


def _read(path: str | Path, what: str) -> dict[str, Any]:
    path = Path(path)
    if not path.is_file():
        raise RucolaError(f"{what} not found", path, hint="run 'dvc repro' (or its stage) first")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise RucolaError(f"{what} is not UTF-8: {exc.reason}", path) from None
    except json.JSONDecodeError as exc:
        raise RucolaError(f"{what} is not valid JSON: {exc.msg}", path, exc.lineno) from None
    if not isinstance(data, dict):
        raise RucolaError(f"{what} is not a JSON object", path)
    return data


def _get(report: dict[str, Any], keys: str, path: str | Path, what: str) -> Any:
    """``report[k1][k2]...`` for dotted ``keys``, or an error naming the key missing."""
    value: Any = report
    for key in keys.split("."):
        if not isinstance(value, dict) or key not in value:
            raise RucolaError(f"{what} has no '{keys}'", path, hint="rebuild it with 'dvc repro'")
        value = value[key]
    return value


def _number(report: dict[str, Any], keys: str, path: str | Path, what: str) -> float | None:
    """The number at dotted ``keys`` (None if null), or an error naming the key."""
    value = _get(report, keys, path, what)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise RucolaError(f"{what}: '{keys}' is not a number: {value!r}", path)
    return float(value)


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, DIGITS)


def kept_share(report: dict[str, Any], path: str | Path) -> float | None:
    """Rows the filter kept over rows it read (from the counts, not the rounded share)."""
    read = _number(report, "read", path, "filter report")
    kept = _number(report, "kept", path, "filter report")
    return kept / read if read and kept is not None else None


def rows_and_share(report: dict[str, Any], path: str | Path) -> dict[str, Any]:
    """Rows per split (all domains), rows per domain (train and validation: a test row's
    domain is hidden), and the acceptable share of train and validation rows."""
    what = "split report"
    domains = _get(report, "domains", path, what)
    if not isinstance(domains, dict):
        raise RucolaError(f"{what}: 'domains' is not an object", path)
    unknown = sorted(set(domains) - set(DOMAIN_KEYS))
    if unknown:
        raise RucolaError(f"{what} names an unknown domain '{unknown[0]}'", path)
    # The public report gives the test split as one count (published rows without their
    # gold included), never per domain.
    test = _number(report, "test.rows", path, what)
    out: dict[str, Any] = dict.fromkeys(DOMAIN_KEYS.values(), 0)
    out |= {"train": 0, "val": 0, "test": int(test or 0)}
    acceptable = 0.0
    for domain in sorted(domains):
        for split, key in SPLIT_KEYS.items():
            if split == "test":
                continue
            where = f"domains.{domain}.splits.{split}"
            rows = int(_number(report, f"{where}.rows", path, what) or 0)
            out[key] += rows
            if rows:
                out[DOMAIN_KEYS[domain]] += rows
                share = _number(report, f"{where}.acceptable_share", path, what)
                acceptable += rows * (share or 0.0)
    labelled = out["train"] + out["val"]
    out["accept"] = _rounded(acceptable / labelled) if labelled else None
    return out


def baseline_mcc(report: dict[str, Any], path: str | Path) -> float | None:
    keys = "logistic_regression.validation.overall.mcc"
    return _number(report, keys, path, "baseline report")


def agreement_alpha(report: dict[str, Any], path: str | Path) -> float | None:
    """Krippendorff's alpha of the stage-1 answers; None without an annotation round."""
    what = "annotation report"
    if _get(report, "has_answers", path, what) is not True:
        return None
    return _number(report, "agreement.stage1.krippendorff_alpha", path, what)


def headline(params: Params) -> dict[str, Any]:
    """The headline metrics from the reports of filter, split, baseline and annotate merge
    (their ``report`` params keys)."""
    paths = {
        "filter": params.filter.report,
        "split": params.split.report,
        "baseline": params.baseline.report,
        "annotation": params.annotate.report,
    }
    reports = {name: _read(path, f"{name} report") for name, path in paths.items()}
    return {
        **rows_and_share(reports["split"], paths["split"]),
        "kept": _rounded(kept_share(reports["filter"], paths["filter"])),
        "mcc": _rounded(baseline_mcc(reports["baseline"], paths["baseline"])),
        "alpha": _rounded(agreement_alpha(reports["annotation"], paths["annotation"])),
    }


def summarize(params: Params, out: str | Path | None = None) -> dict[str, Any]:
    """Write the headline metrics to ``out`` (default ``summarize.out``) and return them."""
    metrics = headline(params)
    write_json(metrics, out if out is not None else params.summarize.out)
    return metrics
