"""Leaderboard scoring: predictions in the ``sample_submission`` layout against the gold.

Reports what the RuCoLA paper reports (Tables 4 and 5): accuracy and MCC overall, in and
out of domain, and per violation category the recall of unacceptable sentences.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.metrics import matthews_corrcoef

from rucola.csvfile import dict_records, records
from rucola.errors import RucolaError, check_header
from rucola.io import write_json
from rucola.settings import OUT_OF_DOMAIN
from rucola.stage import read_frame

# A release of a corpus without test rows (CoLA publishes none) has an empty gold: its
# labels are all public, so predictions are scored on a validation file (one config's:
# the ``default`` config numbers its domains apart, so an id there may occur twice).
NO_TEST_HINT = (
    "a corpus without test rows has no hidden gold: score predictions for a validation "
    "split with --gold RELEASE/in_domain/validation.parquet (or another config's)"
)


def _rows(lines: list[int], limit: int = 5) -> str:
    shown = ", ".join(str(n) for n in lines[:limit])
    return shown + (f" and {len(lines) - limit} more" if len(lines) > limit else "")


def read_predictions(path: str | Path) -> pd.Series:
    """``id,acceptable`` CSV -> Series of 0/1 indexed by id; every problem names its line."""
    path = Path(path)
    if not path.is_file():
        raise RucolaError("predictions not found", path)
    text = path.read_text(encoding="utf-8-sig")
    if not text.strip():  # an empty submission predicts nothing: scoring names the ids
        return pd.Series({}, name="prediction", dtype="int64")
    rows = records(text, path)  # strict: an unclosed quote or a huge cell names its line
    first = next(rows, None)
    header = check_header(first[1], path, first[0]) if first else []
    if not {"id", "acceptable"} <= set(header):
        raise RucolaError(
            "expected the columns id,acceptable (the sample_submission layout)",
            path,
            first[0] if first else 1,
        )
    values: dict[int, int] = {}
    seen_at: dict[int, int] = {}
    for line, record in dict_records(header, rows):
        try:
            key = int(record["id"])
        except (TypeError, ValueError):
            # repr: a control character in the cell is named, never printed
            raise RucolaError(f"id {record['id']!r} is not an integer", path, line) from None
        value = str(record["acceptable"] or "").strip()
        if value not in {"0", "1"}:
            raise RucolaError(f"acceptable must be 0 or 1, not {value!r}", path, line)
        if key in values:
            raise RucolaError(
                f"id {key} is predicted twice (first on line {seen_at[key]})", path, line
            )
        values[key], seen_at[key] = int(value), line
    return pd.Series(values, name="prediction", dtype="int64")


def _parser_error(exc: Exception, path: Path) -> RucolaError:
    """pandas' ``ParserError`` (``Error tokenizing data. C error: Expected 5 fields in line
    3, saw 6``) as one line naming the file and, where pandas says it, the line."""
    text = " ".join(str(exc).split())
    found = re.search(r"\bline (\d+)", text)
    text = re.sub(r"^Error tokenizing data\. C error: ", "", text)
    return RucolaError(f"not a readable CSV: {text}", path, int(found[1]) if found else None)


def read_gold(path: str | Path) -> pd.DataFrame:
    """The private gold (``test_gold.parquet``) or a labelled RuCoLA CSV."""
    path = Path(path)
    if not path.is_file():
        raise RucolaError("gold file not found", path, hint="build a release first, or pass --gold")
    if path.suffix == ".parquet":
        gold = read_frame(path, "gold")
    else:
        try:
            gold = pd.read_csv(path, keep_default_na=False, dtype={"error_type": str})
        except pd.errors.EmptyDataError:
            raise RucolaError("the gold has no rows: nothing to score against", path) from None
        except pd.errors.ParserError as exc:  # pandas' words for a malformed CSV, one line
            raise _parser_error(exc, path) from None
        if "acceptable" in gold.columns:
            gold = gold.rename(columns={"acceptable": "label"})
        if "error_type" in gold.columns:
            gold["error_type"] = gold["error_type"].replace({"0": None, "": None})
    if not {"id", "label"} <= set(gold.columns):
        raise RucolaError("gold needs id and label (or acceptable) columns", path)
    if gold.empty:
        raise RucolaError(
            "the gold has no rows: nothing to score against",
            path,
            hint=NO_TEST_HINT if path.suffix == ".parquet" else None,
        )
    duplicated = gold.loc[gold["id"].duplicated(), "id"].tolist()
    if duplicated:
        raise RucolaError(
            f"{len(duplicated)} id(s) repeated in the gold: {_rows(duplicated)}", path
        )
    labels = pd.to_numeric(gold["label"], errors="coerce")
    unlabelled = gold.loc[~labels.isin([0, 1]), "id"].tolist()
    if unlabelled:
        raise RucolaError(
            f"{len(unlabelled)} gold id(s) without a 0/1 label: {_rows(unlabelled)}",
            path,
            hint="the public test split hides its labels (-1): score against the private gold",
        )
    gold["label"] = labels.astype("int64")
    if "domain" not in gold.columns:
        gold["domain"] = OUT_OF_DOMAIN if path.name.startswith(OUT_OF_DOMAIN) else None
    return gold.set_index("id")


def _scores(truth: np.ndarray, predicted: np.ndarray) -> dict[str, Any]:
    if len(truth) == 0:  # never report nan: an empty part is a bug, not a score
        raise RucolaError("nothing to score: no rows in common with the gold")
    return {
        "n": int(len(truth)),
        "accuracy": round(float((truth == predicted).mean()), 4),
        "mcc": round(float(matthews_corrcoef(truth, predicted)), 4),
    }


def _mismatch(missing: list, extra: list, empty: bool) -> str:
    """Both counts, and the first few ids of each, in one line."""
    parts = [
        f"{len(missing)} id(s) without a prediction" + (f": {_rows(missing)}" if missing else ""),
        f"{len(extra)} id(s) not in the gold" + (f": {_rows(extra)}" if extra else ""),
    ]
    return ("the submission has no predictions: " if empty else "") + "; ".join(parts)


def score(predictions: pd.Series, gold: pd.DataFrame, predictions_path: str | Path) -> dict:
    missing = sorted(set(gold.index) - set(predictions.index))
    extra = sorted(set(predictions.index) - set(gold.index))
    if missing or extra:
        raise RucolaError(
            _mismatch(missing, extra, predictions.empty),
            predictions_path,
            hint=(
                "no id matches the gold: is this the right gold file?"
                if len(extra) == len(predictions) and not predictions.empty
                else None
            ),
        )
    frame = gold.join(predictions)
    truth, predicted = frame["label"].to_numpy(int), frame["prediction"].to_numpy(int)
    result: dict[str, Any] = {"overall": _scores(truth, predicted)}
    for domain, part in frame.groupby("domain", sort=True):
        result[str(domain)] = _scores(part["label"].to_numpy(int), part["prediction"].to_numpy(int))
    if "error_type" in frame.columns:
        unacceptable = frame[frame["label"] == 0]
        result["recall_by_error_type"] = {
            str(category): {
                "n": int(len(part)),
                "recall": round(float((part["prediction"] == 0).mean()), 4),
            }
            for category, part in unacceptable.groupby("error_type", sort=True)
        }
    return result


def evaluate(
    predictions_path: str | Path, gold_path: str | Path, out: str | Path | None
) -> dict[str, Any]:
    result = score(read_predictions(predictions_path), read_gold(gold_path), predictions_path)
    if out is not None:
        write_json(result, out)
    return result
