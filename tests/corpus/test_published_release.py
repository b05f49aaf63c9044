"""A published release folder as a source: ids and splits kept, the test file carried with
or without the maintainer's private gold, and every inconsistency named by file and line."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from identity import rucola_categories

from rucola.corpus.extract import extract
from rucola.errors import RucolaError
from rucola.settings import Extract, ExtractSource

TRAIN = """id,sentence,acceptable,error_type,detailed_source
0,Кот спит на диване.,1,0,Book
1,Кот спят на диване.,0,Morphology,Book
5,Перемен еще не началось.,1,0,Book
"""
DEV = """id,sentence,acceptable,error_type,detailed_source
0,Пёс лает во дворе.,1,0,Book
"""
OOD = """id,sentence,acceptable,error_type,detailed_source
0,"Модель перевела это, как могла.",0,Hallucination,TED
"""
TEST = """id,sentence
0,Дом стоит на холме.
1,Перемен еще не началось.
2,Собака лают громко.
"""
GOLD = """id,sentence,acceptable,error_type,detailed_source,domain
0,Дом стоит на холме.,1,0,Book,in_domain
1,Перемен еще не началось.,1,0,Book,in_domain
2,Собака лают громко.,0,Morphology,TED,out_of_domain
"""


def release(folder: Path, gold: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in [
        ("in_domain_train.csv", TRAIN),
        ("in_domain_dev.csv", DEV),
        ("out_of_domain_dev.csv", OOD),
        ("test.csv", TEST),
        ("sample_submission.csv", "id,acceptable\n0,1\n1,1\n2,0\n"),
    ]:
        (folder / name).write_text(text, encoding="utf-8")
    if gold is not None:
        (folder / "test_gold.csv").write_text(gold, encoding="utf-8")
    return folder


def settings_in(tmp_path: Path, **params) -> Extract:
    """The extract settings with its outputs under ``tmp_path``."""
    return Extract(
        out=str(tmp_path / "out.parquet"),
        rejected=str(tmp_path / "rejected.parquet"),
        report=str(tmp_path / "report.json"),
        private_report=str(tmp_path / "private_report.json"),
        **params,
    )


def run(tmp_path: Path, folder: Path, **params) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    report = extract(
        settings_in(tmp_path, **params),
        rucola_categories(),
        [ExtractSource(path=str(folder), type="rucola_csv")],
    )
    return (
        pd.read_parquet(tmp_path / "out.parquet"),
        pd.read_parquet(tmp_path / "rejected.parquet"),
        report,
    )


def test_without_gold_the_test_rows_are_carried_unlabelled(tmp_path):
    rows, rejected, report = run(tmp_path, release(tmp_path / "v1"), deduplicate=False)
    assert len(rows) == 8 and report["read"] == 8 and report["unlabelled"] == 3
    assert rows["published_split"].tolist() == ["train"] * 3 + ["validation"] * 2 + ["test"] * 3
    assert rows["published_id"].tolist() == [0, 1, 5, 0, 0, 0, 1, 2]
    test = rows[rows["published_split"] == "test"]
    assert set(test["label"]) == {-1} and test["domain"].isna().all()
    assert test["error_type"].isna().all() and test["detailed_source"].isna().all()
    assert rows["domain"].tolist()[:5] == ["in_domain"] * 4 + ["out_of_domain"]
    assert rejected.empty


def test_with_gold_the_test_rows_get_labels_and_domains(tmp_path):
    rows, rejected, _ = run(tmp_path, release(tmp_path / "v1", GOLD))
    test = rows[rows["published_split"] == "test"].set_index("published_id")
    assert test.loc[2, ["label", "error_type", "domain", "detailed_source"]].tolist() == [
        0,
        "Morphology",
        "out_of_domain",
        "TED",
    ]
    # the sentence in train and test: the test copy repeats the train row
    assert rejected["reason"].tolist() == ["duplicate"]
    assert rejected[["published_split", "published_id"]].values.tolist() == [["test", 1]]


def test_a_gold_label_of_a_test_copy_never_decides_the_fate_of_a_train_row(tmp_path):
    """Issue 32: with the gold, a test copy of a train sentence whose hidden label differs
    set both aside as conflicting, so the public train split lost a row exactly when the
    hidden label disagreed. A published test row conflicts with no label: the train row
    is kept and the copy set aside as a repeat, whatever the gold says."""
    flipped = GOLD.replace(
        "1,Перемен еще не началось.,1,0,Book", "1,Перемен еще не началось.,0,Syntax,Book"
    )
    outcomes = []
    for name, gold in (("same", GOLD), ("flipped", flipped)):
        rows, rejected, _ = run(tmp_path / name, release(tmp_path / f"v1_{name}", gold))
        outcomes.append((rows[rows["published_split"] == "train"]["sentence"].tolist(),
                         rejected["reason"].tolist()))  # fmt: skip
    assert outcomes[0] == outcomes[1]
    assert outcomes[1][1] == ["duplicate"]
    assert "Перемен еще не началось." in outcomes[1][0]


def test_an_unlabelled_copy_conflicts_with_no_label(tmp_path):
    rows, rejected, _ = run(tmp_path, release(tmp_path / "v1"))
    assert rejected["reason"].tolist() == ["duplicate"]  # not conflicting_labels
    assert len(rows) == 7


@pytest.mark.parametrize(
    ("gold", "message"),
    [
        (GOLD.replace("2,Собака лают", "7,Собака лают"), "test id 2 is not in test_gold.csv"),
        (GOLD.replace("холме.,1", "горе.,1"), "the gold sentence of id 0 differs"),
        (GOLD.replace("TED,out_of_domain", "TED,ood"), "domain must be"),
        (GOLD + "9,Лишняя строка тут.,1,0,Book,in_domain\n", r"gold id\(s\) not in test.csv"),
    ],
)
def test_gold_problems_name_the_file_and_line(tmp_path, gold, message):
    with pytest.raises(RucolaError, match=message) as caught:
        run(tmp_path, release(tmp_path / "v1", gold))
    assert ".csv:" in caught.value.format()
    assert not (tmp_path / "out.parquet").exists()


def test_a_published_folder_is_recognised_without_a_type(tmp_path):
    folder = release(tmp_path / "v1")
    report = extract(
        settings_in(tmp_path, deduplicate=False),
        rucola_categories(),
        [ExtractSource(path=str(folder))],
    )
    assert report["read"] == 8 and report["files"] == [str(folder)]


def test_a_cell_beyond_the_csv_field_limit_is_one_line_naming_file_and_line(tmp_path):
    """Issue 32: a published file with a cell over the csv module's field limit (a quote
    left open, say) was a ``_csv.Error`` traceback at extraction; now one line."""
    folder = release(tmp_path / "v1")
    huge = "Очень " * 30_000
    (folder / "in_domain_dev.csv").write_text(DEV + f'1,"{huge}",1,0,Book\n', encoding="utf-8")
    with pytest.raises(RucolaError) as caught:
        run(tmp_path / "out", folder)
    assert "in_domain_dev.csv:3" in str(caught.value) and "longer than" in str(caught.value)
