"""Lemma frequencies (ipm) from wordfreq, the RNC frequency dictionary or a user's table.

The RNC list (Lyashevskaya & Sharov 2009) is what the RuCoLA paper used; wordfreq ships
lists for 40-odd languages offline (the language profile's, ``corpus.language``), so the
default pipeline needs no extra file; ``table`` reads any list whose column layout
``filter.frequency.table`` declares (a language wordfreq lacks, a list of one's own).
"""

from __future__ import annotations

import csv
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from rucola.errors import RucolaError

if TYPE_CHECKING:
    from rucola.settings import Frequency
    from rucola.settings.corpus import FrequencyTable


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


class TableFrequencies:
    """A user's list: one word per row, its frequency in a declared column, as ipm or as a
    count (turned into ipm over the column's total); a word listed twice is summed, as the
    RNC's parts of speech are."""

    name = "table"

    def __init__(self, path: str | Path, layout: FrequencyTable) -> None:
        path = Path(path)
        if not path.is_file():
            raise RucolaError(
                "frequency list not found", path, hint="set filter.frequency.path to [your list]"
            )
        table: dict[str, float] = {}
        with open(path, encoding=layout.encoding, newline="") as handle:
            reader = csv.reader(handle, delimiter=_delimiter(layout.delimiter))
            header = next(reader, None) if layout.header else None
            word = _column(layout.word, header, path, "word")
            value = _column(layout.value, header, path, "value")
            first = 2 if layout.header else 1
            for line, row in enumerate(reader, start=first):
                if not row or not "".join(row).strip():
                    continue
                try:
                    key, number = row[word].strip(), float(row[value])
                except (IndexError, ValueError):
                    raise RucolaError(
                        f"bad frequency row {row!r}: column {word + 1} a word, "
                        f"column {value + 1} a number",
                        path,
                        line,
                    ) from None
                if number < 0 or number != number:
                    raise RucolaError(f"negative or NaN frequency {row[value]!r}", path, line)
                key = frequency_key(key)
                table[key] = table.get(key, 0.0) + number
        if layout.unit == "count":
            total = sum(table.values())
            table = {k: v / total * 1e6 for k, v in table.items()} if total else table
        self.table = table

    def ipm(self, lemma: str) -> float:
        return self.table.get(frequency_key(lemma), 0.0)


def _delimiter(text: str) -> str:
    """The separator as params write it (a tab also as ``\\t`` or ``tab``): one character."""
    found = {"\\t": "\t", "tab": "\t"}.get(text, text)
    if len(found) != 1:
        raise RucolaError(
            f"filter.frequency.table.delimiter {text!r} is not one character", "params.yaml"
        )
    return found


def _column(name: str, header: list[str] | None, path: Path, role: str) -> int:
    """The 0-based index of the column ``name`` (a header name or a 1-based number)."""
    if name.isdigit() and int(name) >= 1:
        return int(name) - 1
    if header is None:
        raise RucolaError(
            f"filter.frequency.table.{role} is {name!r} but the list has no header "
            "(table.header: false): give the column's number",
            path,
        )
    names = [cell.strip() for cell in header]
    if name not in names:
        raise RucolaError(
            f"no column {name!r} (filter.frequency.table.{role}) in the header {', '.join(names)}",
            path,
            1,
        )
    return names.index(name)


class WordfreqFrequencies:
    """wordfreq's list for ``lang`` (its code as wordfreq spells it)."""

    name = "wordfreq"

    def __init__(self, lang: str = "ru") -> None:
        from wordfreq import word_frequency

        self._frequency = word_frequency
        self.lang = lang

    def ipm(self, lemma: str) -> float:
        return self._frequency(lemma, self.lang) * 1e6


def load_frequencies(settings: Frequency, language: str = "ru") -> Frequencies:
    """The frequency list ``filter.frequency`` names (its source is one the schema allows)
    for the language profile ``language`` (``corpus.language``)."""
    if settings.source == "wordfreq":
        from rucola.corpus.languages.profile import profile

        lang = profile(language).wordfreq
        if lang is None:
            raise RucolaError(
                f"filter.frequency.source is 'wordfreq' but wordfreq has no list for "
                f"corpus.language {language!r}",
                "params.yaml",
                hint="filter.frequency.source: table, with your own list",
            )
        return WordfreqFrequencies(lang)
    # A section built in code skips the params file's cross-key check: say it here too.
    if not settings.path:
        raise RucolaError(
            f"filter.frequency.source is '{settings.source}' but filter.frequency.path is empty",
            "params.yaml",
            hint="filter.frequency.path: [data/raw/freqrnc2011.tsv]",
        )
    if settings.source == "table":
        return TableFrequencies(settings.path[0], settings.table)
    return RncFrequencies(settings.path[0])


@lru_cache(maxsize=1)
def morph_analyzer():  # noqa: ANN201 - pymorphy3 has no public type for it
    import pymorphy3

    return pymorphy3.MorphAnalyzer()
