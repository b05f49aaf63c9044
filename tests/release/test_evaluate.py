"""Scoring predictions against hand-computed metrics, and refusing malformed ones."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from release.evaluate import evaluate
from rucola.errors import RucolaError


@pytest.fixture
def gold(tmp_path: Path) -> Path:
    frame = pd.DataFrame(
        {
            "id": [0, 1, 2, 3, 4, 5, 6, 7],
            "label": [1, 1, 0, 0, 1, 0, 0, 1],
            "error_type": [
                None,
                None,
                "Syntax",
                "Morphology",
                None,
                "Syntax",
                "Hallucination",
                None,
            ],
            "domain": ["in_domain"] * 4 + ["out_of_domain"] * 4,
        }
    )
    path = tmp_path / "gold.parquet"
    frame.to_parquet(path)
    return path


def predictions(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pred.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_metrics_match_a_hand_computation(tmp_path, gold):
    pred = predictions(tmp_path, "id,acceptable\n0,1\n1,0\n2,0\n3,1\n4,1\n5,0\n6,1\n7,1\n")
    result = evaluate(pred, gold, tmp_path / "eval.json")
    # overall: TP(acc=1 predicted 1)=3 (0,4,7), TN=2 (2,5), FP=2 (3,6), FN=1 (1)
    tp, tn, fp, fn = 3, 2, 2, 1
    mcc = (tp * tn - fp * fn) / math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    assert result["overall"] == {"n": 8, "accuracy": 0.625, "mcc": round(mcc, 4)}
    assert result["in_domain"]["accuracy"] == 0.5
    assert result["out_of_domain"]["accuracy"] == 0.75
    assert result["recall_by_error_type"] == {
        "Hallucination": {"n": 1, "recall": 0.0},
        "Morphology": {"n": 1, "recall": 0.0},
        "Syntax": {"n": 2, "recall": 1.0},
    }
    assert (tmp_path / "eval.json").is_file()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("id,acceptable\n0,1\n1,0\n2,0\n3,1\n4,1\n5,0\n6,1\n", "1 id(s) without a prediction: 7"),
        ("id,acceptable\n0,1\n1,0\n2,0\n3,1\n4,1\n5,0\n6,1\n7,1\n9,1\n", "not in the gold: 9"),
        ("id,acceptable\n0,1\n1,0\n1,0\n", "id 1 is predicted twice (first on line 3)"),
        ("id,acceptable\n0,1\n1,yes\n", "acceptable must be 0 or 1, not 'yes'"),
        ("id,label\n0,1\n", "expected the columns id,acceptable"),
    ],
)
def test_malformed_predictions_name_the_rows(tmp_path, gold, text, message):
    with pytest.raises(RucolaError) as error:
        evaluate(predictions(tmp_path, text), gold, tmp_path / "eval.json")
    assert message in error.value.format()
    assert not (tmp_path / "eval.json").exists()


def test_cli_exit_codes(run_cli, tmp_path, gold):
    pred = predictions(tmp_path, "id,acceptable\n0,1\n1,2\n")
    code, _, stderr = run_cli("evaluate", str(pred), "--gold", str(gold))
    assert code == 1 and f"{pred}:3" in stderr


def test_published_dev_as_gold(shared_data, tmp_path):
    dev = pd.read_csv(shared_data / "rucola/out_of_domain_dev.csv")
    pred = tmp_path / "pred.csv"
    dev.assign(acceptable=1)[["id", "acceptable"]].to_csv(pred, index=False)
    result = evaluate(pred, shared_data / "rucola/out_of_domain_dev.csv", None)
    assert result["overall"]["accuracy"] == round(dev["acceptable"].mean(), 4)
    assert result["overall"]["mcc"] == 0.0
    assert set(result["recall_by_error_type"]) == {
        "Hallucination",
        "Morphology",
        "Semantics",
        "Syntax",
    }
