"""Lemma frequencies (ipm) from wordfreq, the RNC frequency dictionary or a user's table.

The RNC list (Lyashevskaya & Sharov 2009) is what the RuCoLA paper used; wordfreq ships
lists for 40-odd languages offline (the language profile's, ``corpus.language``), so the
default pipeline needs no extra file; ``table`` reads any list whose column layout
``filter.frequency.table`` declares (a language wordfreq lacks, a list of one's own).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from rucola.errors import RucolaError, check_header, params_error

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
        with _opened(path, "utf-8") as handle:
            reader = csv.reader(handle, delimiter="\t")
            header = next(reader, None)
            if not header or len(header) < 3 or "lemma" not in header[0].lower():
                raise RucolaError("expected a header 'Lemma, PoS, Freq(ipm), ...'", path, 1)
            self.table = _summed(reader, 0, 2, path, headed=True)

    def ipm(self, lemma: str) -> float:
        return self.table.get(frequency_key(lemma), 0.0)


class TableFrequencies:
    """A user's list: one word per row, its frequency in a declared column, as ipm or as a
    count (turned into ipm over the column's total); a word listed twice is summed, as the
    RNC's parts of speech are.

    Every frequency is a finite number ≥ 0 and the list holds at least one row: ``inf``
    (or ``1e400``, which reads as inf) made every other word 0 ipm once counts were turned
    into ipm, and a header with no rows under it gave every word 0 ipm, both silently. The
    file is read in ``table.encoding``, a byte-order mark at its start skipped (a
    spreadsheet's UTF-8 export starts with one); a byte it cannot decode, a column named
    twice in the header, a bad row: one line naming the file and the line."""

    name = "table"

    def __init__(self, path: str | Path, layout: FrequencyTable) -> None:
        path = Path(path)
        if not path.is_file():
            raise RucolaError(
                "frequency list not found", path, hint="set filter.frequency.path to [your list]"
            )
        delimiter = _delimiter(layout.delimiter)  # a params mistake before the file's own
        with _opened(path, layout.encoding, "filter.frequency.table.encoding") as handle:
            reader = csv.reader(handle, delimiter=delimiter)
            header = None
            if layout.header:
                first = next(reader, None)
                if first is None:
                    raise RucolaError("the list is empty: not even a header line", path)
                header = check_header(first, path)  # a column named twice is ambiguous
            word = _column(layout.word, header, path, "word")
            value = _column(layout.value, header, path, "value")
            table = _summed(reader, word, value, path, headed=layout.header)
        if layout.unit == "count":
            total = sum(table.values())
            if not total:
                raise RucolaError(
                    "every count is 0: no total to turn the counts into ipm",
                    path,
                    hint="filter.frequency.table.unit: count needs counts above 0",
                )
            if not math.isfinite(total):
                raise RucolaError(f"the counts {_TOO_LARGE}", path)
            table = {k: v / total * 1e6 for k, v in table.items()}
        self.table = table

    def ipm(self, lemma: str) -> float:
        return self.table.get(frequency_key(lemma), 0.0)


BOM = "\ufeff"
_TOO_LARGE = "add up to more than a number can hold (1.8e308)"


@contextmanager
def _opened(path: Path, encoding: str, key: str | None = None) -> Iterator[TextIO]:
    """``path`` as text in ``encoding``, past a byte-order mark at its start (a
    spreadsheet's UTF-8 export has one; kept, it was an invisible part of the first column's
    name). A byte that is not ``encoding``, wherever reading meets it: one line naming the
    file, its line and ``key`` (the params key that declares the encoding)."""
    try:
        with open(path, encoding=encoding, newline="") as handle:
            if handle.read(1) != BOM:
                handle.seek(0)
            yield handle
    except UnicodeDecodeError:
        raise _undecodable(path, encoding, key) from None


def _summed(reader: Any, word: int, value: int, path: Path, *, headed: bool) -> dict[str, float]:
    """Word -> its frequencies summed, over every row left in ``reader`` (a ``csv.reader``;
    blank rows skipped); a list with no row is refused, not read as every word 0 ipm.

    The checks cost one comparison a row (a line number is looked up only for a message):
    the RNC list's 52k rows read about as fast as before there were any."""
    table: dict[str, float] = {}
    summed = 0.0  # all frequencies together: a count list is divided by this
    try:
        for row in reader:
            try:
                key, number = row[word].strip(), float(row[value])
            except (IndexError, ValueError):
                if not "".join(row).strip():  # a blank line (no cell, or blank cells)
                    continue
                raise _bad_row(row, word, value, path, reader.line_num) from None
            if not 0.0 <= number < math.inf:  # false for a negative, inf and nan
                raise _bad_number(row[value], path, reader.line_num)
            key = frequency_key(key)
            total = table.get(key, 0.0) + number
            summed += number
            if total == math.inf or summed == math.inf:
                what = f"of {key!r}" if total == math.inf else "up to here"
                raise RucolaError(f"the frequencies {what} {_TOO_LARGE}", path, reader.line_num)
            table[key] = total  # 0.0 + -0.0 is 0.0: a word listed as -0 gets 0
    except csv.Error as exc:
        raise RucolaError(f"not a readable table: {exc}", path, reader.line_num) from None
    if not table:
        where = "under the header" if headed else "in the list"
        raise RucolaError(
            f"no rows {where}: every word would get 0 ipm",
            path,
            reader.line_num or None,
            hint="give one row per word, or another filter.frequency.source",
        )
    return table


def _bad_row(row: list[str], word: int, value: int, path: Path, line: int) -> RucolaError:
    return RucolaError(
        f"bad frequency row {row!r}: column {word + 1} a word, column {value + 1} a number",
        path,
        line,
    )


def _bad_number(cell: str, path: Path, line: int) -> RucolaError:
    """A frequency that is a number, but negative or not finite (inf, nan, and 1e400,
    which reads as inf)."""
    if float(cell) < 0:
        return RucolaError(f"negative frequency {cell.strip()!r}", path, line)
    return RucolaError(
        f"frequency {cell.strip()!r} is not a finite number",
        path,
        line,
        hint="a frequency is a number ≥ 0 below 1.8e308",
    )


def _undecodable(path: Path, encoding: str, key: str | None) -> RucolaError:
    """Where ``path`` stops being ``encoding``: its line, and the bytes that are not."""
    data = path.read_bytes()
    declared = f" ({key})" if key else ""
    hint = f"save it as {encoding}" + (
        f", or set {key} to the one it is in (latin-1, cp1251, utf-16 ...)" if key else ""
    )
    try:
        data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].decode(encoding, errors="replace").count("\n") + 1
        bad = data[exc.start : exc.end].hex(" ")
        return RucolaError(
            f"not {encoding}{declared}: byte(s) {bad} cannot be read", path, line, hint=hint
        )
    # decoded whole, though not as a stream: no position to name
    return RucolaError(f"not {encoding}{declared}", path, hint=hint)


def _delimiter(text: str) -> str:
    """The separator as params write it (a tab also as ``\\t`` or ``tab``): one character."""
    found = {"\\t": "\t", "tab": "\t"}.get(text, text)
    if len(found) != 1:
        raise params_error(f"filter.frequency.table.delimiter {text!r} is not one character")
    return found


def _visible(name: str) -> str:
    """A header name as typed, or quoted with its invisible characters escaped (a BOM,
    a zero-width space) when it holds any: otherwise the message shows no difference."""
    return name if name and name.isprintable() else repr(name)


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
    if name not in header:
        shown = ", ".join(map(_visible, header))
        raise RucolaError(
            f"no column {name!r} (filter.frequency.table.{role}) in the header {shown}",
            path,
            1,
        )
    return header.index(name)


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
            raise params_error(
                f"filter.frequency.source is 'wordfreq' but wordfreq has no list for "
                f"corpus.language {language!r}",
                hint="filter.frequency.source: table, with your own list",
            )
        return WordfreqFrequencies(lang)
    # A section built in code skips the params file's cross-key check: say it here too.
    if not settings.path:
        raise params_error(
            f"filter.frequency.source is '{settings.source}' but filter.frequency.path is empty",
            hint="filter.frequency.path: [data/raw/freqrnc2011.tsv]",
        )
    if settings.source == "table":
        return TableFrequencies(settings.path[0], settings.table)
    return RncFrequencies(settings.path[0])


@lru_cache(maxsize=1)
def morph_analyzer():  # noqa: ANN201 - pymorphy3 has no public type for it
    import pymorphy3

    return pymorphy3.MorphAnalyzer()
