"""Homoglyphs repaired toward the script of ``corpus.language``: Latin look-alikes in
Russian words (as always), Cyrillic look-alikes in Latin-script words (ItaCoLA's ``Ѐ``)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from identity import identity_yaml

from rucola.corpus.homoglyphs import fix_homoglyphs

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "languages"


@pytest.mark.parametrize(
    ("text", "fixed"),
    [
        ("Ѐ stato rubato il cuore a Gabriele.", "È stato rubato il cuore a Gabriele."),
        ("Il сane dorme.", "Il cane dorme."),  # Cyrillic с inside an Italian word
        ("La pаrola è bella.", "La parola è bella."),
        ("Ho visto Сasa Rossa.", "Ho visto Casa Rossa."),
        ("а casa mia", "a casa mia"),  # a lone lower-case twin in a Latin sentence
        ("The сhіld sаid nо.", "The child said no."),  # і (U+0456) too
    ],
)
def test_cyrillic_lookalikes_in_latin_words_are_fixed(text, fixed):
    repaired, changes = fix_homoglyphs(text, "it")
    assert repaired == fixed and changes


@pytest.mark.parametrize(
    "text",
    [
        "Путин è arrivato a Roma.",  # a real Russian word in an Italian sentence
        "Ha scritto ВВС sul muro.",  # a whole word of capitals: an acronym, maybe Russian
        "Il nome Сергей non è italiano.",
        "Ѐ",  # no Latin letter to say the sentence is Latin
    ],
)
def test_real_cyrillic_words_are_left_alone(text):
    assert fix_homoglyphs(text, "it") == (text, [])


def test_each_direction_leaves_the_other_alone():
    assert fix_homoglyphs("Он никoгдa не писал.")[0] == "Он никогда не писал."
    assert fix_homoglyphs("Он никoгдa не писал.", "it")[0] == "Он никoгдa не писал."
    assert fix_homoglyphs("Il сane dorme.", "ru")[0] == "Il сane dorme."
    assert fix_homoglyphs("Il сane dorme.", "el") == ("Il сane dorme.", [])


def test_an_italian_row_with_a_cyrillic_lookalike_is_repaired_by_extract(run_cli, tmp_path):
    (tmp_path / "params.yaml").write_text(
        identity_yaml("corpus:\n  language: it\n"), encoding="utf-8"
    )
    code, _, err = run_cli(
        "extract",
        "--sources",
        str(FIXTURES / "it_sheet.tsv"),
        "--out",
        str(tmp_path / "o.parquet"),
        "--rejected",
        str(tmp_path / "r.parquet"),
        "--report",
        str(tmp_path / "x.json"),
        "--params",
        str(tmp_path / "params.yaml"),
    )
    assert code == 0, err
    kept = pq.read_table(tmp_path / "o.parquet").to_pylist()
    assert [r["sentence"] for r in kept] == [
        "È stato rubato il cuore a Gabriele.",
        "Il cane dorme sul divano.",
        "Путин è arrivato a Roma ieri.",
        "Il cane dormono sul divano.",
    ]
    assert kept[0]["corrections"] == "homoglyphs: Ѐ->È"
    report = json.loads((tmp_path / "x.json").read_text())
    assert report["homoglyph_fixes"]["rows"] == 2


def test_a_russian_corpus_leaves_the_italian_row_as_it_was(run_cli, tmp_path):
    (tmp_path / "params.yaml").write_text(identity_yaml(""), encoding="utf-8")
    code, _, err = run_cli(
        "extract",
        "--sources",
        str(FIXTURES / "it_sheet.tsv"),
        "--out",
        str(tmp_path / "o.parquet"),
        "--rejected",
        str(tmp_path / "r.parquet"),
        "--report",
        str(tmp_path / "x.json"),
        "--params",
        str(tmp_path / "params.yaml"),
    )
    assert code == 0, err
    kept = pq.read_table(tmp_path / "o.parquet").to_pylist()
    assert kept[0]["sentence"] == "Ѐ stato rubato il cuore a Gabriele."
