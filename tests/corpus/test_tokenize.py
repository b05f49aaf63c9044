"""The regex fast path gives exactly razdel's tokens wherever it applies."""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest
import razdel

from rucola.corpus.tokens import _SIMPLE, tokenize


def _razdel(text: str) -> list[str]:
    return [t.text for t in razdel.tokenize(text)]


@pytest.mark.slow
def test_fast_path_equals_razdel_on_fuzzed_sentences():
    rng = random.Random(0)
    letters = "абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБЁЯabcXYZ"
    marks = ["", "", "", ",", ".", "!", "?", ":", ";"]
    checked = 0
    for _ in range(20_000):
        words = [
            "".join(rng.choice(letters) for _ in range(rng.randint(1, 8))) + rng.choice(marks)
            for _ in range(rng.randint(1, 12))
        ]
        text = " ".join(words)
        checked += bool(_SIMPLE.fullmatch(text))
        assert tokenize(text) == _razdel(text), text
    assert checked > 1000  # the fast path was exercised, not only the fallback


def test_fallback_cases_keep_razdel_behaviour():
    for text in [
        "Ну... да?!",
        "Кто-то пришёл.",
        "в 2020 г. было",
        "Онаi ушла.",
        "«Да», — сказал он.",
    ]:
        assert tokenize(text) == _razdel(text)


@pytest.mark.slow
def test_fast_path_equals_razdel_on_the_published_corpus(shared_data: Path):
    fast = 0
    for name in ("in_domain_train", "in_domain_dev", "out_of_domain_dev", "test"):
        with open(shared_data / f"rucola/{name}.csv", encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                text = row["sentence"]
                fast += bool(_SIMPLE.fullmatch(text))
                assert tokenize(text) == _razdel(text), text
    assert fast > 10_000
