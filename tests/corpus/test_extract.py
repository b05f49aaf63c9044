"""The extract stage on hand-written sheets and lists, and its refusals of bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from identity import identity_yaml

SHEET = (
    "sentence\tmark\terror_type\tsource\textra\n"
    "Мальчик читает книгу.\t\t\tBookA\tp. 12\n"
    "Мальчик читают книгу.\t*\tMorphology\tBookA\t\n"
    "Мальчик читает книгу.\t\t\tBookA\t\n"  # exact duplicate of line 2
    "Девочка пришла домой.\t\t\tBookB\t\n"
    "Девочка пришла домой.\t*\tSyntax\tBookB\t\n"  # conflicts with line 5
    "Она, кажется, спит.\t?\t\tBookB\t\n"  # excluded mark
    "Мы вернулись (*в) домой.\t\tSyntax\tBookB\t\n"  # alternation: two rows
)


def column(path: Path, name: str) -> list:
    """Values as Python objects (nulls as None), which pandas 3 would turn into NaN."""
    return pq.read_table(path).column(name).to_pylist()


def write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode(encoding))
    return path


def run_extract(run_cli, tmp_path: Path, *sources: Path, params: str = "") -> tuple:
    (tmp_path / "params.yaml").write_text(identity_yaml(params), encoding="utf-8")
    args = [
        "extract",
        "--out",
        str(tmp_path / "out.parquet"),
        "--rejected",
        str(tmp_path / "rejected.parquet"),
        "--report",
        str(tmp_path / "report.json"),
        "--params",
        str(tmp_path / "params.yaml"),
    ]
    for source in sources:
        args += ["--sources", str(source)]
    return run_cli(*args)


def test_sheet_labels_duplicates_conflicts_and_counts(run_cli, tmp_path):
    sheet = write(tmp_path / "in" / "sheet.tsv", SHEET)
    code, _, stderr = run_extract(run_cli, tmp_path, sheet)
    assert code == 0, stderr
    out = pd.read_parquet(tmp_path / "out.parquet")
    assert out["sentence"].tolist() == [
        "Мальчик читает книгу.",
        "Мальчик читают книгу.",
        "Мы вернулись домой.",
        "Мы вернулись в домой.",
    ]
    assert out["label"].tolist() == [1, 0, 1, 0]
    assert column(tmp_path / "out.parquet", "error_type") == [None, "Morphology", None, "Syntax"]
    assert out["origin"].tolist() == [f"{sheet}:2", f"{sheet}:3", f"{sheet}:8", f"{sheet}:8"]
    assert out["group"].iloc[2] == out["group"].iloc[3] != out["group"].iloc[0]
    assert set(out["domain"]) == {"in_domain"}
    assert json.loads(out["provenance"].iloc[0]) == {"extra": "p. 12"}
    rejected = pd.read_parquet(tmp_path / "rejected.parquet")
    assert sorted(rejected["reason"]) == [
        "conflicting_labels",
        "conflicting_labels",
        "duplicate",
        "excluded_mark",
    ]
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["read"] == 8 == report["kept"] + sum(report["set_aside"].values())
    assert report["lines_read"] == 7 and report["variants_added"] == 1
    assert "per_source" not in report and "acceptable_share" not in report  # git tracks it
    # beside --out: the private report, with what labels, sources and categories say
    private = json.loads((tmp_path / "extract.json").read_text())
    assert private["per_source"]["BookA"] == {
        "sentences": 2,
        "acceptable_share": 0.5,
        "error_type_shares": {"Morphology": 1.0},
    }


def test_conflict_can_be_an_error(run_cli, tmp_path):
    sheet = write(tmp_path / "sheet.tsv", SHEET)
    code, _, stderr = run_extract(
        run_cli, tmp_path, sheet, params="extract:\n  on_conflict: error\n"
    )
    assert code == 1
    assert "conflicting labels" in stderr and f"{sheet}:5" in stderr
    assert not (tmp_path / "out.parquet").exists()


def test_marks_in_the_sentence_and_default_source(run_cli, tmp_path):
    sheet = write(
        tmp_path / "Testelets.csv",
        'sentence,error_type\n"*Иван, пришла.",Morphology\n*?Он спал ночью вчера.,'
        "Semantics\nОн спал всю ночь.,\n",
    )
    code, _, stderr = run_extract(run_cli, tmp_path, sheet)
    assert code == 0, stderr
    out = pd.read_parquet(tmp_path / "out.parquet")
    assert out["sentence"].tolist() == [
        "Иван, пришла.",
        "Он спал ночью вчера.",
        "Он спал всю ночь.",
    ]
    assert out["mark"].tolist() == ["*", "*?", ""]
    assert out["label"].tolist() == [0, 0, 1]
    assert set(out["detailed_source"]) == {"Testelets"}


def test_list_file_through_the_stage(run_cli, tmp_path):
    lst = write(
        tmp_path / "book.txt",
        "# source: Book\n# error_type: Semantics\n(1) а. Он читал книгу два часа.\n"
        "    б. *Он прочитал книгу два часа.\n2. В. Иванов прочёл доклад.\n"
        "(3) #Зелёные идеи яростно спят.\n",
    )
    code, _, stderr = run_extract(run_cli, tmp_path, lst)
    assert code == 0, stderr
    out = pd.read_parquet(tmp_path / "out.parquet")
    assert out["sentence"].tolist() == [
        "Он читал книгу два часа.",
        "Он прочитал книгу два часа.",
        "В. Иванов прочёл доклад.",
    ]
    assert column(tmp_path / "out.parquet", "error_type") == [None, "Semantics", None]


def test_normalisation_makes_duplicates_visible(run_cli, tmp_path):
    composed = "Ёж пришёл  домой\u00a0вчера."
    decomposed = "Е\u0308ж пришёл домой вчера.\u200b"
    sheet = write(tmp_path / "s.tsv", f"sentence\tmark\n{composed}\t\n{decomposed}\t\n")
    code, _, _ = run_extract(run_cli, tmp_path, sheet)
    assert code == 0
    out = pd.read_parquet(tmp_path / "out.parquet")
    assert out["sentence"].tolist() == ["Ёж пришёл домой вчера."]


@pytest.mark.parametrize(
    ("content", "encoding", "line", "message"),
    [
        ("sentence\tmark\nОн спал.\t\nОна спала.\t\n", "cp1251", 2, "not valid utf-8"),
        ("text\tmark\nОн спал.\t\n", "utf-8", 1, "no 'sentence' column"),
        (
            "sentence\tmark\terror_type\nОн спал.\t\t\nОн спали.\t!*\tMorphology\n",
            "utf-8",
            3,
            "unknown judgment mark '!*'",
        ),
        (
            "sentence\tmark\terror_type\nОн спал.\t\t\nОн спали.\t*\t\n",
            "utf-8",
            3,
            "without error_type",
        ),
        (
            "sentence\tmark\terror_type\nОн спали.\t*\tPhonology\n",
            "utf-8",
            2,
            "invalid error_type 'Phonology'",
        ),
    ],
)
def test_bad_input_names_file_and_line_and_writes_nothing(
    run_cli, tmp_path, content, encoding, line, message
):
    sheet = write(tmp_path / "bad.tsv", content, encoding)
    code, stdout, stderr = run_extract(run_cli, tmp_path, sheet)
    assert code == 1
    assert f"{sheet}:{line}" in stderr
    assert message in stderr
    assert "Traceback" not in stderr + stdout
    assert not (tmp_path / "out.parquet").exists()
    assert not (tmp_path / "rejected.parquet").exists()
    assert not (tmp_path / "report.json").exists()


def test_unknown_mark_can_be_set_aside(run_cli, tmp_path):
    sheet = write(tmp_path / "s.tsv", "sentence\tmark\nОн спал.\t!\nОна спала.\t\n")
    code, _, _ = run_extract(run_cli, tmp_path, sheet, params="extract:\n  unknown_mark: reject\n")
    assert code == 0
    rejected = pd.read_parquet(tmp_path / "rejected.parquet")
    assert rejected["reason"].tolist() == ["unknown_mark"]


def test_error_type_optional_for_cola_style_sheets(run_cli, tmp_path):
    sheet = write(
        tmp_path / "cola.tsv",
        "source\tmark\tsentence\nclc95\t*\tThe more we "
        "study verbs, the crazier they get get.\nclc95\t\tBill left.\n",
    )
    code, _, stderr = run_extract(
        run_cli, tmp_path, sheet, params="extract:\n  require_error_type: false\n"
    )
    assert code == 0, stderr
    out = pd.read_parquet(tmp_path / "out.parquet")
    assert out["label"].tolist() == [0, 1]
    assert out["detailed_source"].tolist() == ["clc95", "clc95"]


NO_CATEGORIES = (
    "corpus:\n  categories: {in_domain: [], out_of_domain: [], learner: []}\n"
    "  name: cola\n  pretty_name: CoLA\n  description: null\n  citations: []\n"
    "  domain_descriptions: {out_of_domain: null}\n"
)


def test_a_corpus_without_categories_asks_for_none(run_cli, tmp_path):
    """Issue 35: with no categories declared, an unacceptable row needs none (no
    ``require_error_type: false`` needed), and a row that gives one names the key."""
    sheet = write(tmp_path / "cola.tsv", "sentence\tmark\nBill left.\t\nBill left left.\t*\n")
    code, _, stderr = run_extract(run_cli, tmp_path, sheet, params=NO_CATEGORIES)
    assert code == 0, stderr
    out = pd.read_parquet(tmp_path / "out.parquet")
    assert out["label"].tolist() == [1, 0] and out["error_type"].isna().all()

    sheet = write(
        tmp_path / "typed.tsv", "sentence\tmark\terror_type\nBill left left.\t*\tSyntax\n"
    )
    (tmp_path / "out.parquet").unlink()
    code, stdout, stderr = run_extract(run_cli, tmp_path, sheet, params=NO_CATEGORIES)
    assert code == 1 and f"{sheet}:2" in stderr and "Traceback" not in stdout + stderr
    assert "corpus.categories declares none for in_domain" in stderr
    assert not (tmp_path / "out.parquet").exists()


def test_unknown_param_is_an_error(run_cli, tmp_path):
    sheet = write(tmp_path / "s.tsv", "sentence\nОн спал.\n")
    code, _, stderr = run_extract(
        run_cli, tmp_path, sheet, params="extract:\n  on_conflit: error\n"
    )
    assert code == 1 and "on_conflit" in stderr
