"""The RuCoLA paper's non-neural baselines: majority class, and logistic regression over
TF-IDF word 1-3-grams (``min_df`` 5, ``max_df`` 0.9, case kept), ``C`` chosen by MCC on
validation. They give every release a floor that a model must beat."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import matthews_corrcoef

from rucola.errors import RucolaError
from rucola.io import write_json
from rucola.stage import read_frame

C_GRID = (0.01, 0.1, 1.0)


def _read(path: Path) -> pd.DataFrame:
    if not path.is_file():
        raise RucolaError("not found", path)
    if path.suffix == ".parquet":
        frame = read_frame(path, "split rows")
    else:
        frame = pd.read_csv(path, keep_default_na=False).rename(columns={"acceptable": "label"})
    if not {"sentence", "label"} <= set(frame.columns):
        raise RucolaError("needs sentence and label (or acceptable) columns", path)
    return frame


def load_splits(
    split_path: str | Path | None = None,
    train: str | Path | None = None,
    validation: str | Path | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Train and validation rows from the split stage's parquet or from two files."""
    if train is not None and validation is not None:
        return _read(Path(train)), _read(Path(validation))
    if train is not None or validation is not None:
        raise RucolaError("give both --train and --validation, or neither (the split parquet)")
    if split_path is None:
        raise RucolaError("give the split parquet, or both --train and --validation")
    frame = _read(Path(split_path))
    return (
        frame[frame["split"] == "train"].reset_index(drop=True),
        frame[frame["split"] == "validation"].reset_index(drop=True),
    )


def _scores(truth: np.ndarray, predicted: np.ndarray) -> dict[str, float]:
    return {
        "accuracy": round(float((truth == predicted).mean()), 4),
        "mcc": round(float(matthews_corrcoef(truth, predicted)), 4),
    }


def _by_domain(frame: pd.DataFrame, predicted: np.ndarray) -> dict[str, Any]:
    result = {"overall": _scores(frame["label"].to_numpy(int), predicted)}
    if "domain" in frame.columns:
        for domain, index in frame.groupby("domain", sort=True).groups.items():
            rows = frame.index.get_indexer(index)
            result[str(domain)] = _scores(frame["label"].to_numpy(int)[rows], predicted[rows])
    return result


def run_baselines(train: pd.DataFrame, validation: pd.DataFrame) -> dict[str, Any]:
    if train.empty or validation.empty:
        raise RucolaError("the baselines need train and validation rows")
    y_train = train["label"].to_numpy(int)
    majority = int(np.bincount(y_train, minlength=2).argmax())
    report: dict[str, Any] = {
        "train_rows": int(len(train)),
        "validation_rows": int(len(validation)),
        "majority": {
            "class": majority,
            "validation": _by_domain(validation, np.full(len(validation), majority)),
        },
    }
    vectorizer = TfidfVectorizer(ngram_range=(1, 3), min_df=5, max_df=0.9, lowercase=False)
    try:
        x_train = vectorizer.fit_transform(train["sentence"])
    except ValueError as exc:  # too few rows for min_df
        raise RucolaError(f"TF-IDF cannot be fitted on {len(train)} train rows: {exc}") from None
    x_validation = vectorizer.transform(validation["sentence"])
    trials = []
    for c in C_GRID:
        model = LogisticRegression(C=c, max_iter=2000)
        predicted = model.fit(x_train, y_train).predict(x_validation)
        trials.append((c, _by_domain(validation, predicted)))
    best_c, best = max(trials, key=lambda t: (t[1]["overall"]["mcc"], -t[0]))
    report["logistic_regression"] = {
        "features": int(x_train.shape[1]),
        "vectorizer": {"ngram_range": [1, 3], "min_df": 5, "max_df": 0.9, "lowercase": False},
        "C": best_c,
        "validation": best,
        "grid": {str(c): scores["overall"] for c, scores in trials},
    }
    return report


def baseline(
    out: str | Path | None,
    split_path: str | Path | None = None,
    train: str | Path | None = None,
    validation: str | Path | None = None,
) -> dict[str, Any]:
    """Run the baselines; the report is written to ``out`` unless it is None."""
    report = run_baselines(*load_splits(split_path, train, validation))
    if out is not None:
        write_json(report, out)
    return report
