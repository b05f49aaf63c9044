"""Lemma frequencies (ipm) from the RNC frequency dictionary or from wordfreq.

The RNC list (Lyashevskaya & Sharov 2009) is what the RuCoLA paper used; wordfreq ships
Russian frequencies offline, so the default pipeline needs no extra file.
"""

from __future__ import annotations

import csv
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from rucola.errors import RucolaError

if TYPE_CHECKING:
    from rucola.settings import Frequency


def frequency_key(word: str) -> str:
    """Lower case and ё -> е: dictionaries disagree on ё, readers do not."""
    return word.lower().replace("ё", "е")


class Frequencies(Protocol):
    name: str

    def ipm(self, lemma: str) -> float: ...


class RncFrequencies:
    """``Lemma, PoS, Freq(ipm), ...`` rows; a lemma's ipm is summed over its parts of speech."""

    name = "rnc"

    def __init__(self, path: str | Path) -> None:
        path = Path(path)
        if not path.is_file():
            raise RucolaError(
                "RNC frequency dictionary not found",
                path,
                hint="set filter.frequency.path to [path/to/freqrnc2011.tsv]",
            )
        table: dict[str, float] = {}
        with open(path, encoding="utf-8-sig", newline="") as handle:
            reader = csv.reader(handle, delimiter="\t")
            header = next(reader, None)
            if not header or len(header) < 3 or "lemma" not in header[0].lower():
                raise RucolaError("expected a header 'Lemma, PoS, Freq(ipm), ...'", path, 1)
            for line, row in enumerate(reader, start=2):
                if not row:
                    continue
                try:
                    value = float(row[2])
                except (IndexError, ValueError):
                    raise RucolaError(f"bad frequency row {row!r}", path, line) from None
                key = frequency_key(row[0].strip())
                table[key] = table.get(key, 0.0) + value
        self.table = table

    def ipm(self, lemma: str) -> float:
        return self.table.get(frequency_key(lemma), 0.0)


class WordfreqFrequencies:
    name = "wordfreq"

    def __init__(self) -> None:
        from wordfreq import word_frequency

        self._frequency = word_frequency

    def ipm(self, lemma: str) -> float:
        return self._frequency(lemma, "ru") * 1e6


def load_frequencies(settings: Frequency) -> Frequencies:
    """The frequency list ``filter.frequency`` names (its source is one the schema allows)."""
    if settings.source == "wordfreq":
        return WordfreqFrequencies()
    # A section built in code skips the params file's cross-key check: say it here too.
    if not settings.path:
        raise RucolaError(
            "filter.frequency.source is 'rnc' but filter.frequency.path is empty",
            "params.yaml",
            hint="filter.frequency.path: [data/raw/freqrnc2011.tsv]",
        )
    return RncFrequencies(settings.path[0])


@lru_cache(maxsize=1)
def morph_analyzer():  # noqa: ANN201 - pymorphy3 has no public type for it
    import pymorphy3

    return pymorphy3.MorphAnalyzer()
