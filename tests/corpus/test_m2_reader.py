"""The M2 reader: blocks, noops, sentences without edits, and every malformed line."""

from __future__ import annotations

from pathlib import Path

import pytest

from rucola.corpus.sources.m2 import read_m2
from rucola.errors import RucolaError


def m2(tmp_path: Path, text: str, name: str = "corpus.m2") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def test_blocks_noops_and_sentences_without_edits(tmp_path):
    path = m2(
        tmp_path,
        "S Он пришёл домой .\r\n"
        "A 1 2|||G:VERB:P/N/G|||пришли|||REQUIRED|||-NONE-|||0\r\n"
        "A 2 2|||LACK|||поздно|||REQUIRED|||-NONE-|||0\r\n"
        "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1\r\n"
        "\r\n\r\n"
        "S Всё хорошо .   \n"
        "\n"
        "S Убрать лишнее слово слово .\n"
        "A 3 4|||L:REP||||||REQUIRED|||-NONE-|||0\n"
        "A 3 4|||L:REP|||-NONE-|||REQUIRED|||-NONE-|||0",  # no final newline
    )
    first, second, third = read_m2(path, "utf-8")
    assert first.line == 1 and first.tokens == ("Он", "пришёл", "домой", ".")
    assert list(first.edits) == ["0", "1"] and first.edits["1"] == ()
    verb, insertion = first.edits["0"]
    assert (verb.start, verb.end, verb.type, verb.correction) == (1, 2, "G:VERB:P/N/G", ("пришли",))
    assert (insertion.start, insertion.end, insertion.line) == (2, 2, 3)
    assert first.origin == f"{path}:1"
    assert second.line == 7 and second.edits == {} and second.raw == "Всё хорошо ."
    assert [e.correction for e in third.edits["0"]] == [(), ()]  # deletions, both spellings


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("A 0 1|||X|||y|||REQUIRED|||-NONE-|||0\n", 1, "before any S line"),
        ("S a b .\nA 0 1|||X|||y|||REQUIRED|||0\n", 2, "6 fields"),
        ("S a b .\nA 0 x|||X|||y|||REQUIRED|||-NONE-|||0\n", 2, "two whole numbers"),
        ("S a b .\nA 2 1|||X|||y|||REQUIRED|||-NONE-|||0\n", 2, "span 2-1 ends before it starts"),
        ("S a b .\nA --1 0|||X|||y|||REQUIRED|||-NONE-|||0\n", 2, "two whole numbers"),
        ("S a b .\nA 0 ²|||X|||y|||REQUIRED|||-NONE-|||0\n", 2, "two whole numbers"),
        ("S a b .\nA 0 1 2|||X|||y|||REQUIRED|||-NONE-|||0\n", 2, "two whole numbers"),
        ("S a b .\nA -1 2|||X|||y|||REQUIRED|||-NONE-|||0\n", 2, "outside the sentence"),
        ("S a b .\nA -1 0|||noop|||y|||REQUIRED|||-NONE-|||0\n", 2, "only a noop"),
        ("S a b .\nA 0 1|||X|||y|||REQUIRED|||-NONE-|||0|||1\n", 2, "this one 7"),
        (
            "S a b .\n\nS c .\nA 0 3|||X|||y|||REQUIRED|||-NONE-|||0\n",
            4,
            "span 0-3 outside the sentence (2 tokens)",
        ),
        ("S a b .\nA\n", 2, "starts with 'S '"),
        ("S a b .\nA 1 4|||X|||y|||REQUIRED|||-NONE-|||0\n", 2, "span 1-4 outside the sentence (3"),
        ("S a b .\nA -2 0|||X|||y|||REQUIRED|||-NONE-|||0\n", 2, "outside the sentence"),
        ("S a b .\nA -1 -1|||X|||y|||REQUIRED|||-NONE-|||0\n", 2, "only a noop"),
        ("S a b .\nA 0 1|||noop|||y|||REQUIRED|||-NONE-|||0\n", 2, "only a noop"),
        ("S a b .\nA 0 1|||X|||y|||REQUIRED|||-NONE-|||\n", 2, "no annotator"),
        ("S a b .\nA 0 1||||||y|||REQUIRED|||-NONE-|||0\n", 2, "no edit type"),
        ("S a b .\nT 0 1\n", 2, "starts with 'S '"),
        (
            "S a b .\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n"
            "A 0 1|||X|||y|||REQUIRED|||-NONE-|||0\n",
            3,
            "both left the sentence unchanged (line 2)",
        ),
    ],
)
def test_malformed_lines_name_file_and_line(tmp_path, text, line, words):
    path = m2(tmp_path, text)
    with pytest.raises(RucolaError) as caught:
        list(read_m2(path, "utf-8"))
    assert caught.value.path == str(path) and caught.value.line == line
    assert words in caught.value.message


def test_a_file_without_sentences_is_an_error_naming_the_file(tmp_path):
    path = m2(tmp_path, "\n\n")
    with pytest.raises(RucolaError, match="no sentence") as caught:
        list(read_m2(path, "utf-8"))
    assert caught.value.path == str(path) and caught.value.line is None


def test_bom_annotator_order_and_a_repeated_noop(tmp_path):
    """Annotators come in order of first appearance, not sorted; a BOM is no part of 'S'."""
    path = m2(
        tmp_path,
        "\ufeffS Я иду .\n"
        "A 1 2|||G:VERB:P/N/G|||идём|||REQUIRED|||-NONE-|||2\n"
        "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n"
        "A 0 1|||G:PRON:FORM|||Мы|||REQUIRED|||-NONE-|||2\n"
        "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n",
    )
    (sentence,) = read_m2(path, "utf-8")
    assert sentence.line == 1 and sentence.raw == "Я иду ."
    assert list(sentence.edits) == ["2", "0"] and sentence.edits["0"] == ()
    assert [e.line for e in sentence.edits["2"]] == [2, 4]
