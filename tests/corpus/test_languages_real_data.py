"""The language profiles on real corpora (needs RUCOLA_SHARED_DATA): CoLA's sentences
measured as English and ItaCoLA's as Italian keep their words' frequencies, where the
Russian profile (the only one before) read nearly every Italian word as rare."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from rucola.corpus.filters.frequency import high_freq_share
from rucola.corpus.frequency import load_frequencies
from rucola.corpus.homoglyphs import fix_homoglyphs
from rucola.corpus.languages.profile import profile
from rucola.corpus.measure import measure_batch
from rucola.corpus.measured import MEASURED_ATTRIBUTES, MeasureContext
from rucola.settings import Filter, Frequency

pytestmark = pytest.mark.slow

COLA = ["in_domain_train.tsv", "in_domain_dev.tsv", "out_of_domain_dev.tsv"]


def _cola(shared: Path) -> list[str]:
    sentences: list[str] = []
    for name in COLA:
        with open(shared / "cola" / name, encoding="utf-8", newline="") as handle:
            rows = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
            sentences += [row[3] for row in rows]
    return sentences


def _itacola(shared: Path) -> list[str]:
    path = shared / "itacola" / "ItaCoLA_dataset.tsv"
    with open(path, encoding="utf-8", newline="") as handle:
        rows = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        return [row["Sentence"] for row in rows]


def _kept(sentences: list[str], language: str) -> tuple[int, int]:
    """(kept by the default thresholds, set aside for low_frequency_words), as ``filter``
    decides with its defaults (4-30 tokens, share of words above 1 ipm > 0.6)."""
    defaults = Filter()
    context = MeasureContext(load_frequencies(Frequency(), language), profile(language))
    attributes = [attribute() for attribute in MEASURED_ATTRIBUTES]
    names = [field.name for attribute in attributes for field in attribute.fields]
    columns = dict(zip(names, measure_batch(sentences, context, attributes), strict=True))
    n_tokens = columns["n_tokens"].to_numpy(zero_copy_only=False)
    share = high_freq_share(columns["word_ipm"], defaults.min_ipm)
    length_ok = (n_tokens >= defaults.min_tokens) & (n_tokens <= defaults.max_tokens)
    frequent = share > defaults.min_high_freq_share
    return int(np.sum(length_ok & frequent)), int(np.sum(length_ok & ~frequent))


def _shared(shared_data: Path, folder: str) -> Path:
    if not (shared_data / folder).is_dir():
        pytest.skip(f"{shared_data} has no {folder}/")
    return shared_data


def test_cola_measured_as_english_keeps_its_common_words(shared_data):
    sentences = _cola(_shared(shared_data, "cola"))
    assert len(sentences) == 9594
    assert _kept(sentences, "en") == (9358, 31)
    assert _kept(sentences, "ru") == (4740, 4652)  # before: English words read as Russian


def test_itacola_measured_as_italian_keeps_its_common_words(shared_data):
    sentences = _itacola(_shared(shared_data, "itacola"))
    assert len(sentences) == 9722
    assert _kept(sentences, "it") == (9467, 42)
    assert _kept(sentences, "ru") == (75, 9441)  # the 75 of 9,721


def test_itacolas_cyrillic_capital_e_is_repaired_toward_latin(shared_data):
    sentences = _itacola(_shared(shared_data, "itacola"))
    cyrillic = [s for s in sentences if "\u0400" in s]
    assert len(cyrillic) == 24
    repaired = [fix_homoglyphs(s, "it")[0] for s in cyrillic]
    assert all(s.startswith("È ") and "\u0400" not in s for s in repaired)
    assert [fix_homoglyphs(s)[0] for s in cyrillic] == cyrillic  # Russian's direction: no
    others = [s for s in sentences if fix_homoglyphs(s, "it")[1] and s not in cyrillic]
    assert others == []  # no other ItaCoLA sentence changes
