from pathlib import Path

import pytest

from rucola.corpus.sources.lists import read_list, strip_numbering
from rucola.corpus.sources.readers import source_type
from rucola.errors import RucolaError
from rucola.settings import ExtractSource


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("(12) Он пришёл.", "Он пришёл."),
        ("12. Он пришёл.", "Он пришёл."),
        ("12) *Он пришёл.", "*Он пришёл."),
        ("(3) а. Он пришёл.", "Он пришёл."),
        ("    б) ?Он пришёл.", "?Он пришёл."),
        ("  b. Betsy left.", "Betsy left."),
        ("В. Иванов прочёл доклад.", "В. Иванов прочёл доклад."),
        ("2 мая прошёл праздник.", "2 мая прошёл праздник."),
        ("12.5 процента голосов ушли ему.", "12.5 процента голосов ушли ему."),
    ],
)
def test_numbering_is_removed_but_sentence_starts_are_kept(line, expected):
    assert strip_numbering(line) == expected


def test_list_directives_and_origins(tmp_path: Path):
    path = tmp_path / "book.txt"
    path.write_text(
        "# source: Book\n# a comment\n\n(1) Он пришёл.\n# error_type: Syntax\n"
        "(2) а. Он пришёл домой.\n    б. *Он домой пришёл в.\n",
        encoding="utf-8",
    )
    rows = list(read_list(path, ExtractSource(path=str(path)), "utf-8"))
    assert [r.text for r in rows] == ["Он пришёл.", "Он пришёл домой.", "*Он домой пришёл в."]
    assert [r.origin for r in rows] == [f"{path}:4", f"{path}:6", f"{path}:7"]
    assert rows[0].error_type is None and rows[2].error_type == "Syntax"
    assert {r.source for r in rows} == {"Book"}


def test_comments_that_look_like_no_directive_stay_comments(tmp_path: Path):
    """Only '#', an ASCII identifier and ':' is a directive (docs/inputs.md, "Example lists"): a
    Cyrillic heading, a hyphenated word, a URL and plain text are comments, and a known
    directive may be written in any case and without the space."""
    path = tmp_path / "book.txt"
    path.write_text(
        "# Тема: порядок слов\n# error-type: not a directive\n# https://example.org/x\n"
        "# see p. 12: the table\n#SOURCE: Book\n(1) Он пришёл.\n",
        encoding="utf-8",
    )
    (row,) = read_list(path, ExtractSource(path=str(path)), "utf-8")
    assert (row.text, row.source, row.origin) == ("Он пришёл.", "Book", f"{path}:6")


def test_a_misspelt_directive_names_its_line(tmp_path: Path):
    path = tmp_path / "book.txt"
    path.write_text("# source: Book\n(1) Он пришёл.\n\n# eror_type: Syntax\n", encoding="utf-8")
    with pytest.raises(RucolaError, match="unknown directive '# eror_type:'") as info:
        list(read_list(path, ExtractSource(path=str(path)), "utf-8"))
    assert (info.value.line, "did you mean '# error_type:'" in info.value.hint) == (4, True)


def test_unknown_extension_needs_a_type(tmp_path: Path):
    with pytest.raises(RucolaError, match="type"):
        source_type(tmp_path / "x.json", None)
    assert source_type(tmp_path / "x.csv", "rucola_csv") == "rucola_csv"


def _sheet(tmp_path: Path, text: str, name: str = "judgments.tsv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_sheet_cell_starting_with_a_quote_is_a_quoted_cell(tmp_path: Path):
    """The quoting rule docs/inputs.md states: a quoted cell's quotes are not its text, a
    doubled quote inside it is one, and a quote later in a cell is an ordinary character."""
    from rucola.corpus.sources.sheets import read_sheet

    path = _sheet(
        tmp_path,
        'sentence\tmark\n"""Да"", — сказал он."\t\nОн сказал "да".\t*\n"Тихо\tстало."\t\n',
    )
    rows = list(read_sheet(path, ExtractSource(path=str(path)), "utf-8"))
    assert [r.text for r in rows] == ['"Да", — сказал он.', 'Он сказал "да".', "Тихо\tстало."]


def test_a_sheet_quote_error_names_file_and_line_and_shows_the_tab(tmp_path: Path):
    from rucola.corpus.sources.sheets import read_sheet

    path = _sheet(tmp_path, 'sentence\tmark\nХорошо.\t\n"Да", — сказал он.\t\n')
    with pytest.raises(RucolaError) as caught:
        list(read_sheet(path, ExtractSource(path=str(path)), "utf-8"))
    line = caught.value.format()
    assert line.startswith(f"{path}:3: cannot parse the row: ")
    assert "'\\t' expected after '\"'" in line  # a visible \t, not a tab character
    assert "\t" not in line and "\n" not in line
    assert "quote the whole cell" in line


def test_the_quoting_rule_is_documented_where_sheets_are():
    root = Path(__file__).resolve().parents[2]
    doc = "docs/inputs.md"  # the sheets' formats (the README links it)
    assert '`"""Да"", — сказал он."`' in (root / doc).read_text(encoding="utf-8"), doc
