"""No silent losses at extraction: every example is kept, set aside with a counted reason,
or the run stops naming the file and line."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from identity import identity_yaml

from rucola.corpus.sources.lists import read_list
from rucola.settings import ExtractSource

CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def extract(run_cli, tmp_path: Path, *sources: Path, params: str = "") -> tuple[int, str, str]:
    (tmp_path / "params.yaml").write_text(identity_yaml(params), encoding="utf-8")
    args = ["extract", "--params", str(tmp_path / "params.yaml")]
    for name, file in (("out", "out.parquet"), ("rejected", "rejected.parquet")):
        args += [f"--{name}", str(tmp_path / "result" / file)]
    args += ["--report", str(tmp_path / "result" / "report.json")]
    for source in sources:
        args += ["--sources", str(source)]
    return run_cli(*args)


def results(tmp_path: Path) -> tuple[list[dict], list[dict], dict]:
    folder = tmp_path / "result"
    return (
        pq.read_table(folder / "out.parquet").to_pylist(),
        pq.read_table(folder / "rejected.parquet").to_pylist(),
        json.loads((folder / "report.json").read_text(encoding="utf-8")),
    )


def test_a_hash_marked_example_in_a_list_goes_through_the_marks(run_cli, tmp_path):
    lst = write(
        tmp_path / "book.txt",
        "# source: Book\n"
        "# Тема: комментарий с точкой в конце.\n"
        "#\n"
        "Мальчик читает книгу.\n"
        "#Мальчик спит.\n"
        "#?Девочка спит тихо.\n"
        "(3) #Зелёные идеи яростно спят.\n",
    )
    code, stdout, stderr = extract(run_cli, tmp_path, lst)
    assert code == 1 and f"{lst}:6: unknown judgment mark '#?'" in stderr  # not a comment
    code, stdout, stderr = extract(
        run_cli, tmp_path, lst, params="extract:\n  unknown_mark: reject\n"
    )
    assert code == 0, stderr
    kept, rejected, report = results(tmp_path)
    assert [r["sentence"] for r in kept] == ["Мальчик читает книгу."]
    assert [(r["origin"], r["reason"], r["detail"], r["sentence"]) for r in rejected] == [
        (f"{lst}:5", "excluded_mark", "#", "Мальчик спит."),
        (f"{lst}:6", "unknown_mark", "#?", "Девочка спит тихо."),
        (f"{lst}:7", "excluded_mark", "#", "Зелёные идеи яростно спят."),
    ]
    assert {r["stage"] for r in rejected} == {"extract"}
    assert report["read"] == 4 and report["kept"] == 1
    assert report["set_aside"] == {"excluded_mark": 2, "unknown_mark": 1}
    assert "3 set aside (excluded_mark 2, unknown_mark 1)" in stdout


def test_list_reader_tells_comments_from_hash_marks(tmp_path):
    path = write(
        tmp_path / "l.txt",
        "# a comment\n#\tanother\n#source: Book\n#Он спит.\n##Он спит.\n12. # Он спит.\n",
    )
    rows = list(read_list(path, ExtractSource(path=str(path)), "utf-8"))
    assert [(r.origin.rsplit(":", 1)[1], r.text) for r in rows] == [
        ("4", "#Он спит."),
        ("5", "##Он спит."),
        ("6", "# Он спит."),  # numbered: an example whatever follows the mark
    ]
    assert {r.source for r in rows} == {"Book"}
    assert all(r.error_type_from_section for r in rows)


@pytest.mark.parametrize(
    ("sheet", "line"),
    [
        # A 4-column sheet: '!!' is no judgment mark, so the row reads as acceptable.
        (
            "sentence\tmark\terror_type\nМальчик читает книгу.\t\t\n"
            "!!Мальчик читают книгу.\t\tMorphology\n",
            3,
        ),
        # The mark in the sentence (2 columns): the same.
        ("sentence\terror_type\nМальчик читает книгу.\t\n!!Мальчик читают книгу.\tMorphology\n", 3),
        # An acceptable mark column with a category.
        (
            "sentence\tmark\terror_type\nМальчик читают книгу.\t\tMorphology\n"
            "Мальчик читает книгу.\t\t\n",
            2,
        ),
    ],
)
def test_a_category_on_an_acceptable_row_is_set_aside_and_counted(run_cli, tmp_path, sheet, line):
    path = write(tmp_path / "s.tsv", sheet)
    code, _, stderr = extract(run_cli, tmp_path, path)
    assert code == 0, stderr
    kept, rejected, report = results(tmp_path)
    assert [r["sentence"] for r in kept] == ["Мальчик читает книгу."]
    assert [(r["origin"], r["reason"], r["detail"], r["label"]) for r in rejected] == [
        (f"{path}:{line}", "error_type_on_acceptable", "Morphology", 1)
    ]
    assert report["set_aside"] == {"error_type_on_acceptable": 1}
    assert report["read"] == report["kept"] + 1


def test_a_category_that_belongs_to_a_variant_or_a_section_is_no_contradiction(run_cli, tmp_path):
    sheet = write(
        tmp_path / "s.tsv",
        "sentence\tmark\terror_type\nМы вернулись (*в) домой.\t\tSyntax\n"
        "Они (пришли/*пришла) домой.\t\tMorphology\n",
    )
    lst = write(
        tmp_path / "l.txt",
        "# error_type: Syntax\n(1) Он пришёл домой вечером.\n(2) *Он домой пришёл в вечером.\n",
    )
    code, _, stderr = extract(run_cli, tmp_path, sheet, lst)
    assert code == 0, stderr
    kept, rejected, report = results(tmp_path)
    assert rejected == [] and report["set_aside"] == {}
    assert [(r["sentence"], r["label"], r["error_type"]) for r in kept] == [
        ("Мы вернулись домой.", 1, None),
        ("Мы вернулись в домой.", 0, "Syntax"),
        ("Они пришли домой.", 1, None),
        ("Они пришла домой.", 0, "Morphology"),
        ("Он пришёл домой вечером.", 1, None),
        ("Он домой пришёл в вечером.", 0, "Syntax"),
    ]


@pytest.mark.parametrize(
    ("name", "content", "line", "message"),
    [
        ("header.tsv", "sentence\tmark\terror_type\n", 1, "a header but no example rows"),
        ("blank.tsv", "sentence\tmark\n\t\n\n", 1, "a header but no example rows"),
        ("header.csv", "sentence,error_type\n", 1, "a header but no example rows"),
        ("comments.txt", "# source: Book\n# only comments here\n\n", None, "no examples"),
        (
            "in_domain_dev.csv",
            "id,sentence,acceptable,error_type,detailed_source\n",
            1,
            "a header but no rows",
        ),
    ],
)
def test_a_source_with_no_rows_is_an_error_naming_the_file(
    run_cli, tmp_path, name, content, line, message
):
    good = write(tmp_path / "good.tsv", "sentence\tmark\nОн спит.\t\n")
    bad = write(tmp_path / "in" / name, content)
    source = bad.parent if name.startswith("in_domain") else bad  # a published release folder
    code, stdout, stderr = extract(run_cli, tmp_path, good, source)
    assert code == 1
    where = f"{bad}:{line}" if line else f"{bad}:"
    assert where in stderr and message in stderr
    assert "Traceback" not in stdout + stderr
    assert not (tmp_path / "result").exists()


def test_the_source_readers_import_nothing_from_their_package():
    """The package imports its readers; a reader importing the package back is a cycle."""
    for name in ("lists", "sheets", "rucola_csv", "records", "text"):
        tree = ast.parse((CORPUS / "sources" / f"{name}.py").read_text(encoding="utf-8"))
        imported = {
            node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module
        }
        assert "rucola.corpus.sources" not in imported, name
