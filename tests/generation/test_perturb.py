from __future__ import annotations

import random

import pytest

from rucola.generation.perturb import RULES, _tokens, perturb

SENTENCE = "Красивая девочка читает интересную книгу в парке."


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ("gender_agreement", {"Красивое девочка читает интересную книгу в парке."}),
        ("number_agreement", {"Красивая девочка читают интересную книгу в парке."}),
        ("government", {"Красивая девочка читает интересную книгу в парка."}),
        ("drop_word", None),
        ("repeat_word", None),
        ("word_order", None),
        ("case_agreement", None),
    ],
)
def test_each_rule_makes_one_change_and_records_its_name(rule, expected):
    out = perturb(SENTENCE, [rule], 1, seed=42)
    assert len(out) == 1
    name, candidate = out[0]
    assert name == rule and candidate != SENTENCE
    if expected is not None:
        assert candidate in expected
    words, changed = SENTENCE.split(), candidate.split()
    if rule in {"gender_agreement", "number_agreement", "government", "case_agreement"}:
        assert len(words) == len(changed)
        assert sum(a != b for a, b in zip(words, changed, strict=True)) == 1
    elif rule == "drop_word":
        assert len(changed) == len(words) - 1
    elif rule == "repeat_word":
        assert len(changed) == len(words) + 1
    else:
        assert sorted(w.lower() for w in words) == sorted(w.lower() for w in changed)


def test_capitals_follow_the_first_position():
    tokens = _tokens("Мы пошли домой.")
    swapped = RULES["word_order"]("Мы пошли домой.", tokens, random.Random(0))
    assert swapped in {"Пошли мы домой.", "Мы домой пошли."}


def test_rules_are_seeded_per_sentence_and_return_distinct_candidates():
    first = perturb(SENTENCE, list(RULES), 3, seed=1)
    assert first == perturb(SENTENCE, list(RULES), 3, seed=1)
    assert len({c for _, c in first}) == 3 and len({r for r, _ in first}) == 3


def test_a_rule_with_nothing_to_act_on_gives_nothing():
    assert perturb("Ура!", ["gender_agreement", "government"], 2, seed=1) == []
