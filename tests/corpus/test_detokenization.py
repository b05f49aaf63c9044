"""Tokens of GEC corpora back into printed text."""

from __future__ import annotations

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
    ],
)
def test_printed_text(tokens, text):
    assert detokenize(tokens.split()) == text


def test_tokens_are_never_changed():
    tokens = ["Он", ",сказал", ")", "(да", "-то"]
    assert detokenize(tokens).replace(" ", "") == "".join(tokens)
    assert detokenize([]) == ""
