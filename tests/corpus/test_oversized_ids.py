"""An id past what a 64-bit integer holds (issue 42: ItaCoLA's ``99999999999999999999999``
ended in an OverflowError traceback) is one line naming the file, the line and the column,
in every reader that reads published ids."""

from __future__ import annotations

from pathlib import Path

import pytest
from identity import identity_yaml, rucola_categories

from rucola.corpus.sources.readers import Readers
from rucola.errors import RucolaError
from rucola.settings import Extract, ExtractSource

HUGE = "99999999999999999999999"


def _read(path: Path, **keys) -> list:
    source = ExtractSource(path=str(path), **keys)
    return list(Readers(Extract(), rucola_categories()).read(path, source))


def test_an_itacola_id_too_large_is_one_line(tmp_path: Path):
    path = tmp_path / "ItaCoLA_dataset.tsv"
    path.write_text(
        "UniqueIndexID\tSource\tAcceptability\tSentence\tSplit\n"
        "1\tGraffi_1994\t1\tQuest'uomo mi ha colpito.\ttrain\n"
        f"{HUGE}\tGraffi_1994\t1\tQuesta donna mi ha colpito.\tdev\n",
        encoding="utf-8",
    )
    with pytest.raises(RucolaError) as caught:
        _read(path, type="itacola_tsv")
    assert (caught.value.path, caught.value.line) == (str(path), 3)
    assert f"id '{HUGE}' in column 'UniqueIndexID' is out of range" in caught.value.message


@pytest.mark.parametrize("value", [HUGE, "-" + HUGE, "9223372036854775808"])
def test_a_rucola_csv_id_too_large_is_one_line(tmp_path: Path, value: str):
    path = tmp_path / "in_domain_train.csv"
    path.write_text(
        "id,sentence,acceptable,error_type,detailed_source\n"
        f"0,Мальчик спит.,1,0,Paducheva\n{value},Мальчик спят.,0,Morphology,Paducheva\n",
        encoding="utf-8",
    )
    with pytest.raises(RucolaError) as caught:
        _read(path, type="rucola_csv")
    assert (caught.value.path, caught.value.line) == (str(path), 3)
    assert f"id '{value}' is out of range" in caught.value.message


def test_the_largest_id_is_read(tmp_path: Path):
    path = tmp_path / "t.tsv"
    path.write_text(
        "sentence\tlabel\tid\nA cat sleeps.\t1\t9223372036854775807\n", encoding="utf-8"
    )
    (row,) = _read(path, columns={"label": "label", "id": "id"})
    assert row.published_id == 2**63 - 1


def test_extract_of_a_huge_id_exits_with_one_line(run_cli, tmp_path: Path):
    path = tmp_path / "ItaCoLA_dataset.tsv"
    path.write_text(
        "UniqueIndexID\tSource\tAcceptability\tSentence\tSplit\n"
        f"{HUGE}\tGraffi_1994\t1\tQuest'uomo mi ha colpito.\ttrain\n",
        encoding="utf-8",
    )
    params = tmp_path / "params.yaml"
    params.write_text(
        identity_yaml(f"extract:\n  sources:\n  - path: {path}\n    type: itacola_tsv\n"),
        encoding="utf-8",
    )
    code, _, stderr = run_cli(
        "extract", "--params", str(params), "--out", str(tmp_path / "out.parquet")
    )
    assert code == 1
    assert f"{path}:2:" in stderr and "out of range" in stderr and "Traceback" not in stderr
