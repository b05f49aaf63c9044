"""Strict CSV reading: every problem of a file's quoting or size is one line naming
``FILE:LINE``, never a ``_csv.Error`` traceback.

Python's csv module, left lax, takes a quote that is never closed as the start of one cell
that runs on to the next quote, or to the end of the file: the lines after it become the
text of that cell, and the file reads without a word (an errata file's unterminated quote
once put the following errata into a reason, and the reason into the public changelog).
:func:`records` reads with ``strict=True`` (a quote that closes a cell must be followed by
a delimiter or the end of the line; a quote open at the end of the file is an error) and,
where a cell must be one line (``one_line``), refuses a record spanning several lines:
the case strictness alone cannot see, a quote closed later by another stray quote.

A cell larger than the csv module's field size limit (131072 characters, process-wide) is
refused with its file and line too; the limit is never raised here.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

from rucola.errors import RucolaError

QUOTING_HINT = 'close the quote; a quote inside a quoted cell is written twice ("")'


def csv_error(exc: csv.Error, path: str | Path, start: int, end: int) -> RucolaError:
    """The csv module's error while reading the record that starts on line ``start`` (the
    reader had got to line ``end``) as one line naming the file and the record's line."""
    text = str(exc)
    where = f" (read up to line {end})" if end > start else ""
    if "field larger than field limit" in text:
        limit = csv.field_size_limit()
        return RucolaError(
            f"a cell longer than {limit} characters, the most a CSV cell may hold{where}",
            path,
            start,
            hint="is a quote left open before it?",
        )
    if "unexpected end of data" in text:
        return RucolaError(
            "a quoted cell is never closed: the file ends inside it", path, start, hint=QUOTING_HINT
        )
    return RucolaError(f"bad quoting: {text}{where}", path, start, hint=QUOTING_HINT)


def records(
    text: str, path: str | Path, *, one_line: bool = False
) -> Iterator[tuple[int, list[str]]]:
    """(line the record starts on, its cells) of every record of ``text``, read strictly
    (see the module docstring); empty lines are skipped, as ``csv.DictReader`` skips them.
    ``one_line``: a record spanning lines (a quoted cell holding a line break) is refused,
    naming the line its quote opens on."""
    reader = csv.reader(io.StringIO(text), strict=True)
    while True:
        start = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise csv_error(exc, path, start, reader.line_num) from None
        if not row:
            continue
        if one_line and reader.line_num > start:
            raise RucolaError(
                f"a quoted cell runs from line {start} to line {reader.line_num}: "
                "a cell here is one line (is a quote left open?)",
                path,
                start,
                hint=QUOTING_HINT,
            )
        yield start, row


def dict_records(
    header: list[str], rows: Iterator[tuple[int, list[str]]]
) -> Iterator[tuple[int, dict[str | None, object]]]:
    """``rows`` as ``csv.DictReader`` makes them: cells beyond ``header`` as a list under
    the key None, a cell the record lacks as None."""
    width = len(header)
    for line, row in rows:
        record: dict[str | None, object] = dict(zip(header, row, strict=False))
        if len(row) > width:
            record[None] = row[width:]
        for name in header[len(row) :]:
            record[name] = None
        yield line, record


def locate_error(path: str | Path, text: str, strict: bool = False) -> RucolaError | None:
    """Where the csv module fails on ``text`` (the file ``path``), read as a lax reader
    (``strict``: a strict one) reads it: for a caller that got a bare ``csv.Error`` from a
    reader it does not own and must name the file and line. None when it reads."""
    reader = csv.reader(io.StringIO(text), strict=strict)
    while True:
        start = reader.line_num + 1
        try:
            next(reader)
        except StopIteration:
            return None
        except csv.Error as exc:
            return csv_error(exc, path, start, reader.line_num)
