"""Labelled tables (``corpus.sources.tables``): a layout names the columns, labels and splits
are read through declared vocabularies, a mark beside a label is checked, and a label column
left unread is an error, never a silent default."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml
from identity import rucola_categories, with_identity
from pydantic import ValidationError

from rucola.corpus.sources.readers import Readers
from rucola.errors import RucolaError
from rucola.settings import Extract, ExtractSource


def _read(path: Path, **keys) -> list:
    source = ExtractSource(path=str(path), **keys)
    return list(Readers(Extract(), rucola_categories()).read(path, source))


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _extract(run_cli, tmp_path: Path, source: dict, **extract) -> tuple[int, str]:
    params = {
        "extract": {
            "sources": [source],
            "report": "report.json",
            "private_report": "private.json",
            "rejected": "rejected.parquet",
            "require_error_type": False,
            **extract,
        }
    }
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(with_identity(params)), encoding="utf-8")
    code, _, stderr = run_cli("extract", "--out", "out.parquet", cwd=tmp_path)
    return code, stderr


def test_a_headerless_table_by_positions_with_declared_labels(tmp_path: Path):
    path = _write(tmp_path, "judged.tsv", 'ok\tThe cat "sleeps".\tx\nbad\tThe cat sleep.\tx\n')
    rows = _read(
        path,
        header=False,
        quoting=False,
        columns={"label": 0, "sentence": 1},
        labels={"ok": "acceptable", "bad": "unacceptable"},
        split="train",
    )
    assert [(r.text, r.label) for r in rows] == [
        ('The cat "sleeps".', 1),
        ("The cat sleep.", 0),
    ]
    assert [(r.published_split, r.published_id) for r in rows] == [("train", 0), ("train", 1)]
    assert rows[0].provenance == {"column 2": "x"}
    assert [r.origin for r in rows] == [f"{path}:1", f"{path}:2"]


def test_number_keys_in_labels_read_as_the_cell_text(tmp_path: Path):
    path = _write(tmp_path, "t.csv", "sentence,acceptability\nA cat sleeps.,1\nA cat sleep.,0\n")
    rows = _read(
        path, columns={"label": "Acceptability"}, labels={1: "acceptable", 0: "unacceptable"}
    )
    assert [r.label for r in rows] == [1, 0]


def test_a_bad_labels_value_names_the_params_key():
    with pytest.raises(ValidationError, match="labels"):
        ExtractSource(path="t.tsv", labels={"1": "good"})
    with pytest.raises(ValidationError, match="columns.label"):
        ExtractSource(path="t.tsv", columns={"label": -1})


def test_a_label_column_a_sheet_does_not_read_is_an_error(tmp_path: Path):
    """ItaCoLA's TSV with its headers in lower case, read as a plain sheet: its labels
    would go to provenance and every row would be acceptable."""
    path = _write(
        tmp_path,
        "itacola.tsv",
        "uniqueindexid\tsource\tacceptability\tsentence\tsplit\n"
        "2\tGraffi_1994\t0\tQuesta donna mi hanno colpito.\ttrain\n",
    )
    with pytest.raises(RucolaError) as caught:
        _read(path)
    assert caught.value.path == str(path) and "'acceptability'" in caught.value.message
    with pytest.raises(RucolaError, match="'acceptability' holds labels"):
        _read(path, columns={"sentence": "sentence"})  # a layout that still leaves it unread
    rows = _read(path, columns={"label": "acceptability", "split": "split", "id": "uniqueindexid"})
    assert (rows[0].label, rows[0].published_split, rows[0].published_id) == (0, "train", 2)


@pytest.mark.parametrize(
    ("cell", "message"),
    [("2", "label '2' in column 'acceptability'"), ("", "label '' in column")],
)
def test_a_label_outside_the_declared_values_names_file_line_and_column(
    tmp_path: Path, cell: str, message: str
):
    path = _write(tmp_path, "t.tsv", f"sentence\tacceptability\nA cat sleeps.\t1\nA cat.\t{cell}\n")
    with pytest.raises(RucolaError, match=message) as caught:
        _read(path, columns={"label": "acceptability"})
    assert caught.value.line == 3


def test_an_unknown_split_value_and_a_bad_id_name_their_line(tmp_path: Path):
    path = _write(tmp_path, "t.tsv", "sentence\tlabel\tsplit\tid\nA.\t1\tholdout\t1\n")
    with pytest.raises(RucolaError, match="split 'holdout' in column 'split'"):
        _read(path, columns={"label": "label", "split": "split", "id": "id"})
    path = _write(tmp_path, "u.tsv", "sentence\tlabel\tsplit\tid\nA.\t1\tdev\tx7\n")
    with pytest.raises(RucolaError, match="id 'x7' in column 'id' is not an integer"):
        _read(path, columns={"label": "label", "split": "split", "id": "id"})


def test_a_layout_naming_a_missing_column_or_position_is_one_error(tmp_path: Path):
    path = _write(tmp_path, "t.tsv", "sentence\tlabel\nA.\t1\n")
    with pytest.raises(RucolaError, match="columns.label: no column 'gold'"):
        _read(path, columns={"label": "gold"})
    with pytest.raises(RucolaError, match="columns.label is column 5"):
        _read(path, columns={"label": 5})
    with pytest.raises(RucolaError, match=r"columns.sentence and .label are one column \(label\)"):
        _read(path, columns={"sentence": "label", "label": 1})
    with pytest.raises(RucolaError, match="names column 'label', but the table has no header"):
        _read(path, header=False, columns={"sentence": 0, "label": "label"})


def test_layout_keys_on_a_list_are_an_error(tmp_path: Path):
    path = _write(tmp_path, "l.txt", "(1) Мальчик спит.\n")
    with pytest.raises(RucolaError, match=r"extract.sources\[\].labels is for tables"):
        _read(path, labels={"1": "acceptable"})


def test_marks_that_contradict_labels_are_set_aside_with_a_reason(run_cli, tmp_path: Path):
    _write(
        tmp_path,
        "cola.tsv",
        "s1\t1\t\tThe cat sleeps.\n"
        "s1\t0\t*\tThe cat sleep.\n"
        "s1\t0\t\tThe dog sleeps.\n"  # CoLA's one row: label 0, no mark
        "s1\t1\t*\tThe dog sleep.\n"
        "s1\t0\t??\tThe cow sleeps quickly fast.\n"
        "s1\t1\t?\tThe bird sleeps, perhaps.\n"  # an excluded mark: the label decides
        "s1\t0\t \tThe fish swims.\n",  # a blank mark cell is no mark
    )
    source = {
        "path": "cola.tsv",
        "header": False,
        "quoting": False,
        "columns": {"source": 0, "label": 1, "mark": 2, "sentence": 3},
    }
    code, stderr = _extract(run_cli, tmp_path, source)
    assert code == 0, stderr
    kept = pd.read_parquet(tmp_path / "out.parquet")
    assert kept.set_index("sentence")["label"].to_dict() == {
        "The cat sleeps.": 1,
        "The cat sleep.": 0,
        "The cow sleeps quickly fast.": 0,
        "The bird sleeps, perhaps.": 1,
    }
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["set_aside"] == {"mark_contradicts_label": 3}
    assert report["read"] == report["kept"] + 3
    aside = pd.read_parquet(tmp_path / "rejected.parquet")
    assert sorted(aside["label"]) == [0, 0, 1]  # the published label stays in the side file
    assert set(aside["origin"]) == {f"cola.tsv:{n}" for n in (3, 4, 7)}


def test_an_excluded_label_is_set_aside_and_a_leading_mark_is_checked(run_cli, tmp_path: Path):
    _write(
        tmp_path,
        "t.csv",
        "sentence,verdict\nThe cat sleeps.,yes\nThe cat sleep.,no\n*The dog sleep.,yes\n"
        "The cow sleeps.,unsure\n",
    )
    source = {
        "path": "t.csv",
        "columns": {"label": "verdict"},
        "labels": {"yes": "acceptable", "no": "unacceptable", "unsure": "exclude"},
    }
    code, stderr = _extract(run_cli, tmp_path, source)
    assert code == 0, stderr
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["set_aside"] == {"excluded_label": 1, "mark_contradicts_label": 1}
    assert report["kept"] == 2


def test_a_published_split_is_kept_through_split(tmp_path: Path):
    """Rows with a published split and id are placed by them, whatever the ratios."""
    from rucola.corpus.split import _split
    from rucola.settings import Split

    path = _write(
        tmp_path,
        "t.tsv",
        "id\tsentence\tlabel\tsplit\n"
        + "".join(
            f"{i}\tSentence number {i}.\t{i % 2}\t{'test' if i < 8 else 'dev'}\n" for i in range(10)
        ),
    )
    rows = _read(path, columns={"label": "label", "split": "split", "id": "id"})
    frame = pd.DataFrame(
        {
            "sentence": [r.text for r in rows],
            "label": [r.label for r in rows],
            "error_type": None,
            "domain": [r.domain for r in rows],
            "detailed_source": [r.source for r in rows],
            "group": [f"g{i}" for i in range(10)],
            "published_split": [r.published_split for r in rows],
            "published_id": pd.array([r.published_id for r in rows], dtype="Int64"),
        }
    )
    applied, _ = _split(frame, Split(), path)
    placed = applied.frame.set_index("sentence")
    assert placed.loc["Sentence number 3.", "split"] == "test"
    assert placed.loc["Sentence number 9.", "split"] == "validation"
    assert placed.loc["Sentence number 9.", "id"] == 9
