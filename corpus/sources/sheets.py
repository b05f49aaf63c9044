"""Judgment sheets: TSV or CSV with a header (format: docs/inputs.md).

A sheet with a header and no example rows (only blank ones, or none) is an error naming
the file: an empty output would hide a lost or truncated sheet.

Both layouts are read with CSV quoting (spreadsheets write it so): a cell that starts with
``"`` runs to the next ``"`` that is followed by the delimiter or the line's end, and a
``"`` inside it is written twice. A sentence that starts with a quotation mark must then be
quoted whole, each of its own quotes doubled (docs/inputs.md); a row that breaks the rule is
one line naming the file and line, with the delimiter written ``\\t``, since a tab prints as
blank space.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

from rucola.corpus.sources.records import RawExample
from rucola.corpus.sources.tables import check_unread_labels
from rucola.corpus.sources.text import text_lines
from rucola.csvfile import QUOTING_HINT
from rucola.errors import RucolaError, check_header
from rucola.settings import IN_DOMAIN, ExtractSource

_KNOWN = {"sentence", "mark", "error_type", "source"}
SHEET_QUOTING_HINT = (
    'a cell that starts with " is a quoted cell: quote the whole cell and write each " '
    'inside it twice ("""Да"", — сказал он.")'
)


def _visible(error: csv.Error) -> str:
    """The csv module's message with a tab written ``\\t``: it names the delimiter by the
    character itself, which a terminal shows as blank space."""
    return str(error).replace("\t", "\\t")


def read_sheet(path: Path, options: ExtractSource, encoding: str) -> Iterator[RawExample]:
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    reader = csv.reader(text_lines(path, encoding), delimiter=delimiter, quotechar='"', strict=True)
    try:
        header = next(reader)
    except StopIteration:
        raise RucolaError(
            "empty file: a header row with a 'sentence' column is expected", path, 1
        ) from None
    except csv.Error as exc:
        raise RucolaError(
            f"cannot parse the header: {_visible(exc)}", path, 1, hint=QUOTING_HINT
        ) from None
    header = check_header(header, path, reader.line_num)
    if "sentence" not in header:
        raise RucolaError(
            f"no 'sentence' column (columns: {', '.join(header)})",
            path,
            1,
            hint="the header row must name a 'sentence' column",
        )
    # a sheet reads labels from marks only: a label column is read by a layout (columns:)
    read = {name: header.index(name) for name in _KNOWN if name in header}
    check_unread_labels(header, read, path, reader.line_num)
    default_source = options.source or path.stem
    domain = options.domain or IN_DOMAIN
    line = reader.line_num
    header_line = line
    rows = 0
    while True:
        start = line + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise RucolaError(
                f"cannot parse the row: {_visible(exc)}", path, start, hint=SHEET_QUOTING_HINT
            ) from None
        line = reader.line_num
        if not row or all(not cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise RucolaError(
                f"{len(row)} fields where the header has {len(header)}",
                path,
                start,
                hint="quote fields that hold the delimiter",
            )
        rows += 1
        record = dict(zip(header, row, strict=True))
        has_mark_column = "mark" in record
        error_type = (record.get("error_type") or "").strip() or None
        yield RawExample(
            origin=f"{path}:{start}",
            raw=delimiter.join(row),
            text=record["sentence"],
            mark=record["mark"].strip() if has_mark_column and record["mark"].strip() else None,
            error_type=error_type,
            source=(record.get("source") or "").strip() or default_source,
            domain=domain,
            provenance={k: v for k, v in record.items() if k not in _KNOWN and v != ""},
        )
    if rows == 0:
        raise RucolaError(
            "a header but no example rows",
            path,
            header_line,
            hint="a sheet needs at least one sentence under its header",
        )
