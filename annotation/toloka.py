"""Reading and writing the Toloka TSV layout (task and result files), generically.

Exports quote cells that hold tabs, quotes or line breaks, so a cell can span several
physical lines; a real TSV reader is needed, and error messages must name the physical line
where a record starts (what an editor shows), not the record's index. The reader keeps
every column as a string and knows nothing of our fields: interpreting ``OUTPUT:*`` is the
job of ``votes``.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Sequence
from pathlib import Path

import pandas as pd

from rucola.errors import RucolaError, check_header
from rucola.io import atomic_path

LINE = "_line"  # the physical line where a record starts (header = line 1)

INPUT_ID = "INPUT:id"
INPUT_SENTENCE = "INPUT:sentence"
HINT_TEXT = "HINT:text"
TASK_ID = "ASSIGNMENT:task_id"
ASSIGNMENT_ID = "ASSIGNMENT:assignment_id"
WORKER_ID = "ASSIGNMENT:worker_id"
STATUS = "ASSIGNMENT:status"
STARTED = "ASSIGNMENT:started"
SUBMITTED = "ASSIGNMENT:submitted"

# Toloka's assignment statuses; only accepted or approved answers are used.
STATUSES = ("APPROVED", "SUBMITTED", "ACCEPTED", "REJECTED", "EXPIRED", "SKIPPED")
KEPT_STATUSES = ("APPROVED", "ACCEPTED")
# Statuses whose rows carry an answer (expired and skipped assignments have empty outputs).
ANSWERED_STATUSES = ("APPROVED", "SUBMITTED", "ACCEPTED", "REJECTED")


def output(field: str) -> str:
    return f"OUTPUT:{field}"


def golden(field: str) -> str:
    return f"GOLDEN:{field}"


def records(path: str | Path, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """Yield ``(start line, fields)`` for every non-blank record of a delimited file."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = csv.reader(handle, delimiter=delimiter, strict=True)
            start = 1
            try:
                for record in reader:
                    if record and any(field.strip() for field in record):
                        yield start, record
                    start = reader.line_num + 1
            except csv.Error as exc:
                raise RucolaError(
                    f"malformed quoting: {exc}",
                    path,
                    start,
                    hint="a cell with tabs, quotes or line breaks must be quoted, quotes doubled",
                ) from exc
    except FileNotFoundError as exc:
        raise RucolaError("file not found", path) from exc
    except UnicodeDecodeError as exc:
        raise RucolaError(f"not UTF-8 text ({exc.reason})", path) from exc


def read_table(path: str | Path, delimiter: str) -> pd.DataFrame:
    """A header-row table as strings, plus ``_line``; fails on ragged rows."""
    rows: list[list[str]] = []
    lines: list[int] = []
    header: list[str] | None = None
    for line, record in records(path, delimiter):
        if header is None:
            header = check_header(record, path, line)
            continue
        if len(record) != len(header):
            raise RucolaError(
                f"expected {len(header)} fields, found {len(record)}",
                path,
                line,
                hint="check for an unquoted tab or line break inside a cell",
            )
        rows.append(record)
        lines.append(line)
    if header is None:
        raise RucolaError("empty file: no header row", path, 1)
    frame = pd.DataFrame(rows, columns=header, dtype=object)
    frame[LINE] = pd.Series(lines, dtype="int64")
    return frame


def read_toloka(path: str | Path) -> pd.DataFrame:
    """One row per exported assignment row, every Toloka column kept as a string."""
    return read_table(path, "\t")


def require_columns(frame: pd.DataFrame, columns: Sequence[str], path: str | Path) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        present = ", ".join(c for c in frame.columns if c != LINE)
        raise RucolaError(
            f"missing column(s) {', '.join(missing)}",
            path,
            1,
            hint=f"the header has {present}",
        )


def write_toloka(frame: pd.DataFrame, path: str | Path) -> None:
    """Write a TSV Toloka reads back: quoted only where needed, ``\\n`` line ends."""
    with atomic_path(path) as tmp, open(tmp, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
        writer.writerow(list(frame.columns))
        for row in frame.itertuples(index=False, name=None):
            writer.writerow([_cell(v) for v in row])


def _cell(value: object) -> str:
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return ""
    return str(value)
