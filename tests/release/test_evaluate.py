"""Scoring predictions against hand-computed metrics, and refusing malformed ones."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from rucola.errors import RucolaError
from rucola.release.evaluate import evaluate


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


@pytest.mark.parametrize("text", ["", "\n", "id,acceptable\n", "\ufeffid,acceptable\r\n"])
def test_empty_submission_names_the_missing_ids(run_cli, tmp_path, gold, text):
    pred = predictions(tmp_path, text)
    with pytest.raises(RucolaError) as error:
        evaluate(pred, gold, tmp_path / "eval.json")
    message = error.value.format()
    assert "no predictions" in message
    assert "8 id(s) without a prediction: 0, 1, 2, 3, 4 and 3 more" in message
    assert not (tmp_path / "eval.json").exists()
    code, stdout, stderr = run_cli(
        "evaluate", str(pred), "--gold", str(gold), "--out", str(tmp_path / "cli.json")
    )
    assert code == 1 and "8 id(s) without a prediction" in stderr
    assert not (tmp_path / "cli.json").exists()
    assert "nan" not in (stdout + stderr).lower()


def test_mismatched_ids_name_both_sides(tmp_path, gold):
    text = "id,acceptable\n" + "".join(f"{i},1\n" for i in [0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 15])
    with pytest.raises(RucolaError) as error:
        evaluate(predictions(tmp_path, text), gold, None)
    message = error.value.format()
    assert "3 id(s) without a prediction: 5, 6, 7" in message
    assert "6 id(s) not in the gold: 10, 11, 12, 13, 14 and 1 more" in message
    assert "hint" not in message


def test_no_common_id_hints_at_the_gold(tmp_path, gold):
    text = "id,acceptable\n100,1\n101,0\n"
    with pytest.raises(RucolaError) as error:
        evaluate(predictions(tmp_path, text), gold, None)
    message = error.value.format()
    assert (
        "8 id(s) without a prediction" in message and "2 id(s) not in the gold: 100, 101" in message
    )
    assert "right gold file" in message


@pytest.mark.parametrize(
    ("gold_text", "message"),
    [
        ("id,sentence,acceptable,error_type,detailed_source\n", "the gold has no rows"),
        ("", "the gold has no rows"),
        ("id,sentence\n0,a\n", "gold needs id and label"),
        ("id,sentence,acceptable\n0,a,1\n1,b,-1\n", "1 gold id(s) without a 0/1 label: 1"),
        ("id,sentence,acceptable\n0,a,1\n1,b,\n", "1 gold id(s) without a 0/1 label: 1"),
        ("id,sentence,acceptable\n0,a,1\n0,b,0\n", "1 id(s) repeated in the gold: 0"),
    ],
)
def test_unusable_gold_is_an_error(run_cli, tmp_path, gold_text, message):
    gold_path = tmp_path / "in_domain_dev.csv"
    gold_path.write_text(gold_text, encoding="utf-8")
    pred = predictions(tmp_path, "id,acceptable\n")
    with pytest.raises(RucolaError) as error:
        evaluate(pred, gold_path, tmp_path / "eval.json")
    assert message in error.value.format()
    code, stdout, stderr = run_cli(
        "evaluate", str(pred), "--gold", str(gold_path), "--out", str(tmp_path / "cli.json")
    )
    assert code == 1 and "nan" not in (stdout + stderr).lower()


def test_empty_parquet_gold_is_an_error(tmp_path, gold):
    pd.read_parquet(gold).head(0).to_parquet(tmp_path / "empty.parquet")
    with pytest.raises(RucolaError, match="no rows"):
        evaluate(predictions(tmp_path, "id,acceptable\n"), tmp_path / "empty.parquet", None)


def test_sample_submission_against_a_rucola_csv(run_cli, tmp_path):
    gold_path = tmp_path / "in_domain_dev.csv"
    gold_path.write_text(
        "id,sentence,acceptable,error_type,detailed_source\n"
        "0,Кот спит.,1,0,Paducheva2013\n"
        "1,Кот спят.,0,Morphology,Paducheva2013\n"
        "2,Спит кот дом.,0,Syntax,Seliverstova\n",
        encoding="utf-8",
    )
    pred = predictions(tmp_path, "id,acceptable\n2,0\n0,1\n1,1\n")
    code, stdout, stderr = run_cli(
        "evaluate", str(pred), "--gold", str(gold_path), "--out", str(tmp_path / "e.json")
    )
    assert code == 0, stderr
    assert "overall: n=3 accuracy=0.6667" in stdout and "nan" not in stdout.lower()
    assert "recall Morphology: 0.0000 (n=1)" in stdout
    assert "recall Syntax: 1.0000 (n=1)" in stdout


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


def test_learner_rows_are_scored_as_a_domain_of_their_own(tmp_path):
    gold = tmp_path / "gold.parquet"
    pd.DataFrame(
        {
            "id": [0, 1, 2, 3],
            "label": [1, 0, 1, 0],
            "error_type": [None, "Syntax", None, "Morphology"],
            "domain": ["in_domain", "in_domain", "learner", "learner"],
        }
    ).to_parquet(gold)
    pred = predictions(tmp_path, "id,acceptable\n0,1\n1,0\n2,1\n3,1\n")
    result = evaluate(pred, gold, None)
    assert result["in_domain"]["accuracy"] == 1.0
    assert result["learner"] == {"n": 2, "accuracy": 0.5, "mcc": 0.0}


def one_error_line(stderr: str, *needles: str) -> str:
    """The one ``error:`` line, no traceback (``tests/guarantees/guards.py``'s bar)."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert "Traceback" not in stderr and len(lines) == 1, stderr
    assert lines[0].startswith("error: "), stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        # a _csv.Error traceback: field larger than field limit (131072)
        ("id,acceptable\n0,1\n1," + "0" * 131073 + "\n", 3, "longer than 131072"),
        ('id,acceptable\n0,1\n1,"' + "0" * 131073 + '"\n', 3, "longer than 131072"),
        # read laxly, the quote took the rest of the file into one cell
        ('id,acceptable\n0,1\n1,"0\n2,0\n3,1\n', 3, "never closed"),
        ('id,acceptable\n0,1\n1,"0"1\n', 3, "quoting"),
    ],
)
def test_a_broken_submission_is_one_line_naming_its_line(
    run_cli, tmp_path, gold, text, line, words
):
    pred = predictions(tmp_path, text)
    with pytest.raises(RucolaError) as error:
        evaluate(pred, gold, tmp_path / "eval.json")
    assert (error.value.path, error.value.line) == (str(pred), line)
    code, stdout, stderr = run_cli(
        "evaluate", str(pred), "--gold", str(gold), "--out", str(tmp_path / "cli.json")
    )
    assert code == 1 and stdout == ""
    one_error_line(stderr, f"{pred}:{line}:", words)
    assert not (tmp_path / "eval.json").exists()


def test_a_record_after_a_multi_line_one_is_named_by_its_own_line(tmp_path, gold):
    """Lines were counted as records: a quoted cell with a line break (a note column)
    shifted every line named after it."""
    pred = predictions(tmp_path, 'id,acceptable,note\n0,1,"two\nlines"\n1,0,\n1,1,\n')
    with pytest.raises(RucolaError) as error:
        evaluate(pred, gold, None)
    assert error.value.line == 5 and "first on line 4" in error.value.message


def test_a_malformed_gold_csv_is_one_line_naming_its_line(run_cli, tmp_path):
    """pandas' ParserError was a traceback."""
    gold_path = tmp_path / "in_domain_dev.csv"
    gold_path.write_text("id,sentence,acceptable\n0,a,1\n1,b,0,extra,cells\n", encoding="utf-8")
    pred = predictions(tmp_path, "id,acceptable\n0,1\n1,0\n")
    code, _, stderr = run_cli(
        "evaluate", str(pred), "--gold", str(gold_path), "--out", str(tmp_path / "cli.json")
    )
    assert code == 1
    one_error_line(stderr, f"{gold_path}:3:", "Expected 3 fields")
