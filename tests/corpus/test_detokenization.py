"""Tokens of GEC corpora back into printed text."""

from __future__ import annotations

import random

import pytest

from rucola.corpus.detokenize import detokenize


@pytest.mark.parametrize(
    ("tokens", "text"),
    [
        ("Кто - то , по - моему , прав .", "Кто-то, по-моему, прав."),
        ("Во - вторых , из - за дождя !", "Во-вторых, из-за дождя!"),
        ("Скажи - ка , какой - нибудь пример …", "Скажи-ка, какой-нибудь пример…"),
        ("в 1960 - е годы ...", "в 1960-е годы..."),
        (
            "Проблема - умение пользоваться программами .",
            "Проблема - умение пользоваться программами.",
        ),
        ("Башня ‒ не просто символ .", "Башня ‒ не просто символ."),
        ("Рассказ « Муму » , и мне жаль .", "Рассказ «Муму», и мне жаль."),
        (
            'Является " вторая " , ( которую считают первой ) : так .',
            'Является "вторая", (которую считают первой): так.',
        ),
        ('" Да " , — сказал он .', '"Да", — сказал он.'),
        ("Рост на 5 % , не больше ?", "Рост на 5%, не больше?"),
        ("чуть-чуть светлее", "чуть-чуть светлее"),  # a hyphen inside a token stays
        ("- Нет .", "- Нет."),  # a dash at the start is no hyphen
        ("Кое - что из Ростова - на - Дону .", "Кое-что из Ростова-на-Дону."),
        ("во Франкфурте - на - Майне", "во Франкфурте-на-Майне"),
        ("жизнь - на - износ", "жизнь - на - износ"),  # no place name: dashes
        ("в XIX - м веке , в 90 - х", "в XIX-м веке, в 90-х"),
        ("По - английски и вице - президент", "По-английски и вице-президент"),
        ("Всё - таки он - де прав", "Всё-таки он-де прав"),
        # Lines shaped like a school-essay GEC corpus's (GERA): verse breaks, three dashes,
        # quotes around an ellipsis, brackets of an annotator's note.
        (
            'Строчки : " От южных морей до полярного края // Раскинулись наши леса . " '
            "поясняют нам это .",
            'Строчки: "От южных морей до полярного края // Раскинулись наши леса." '
            "поясняют нам это.",
        ),
        (
            'В повести " А зори здесь тихие ... " , автор – о боях ‒ и — о людях .',
            'В повести "А зори здесь тихие...", автор – о боях ‒ и — о людях.',
        ),
        (
            "Счастье . [ от которого он ведет отсчет ] Любить ... но кого же ? ...",
            "Счастье. [от которого он ведет отсчет] Любить... но кого же?...",
        ),
        ("„ Да “ , сказал он ; “ нет ” .", "„Да“, сказал он; “нет”."),
        # A learner's text missing a quote: the last one still closes before the full stop.
        (
            'По роману " Война и мир " Совет в Филях " .',
            'По роману "Война и мир" Совет в Филях".',
        ),
        ('Он спросил : " ... и что дальше ? "', 'Он спросил: "... и что дальше?"'),
    ],
)
def test_printed_text(tokens, text):
    assert detokenize(tokens.split()) == text


def test_tokens_are_never_changed():
    tokens = ["Он", ",сказал", ")", "(да", "-то"]
    assert detokenize(tokens).replace(" ", "") == "".join(tokens)
    assert detokenize([]) == ""


def test_only_spaces_between_tokens_change():
    """A seeded property: whatever the tokens, removing the spaces gives them back joined,
    and no token loses its spaces on both sides to become glued inside another."""
    rng = random.Random(7)
    pool = [
        "кто",
        "то",
        "по",
        "моему",
        "-",
        "–",
        '"',
        "«",
        "»",
        "„",
        "“",
        "(",
        ")",
        ",",
        ".",
        "...",
        "1",
    ]
    for _ in range(300):
        tokens = [rng.choice(pool) for _ in range(rng.randint(0, 12))]
        text = detokenize(tokens)
        assert text.replace(" ", "") == "".join(tokens)
        assert "  " not in text and text == text.strip()
        assert len(text.split()) <= len(tokens)
