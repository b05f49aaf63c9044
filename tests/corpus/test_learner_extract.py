"""M2 learner corpora through the extract stage: rows, groups, counts and refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
from identity import identity_yaml
from test_extract import run_extract, write

M2 = (
    "S Мой друг всегда помогают мне с уроками .\n"
    "A 3 4|||G:VERB:P/N/G|||помогает|||REQUIRED|||-NONE-|||0\n"
    "\n"
    "S Я согласен с мнениим автора что природу нужно беречь .\n"
    "A 3 4|||S:ORTH|||мнением|||REQUIRED|||-NONE-|||0\n"
    "A 5 5|||PUNCT|||,|||REQUIRED|||-NONE-|||0\n"
    "\n"
    "S Я очень скучаю по вас , дорогие друзья .\n"
    "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n"
    "A 4 5|||G:PRON:FORM|||вам|||REQUIRED|||-NONE-|||1\n"
    "\n"
    "S Кто - то из ребят забыли закрыть окно в классе .\n"
    "A 5 6|||G:VERB:P/N/G|||забыл|||REQUIRED|||-NONE-|||0\n"
)


def test_an_m2_file_gives_learner_pairs_grouped_and_counted(run_cli, tmp_path):
    source = write(tmp_path / "in" / "essays.m2", M2)
    code, _, stderr = run_extract(run_cli, tmp_path, source)
    assert code == 0, stderr
    out = pd.read_parquet(tmp_path / "out.parquet")
    rows = list(zip(out["sentence"], out["label"], out["error_type"].fillna(""), strict=True))
    assert rows == [
        ("Мой друг всегда помогает мне с уроками.", 1, ""),
        ("Мой друг всегда помогают мне с уроками.", 0, "Morphology"),
        ("Я согласен с мнением автора, что природу нужно беречь.", 1, ""),
        ("Я очень скучаю по вам, дорогие друзья.", 1, ""),
        ("Кто-то из ребят забыл закрыть окно в классе.", 1, ""),
        ("Кто-то из ребят забыли закрыть окно в классе.", 0, "Morphology"),
    ]
    assert set(out["domain"]) == {"learner"} and set(out["detailed_source"]) == {"essays"}
    assert set(out["mark"]) == {""}
    groups = out["group"].tolist()
    assert groups[0] == groups[1] and groups[4] == groups[5] and groups[0] != groups[4]
    assert out["origin"].tolist()[0].endswith("essays.m2:1")

    rejected = pq.read_table(tmp_path / "rejected.parquet").to_pandas()
    assert rejected["reason"].tolist() == ["annotators_disagree", "annotators_disagree"]
    assert set(rejected["sentence"]) == {"Я очень скучаю по вас, дорогие друзья."}
    report = json.loads((tmp_path / "extract.json").read_text(encoding="utf-8"))  # private
    assert report["read"] == report["kept"] + sum(report["set_aside"].values()) == 8
    assert report["set_aside"] == {"annotators_disagree": 2}
    learner = report["learner"]
    assert learner["sentences"] == 4 and learner["pairs"] == 2
    assert report["per_source"]["essays"]["acceptable_share"] == round(4 / 6, 4)


def test_judgment_files_and_an_m2_file_side_by_side(run_cli, tmp_path):
    sheet = write(
        tmp_path / "in" / "sheet.tsv",
        "sentence\tmark\terror_type\nМальчик читают книгу.\t*\tMorphology\n",
    )
    source = write(tmp_path / "in" / "essays.m2", M2)
    code, _, stderr = run_extract(run_cli, tmp_path, sheet, source)
    assert code == 0, stderr
    out = pd.read_parquet(tmp_path / "out.parquet")
    assert out["domain"].value_counts().to_dict() == {"learner": 6, "in_domain": 1}
    report = json.loads((tmp_path / "extract.json").read_text(encoding="utf-8"))  # private
    assert "learner" in report


def test_no_learner_section_without_m2_sources(run_cli, tmp_path):
    sheet = write(tmp_path / "in" / "sheet.tsv", "sentence\nМальчик читает книгу.\n")
    code, _, stderr = run_extract(run_cli, tmp_path, sheet)
    assert code == 0, stderr
    report = json.loads((tmp_path / "extract.json").read_text(encoding="utf-8"))  # private
    assert "learner" not in report


def _refused(run_cli, tmp_path: Path, text: str, params: str = "") -> str:
    source = write(tmp_path / "in" / "bad.m2", text)
    code, stdout, stderr = run_extract(run_cli, tmp_path, source, params=params)
    assert code == 1
    assert "Traceback" not in stdout + stderr
    assert not (tmp_path / "out.parquet").exists()
    assert not (tmp_path / "rejected.parquet").exists()
    assert not (tmp_path / "report.json").exists()
    lines = [line for line in (stdout + stderr).splitlines() if line.strip()]
    assert len(lines) == 1, lines
    return lines[0]


def test_bad_m2_input_is_one_line_naming_file_and_line(run_cli, tmp_path):
    broken = M2.replace("A 5 6|||G:VERB:P/N/G|||забыл", "A 5 6|||G:VERB:P/N/G")
    assert "bad.m2:13" in _refused(run_cli, tmp_path, broken)
    outside = M2.replace("A 3 4|||G:VERB", "A 3 40|||G:VERB")
    assert "bad.m2:2" in _refused(run_cli, tmp_path, outside)
    unknown = M2.replace("G:PRON:FORM", "Сущ.:Падеж")
    line = _refused(run_cli, tmp_path, unknown)
    assert "bad.m2:10" in line and "Сущ.:Падеж" in line


def test_unknown_edit_types_can_be_set_aside(run_cli, tmp_path):
    (tmp_path / "params.yaml").write_text(identity_yaml(""), encoding="utf-8")
    source = write(tmp_path / "in" / "essays.m2", M2.replace("G:PRON:FORM", "Сущ.:Падеж"))
    code, _, stderr = run_extract(
        run_cli, tmp_path, source, params="extract:\n  m2:\n    unknown_type: reject\n"
    )
    assert code == 0, stderr
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["set_aside"] == {"unknown_edit_type": 1}


def test_a_category_outside_error_types_is_a_params_error(run_cli, tmp_path):
    source = write(tmp_path / "in" / "essays.m2", M2)
    params = 'extract:\n  m2:\n    categories:\n      "G:*": Grammar\n'
    code, stdout, stderr = run_extract(run_cli, tmp_path, source, params=params)
    assert code == 1 and "Traceback" not in stdout + stderr
    assert "extract.m2.categories" in stdout + stderr
