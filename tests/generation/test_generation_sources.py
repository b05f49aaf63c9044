from __future__ import annotations

from pathlib import Path

import pytest

from rucola.errors import RucolaError
from rucola.generation.sources import read_source
from rucola.settings import GenerationSource


def source(spec: dict) -> GenerationSource:
    """A ``generate.sources`` entry a test wrote, as the reader receives it."""
    return GenerationSource.model_validate(spec)


def test_parallel_tsv_reads_both_sides_and_keeps_order(tmp_path: Path, sources):
    read = read_source("Par", source(sources["Par"]), 42, "en")
    assert read.read == 4
    assert [s.texts["en"] for s in read.sentences][0] == "The cat sat on the mat."
    assert read.sentences[1].texts["ru"] == "Она читает книгу каждый день."
    assert read.sentences[0].origin.endswith("par.tsv:2")


def test_plain_text_skips_empty_lines_with_a_count(sources):
    read = read_source("Wiki", source(sources["Wiki"]), 42, "ru")
    assert read.read == 4 and len(read.sentences) == 3
    assert read.skipped == {"empty": 1}


def test_line_aligned_pairs_and_tatoeba_rows(tmp_path: Path):
    (tmp_path / "t.rus").write_text("Я дома.\nОна спит.\n", encoding="utf-8")
    (tmp_path / "t.eng").write_text("I am home.\nShe sleeps.\n", encoding="utf-8")
    read = read_source("Tatoeba", source({"path": str(tmp_path / "t.rus")}), 1, "ru")
    assert [s.texts for s in read.sentences] == [
        {"ru": "Я дома.", "en": "I am home."},
        {"ru": "Она спит.", "en": "She sleeps."},
    ]
    (tmp_path / "challenge.txt").write_text(
        "eng\trus\tI am home.\tЯ дома.\nrus\teng\tОна спит.\tShe sleeps.\n", encoding="utf-8"
    )
    read = read_source(
        "TC", source({"path": str(tmp_path / "challenge.txt"), "format": "tatoeba"}), 1, "en"
    )
    assert [s.texts["ru"] for s in read.sentences] == ["Я дома.", "Она спит."]
    assert [s.texts["en"] for s in read.sentences] == ["I am home.", "She sleeps."]


def test_documents_are_split_into_sentences(tmp_path: Path):
    (tmp_path / "doc.txt").write_text("Он пришёл. Она ушла! А мы остались?\n", encoding="utf-8")
    spec = {"path": str(tmp_path / "doc.txt"), "split_sentences": True}
    read = read_source("Doc", source(spec), 1, "ru")
    assert [s.texts["ru"] for s in read.sentences] == ["Он пришёл.", "Она ушла!", "А мы остались?"]


def test_sampling_is_seeded_and_keeps_file_order(tmp_path: Path):
    lines = [f"Предложение номер {i} стоит здесь." for i in range(100)]
    (tmp_path / "many.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    spec = {"path": str(tmp_path / "many.txt"), "n": 10}
    first = read_source("Many", source(spec), 7, "ru")
    again = read_source("Many", source(spec), 7, "ru")
    other = read_source("Many", source(spec), 8, "ru")
    texts = [s.texts["ru"] for s in first.sentences]
    assert texts == [s.texts["ru"] for s in again.sentences]
    assert texts != [s.texts["ru"] for s in other.sentences]
    assert texts == sorted(texts, key=lines.index)
    assert first.skipped == {"not_sampled": 90}


def test_bad_sources_fail_with_file_and_line(tmp_path: Path):
    (tmp_path / "bad.tsv").write_text("id\ten\n1\tHello.\n", encoding="utf-8")
    with pytest.raises(RucolaError, match="missing column 'ru'") as error:
        read_source("Bad", source({"path": str(tmp_path / "bad.tsv")}), 1, "en")
    assert error.value.line == 1 and error.value.path.endswith("bad.tsv")

    (tmp_path / "m.ru").write_text("а\nб\nв\n", encoding="utf-8")
    (tmp_path / "m.en").write_text("a\nb\n", encoding="utf-8")
    with pytest.raises(RucolaError, match="misaligned"):
        read_source("M", source({"path": str(tmp_path / "m.ru")}), 1, "ru")

    (tmp_path / "empty.txt").write_text("\n\n", encoding="utf-8")
    with pytest.raises(RucolaError, match="no sentences"):
        read_source("Empty", source({"path": str(tmp_path / "empty.txt")}), 1, "ru")

    with pytest.raises(RucolaError, match="file not found"):
        read_source("Gone", source({"path": str(tmp_path / "gone.txt")}), 1, "ru")


def test_real_tatoeba_pairs_and_pud(shared_data: Path):
    read = read_source(
        "Tatoeba", source({"path": str(shared_data / "tatoeba/tatoeba.rus-eng.rus")}), 42, "en"
    )
    assert read.read == 1000
    assert len(read.sentences) + sum(read.skipped.values()) == 1000
    pud = read_source(
        "PUD", source({"path": str(shared_data / "pud/pud.en-ru.tsv"), "n": 100}), 42, "en"
    )
    assert len(pud.sentences) == 100 and all(s.texts["ru"] for s in pud.sentences)
