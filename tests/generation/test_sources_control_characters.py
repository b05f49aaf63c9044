"""Generation sources: a sentence with a control or non-printing character is skipped and
counted (issue 13, "text is text"), and line separators inside a line do not split it."""

from __future__ import annotations

from pathlib import Path

from rucola.generation.sources import read_source
from rucola.settings import GenerationSource


def source(spec: dict) -> GenerationSource:
    """A ``generate.sources`` entry a test wrote, as the reader receives it."""
    return GenerationSource.model_validate(spec)


def write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path


def test_plain_text_lines_with_control_characters_are_skipped_and_counted(tmp_path: Path):
    text = (
        "Кошка спит на диване.\n"
        "Мальчик чи\x00тает книгу.\n"
        "Девочка пи\x07шет письмо.\n"
        "Мама \u202eмоет раму.\n"
        "Собака лает\u2028во дворе.\n"  # a separator inside the line: whitespace, one line
        "\n"
    )
    read = read_source("Wiki", source({"path": str(write(tmp_path / "w.txt", text))}), 1, "ru")
    assert read.read == 6
    assert [s.texts["ru"] for s in read.sentences] == [
        "Кошка спит на диване.",
        "Собака лает во дворе.",
    ]
    assert read.skipped == {"control_character": 2, "non_printing_character": 1, "empty": 1}
    assert read.read == len(read.sentences) + sum(read.skipped.values())


def test_parallel_sources_skip_the_row_and_stay_aligned(tmp_path: Path):
    write(tmp_path / "p.ru", "Я дома.\nОна\x1b спит.\nМы\u0085 тут.\nОн ушёл.\n")
    write(tmp_path / "p.en", "I am home.\nShe sleeps.\nWe are here.\nHe left.\n")
    read = read_source("Pair", source({"path": str(tmp_path / "p.ru")}), 1, "ru")
    assert [s.texts for s in read.sentences] == [
        {"ru": "Я дома.", "en": "I am home."},
        {"ru": "Он ушёл.", "en": "He left."},
    ]
    assert read.skipped == {"control_character": 2}

    write(tmp_path / "par.tsv", "en\tru\nThe cat\x00 sat.\tКошка сидела.\nHi.\tПривет.\n")
    read = read_source("Par", source({"path": str(tmp_path / "par.tsv")}), 1, "en")
    assert [s.texts["en"] for s in read.sentences] == ["Hi."]
    assert read.skipped == {"control_character": 1}
