"""The unread-label check of tables and sheets (issue 42): a column whose name says it holds
labels and that no role reads is one line naming that column, never one read as the mark
or the source; it runs also when a label column is read (a second one would be lost); it
knows ``is_acceptable``; and following its hint reads the table."""

from __future__ import annotations

from pathlib import Path

import pytest
from identity import rucola_categories

from rucola.corpus.sources.readers import Readers
from rucola.errors import RucolaError
from rucola.settings import Extract, ExtractSource

# A textbook sheet: the mark in 'Judgement', the publisher's label in 'label'.
JUDGED = (
    "sentence\tJudgement\tlabel\n"
    "The cat sleeps.\t\t1\n"
    "The cat sleep.\t*\t0\n"
    "The cat might sleeps.\t?*\t0\n"
)


def _read(path: Path, **keys) -> list:
    source = ExtractSource(path=str(path), **keys)
    return list(Readers(Extract(), rucola_categories()).read(path, source))


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _hinted_columns(hint: str) -> dict[str, str]:
    """The ``columns: {...}`` a hint gives, as the source's columns."""
    inside = hint.split("columns: {", 1)[1].split("}", 1)[0]
    return dict(tuple(part.strip() for part in pair.split(":")) for pair in inside.split(","))


def test_a_column_read_as_the_mark_is_not_the_unread_label(tmp_path: Path):
    path = _write(tmp_path, "judged.tsv", JUDGED)
    with pytest.raises(RucolaError) as caught:
        _read(path, columns={"sentence": "sentence", "mark": "Judgement"})
    assert "'label' holds labels, but nothing reads it" in caught.value.message
    assert "Judgement" not in caught.value.message
    assert (caught.value.path, caught.value.line) == (str(path), 1)
    columns = _hinted_columns(caught.value.hint)
    assert columns == {"label": "label"}
    rows = _read(path, columns={"sentence": "sentence", "mark": "Judgement", **columns})
    assert [(r.label, r.mark) for r in rows] == [(1, None), (0, "*"), (0, "?*")]


def test_the_hint_on_a_plain_sheet_reads_it(tmp_path: Path):
    """A plain sheet with a mark column named 'Judgement' and a label column: the hint
    names the label column and reads the other as the mark, and following it works."""
    path = _write(tmp_path, "judged.tsv", JUDGED)
    with pytest.raises(RucolaError) as caught:
        _read(path)
    assert "'label' holds labels, but nothing reads it" in caught.value.message
    columns = _hinted_columns(caught.value.hint)
    assert columns == {"label": "label", "mark": "Judgement"}
    rows = _read(path, columns=columns)
    assert [(r.text, r.label, r.mark) for r in rows] == [
        ("The cat sleeps.", 1, None),
        ("The cat sleep.", 0, "*"),
        ("The cat might sleeps.", 0, "?*"),
    ]


@pytest.mark.parametrize("name", ["is_acceptable", "Is_Acceptable"])
def test_is_acceptable_on_a_sheet_is_a_label_column(tmp_path: Path, name: str):
    path = _write(
        tmp_path, "sheet.tsv", f"sentence\tmark\t{name}\nA cat sleeps.\t\t1\nA cat sleep.\t*\t0\n"
    )
    with pytest.raises(RucolaError, match=f"'{name}' holds labels, but nothing reads it") as caught:
        _read(path)
    rows = _read(path, columns=_hinted_columns(caught.value.hint))
    assert [(r.label, r.mark) for r in rows] == [(1, None), (0, "*")]


def test_a_second_label_column_beside_a_read_one_is_an_error(tmp_path: Path):
    """ItaCoLA's layout with a second label column: read as is, its labels would go to
    provenance unchecked. Renaming it, as the hint says, keeps it as provenance."""
    header = "UniqueIndexID\tSource\tAcceptability\tSentence\tSplit\t{}\n"
    rows = "1\tGraffi_1994\t1\tQuest'uomo mi ha colpito.\ttrain\t0\n"
    path = _write(tmp_path, "ItaCoLA_dataset.tsv", header.format("acceptable") + rows)
    with pytest.raises(RucolaError) as caught:
        _read(path, type="itacola_tsv")
    message = caught.value.message
    assert "'acceptable' holds labels too" in message and "'Acceptability'" in message
    assert (caught.value.path, caught.value.line) == (str(path), 1)
    renamed = caught.value.hint.split("rename it (e.g. '", 1)[1].split("'", 1)[0]
    path.write_text(header.format(renamed) + rows, encoding="utf-8")
    (row,) = _read(path, type="itacola_tsv")
    assert (row.label, row.provenance) == (1, {renamed: "0"})


def test_is_acceptable_beside_a_read_label_is_an_error(tmp_path: Path):
    path = _write(tmp_path, "t.tsv", "sentence\tgold\tis_acceptable\nA cat sleeps.\t1\t1\n")
    with pytest.raises(RucolaError, match="'is_acceptable' holds labels too"):
        _read(path, columns={"label": "gold"})


def test_columns_read_under_another_role_are_not_counted(tmp_path: Path):
    """A column named like labels but read as the sentence's source is read: no error."""
    path = _write(tmp_path, "t.tsv", "sentence\tgold\tjudgement\nA cat sleeps.\t1\tSmith\n")
    (row,) = _read(path, columns={"label": "gold", "source": "judgement"})
    assert (row.label, row.source) == (1, "Smith")
