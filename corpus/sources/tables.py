"""Labelled tables: TSV or CSV files whose columns a layout names (format: docs/inputs.md).

Published acceptability corpora come as tables of their own make: CoLA's raw TSV has no
header and four columns (source, label, original mark, sentence), ItaCoLA's a header with a
label and a split column. One reader takes them all: a :class:`Layout` says which column
holds the sentence, the label, the mark, the category, the source, the published id and the
published split, by header name or by position from 0, and how a label cell and a split cell
read (``extract.sources[].labels``, ``.splits``). A format (``type: cola_tsv``) is a layout
with defaults; a source's own keys override them.

Nothing is a silent default: a label cell not in ``labels`` or a split cell not in
``splits`` is one line naming the file, the line and the column; a column that holds labels
by its name (``acceptability``, ``label`` ...) but is not read as labels is one line naming
the file and the column. A label read as ``exclude`` sets the row aside (``excluded_label``).
Beside a label, a mark column is checked: a mark whose verdict contradicts the label sets the
row aside (``corpus.extract``: ``mark_contradicts_label``).

A row with a published split keeps it as pins are (``corpus.split``); it needs a published
id for that, so a table without an id column numbers its rows by their position in the file
(from 0, blank lines not counted): one file per split and domain then gives unique ids.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rucola.corpus.sources.records import RawExample, read_id
from rucola.corpus.sources.text import text_lines
from rucola.errors import RucolaError, check_header
from rucola.settings import IN_DOMAIN, ExtractSource
from rucola.settings.corpus import DEFAULT_LABELS, DEFAULT_SPLITS

ROLES = ("sentence", "label", "mark", "error_type", "source", "id", "split")
# Header names that hold published labels: a table that has one and does not read it as
# labels would label every row by its marks alone (all acceptable without marks).
LABEL_NAMES = frozenset(
    {
        "label",
        "labels",
        "acceptable",
        "acceptability",
        "grammatical",
        "grammaticality",
        "judgment",
        "judgement",
        "gold_label",
        "is_acceptable",
        "is_grammatical",
    }
)
# Names that may as well hold a judgment mark (``*``, ``?``) as a label: the unread-label
# check names any other label column first, and offers these to be read as the mark.
MARK_LIKE_NAMES = frozenset({"judgment", "judgement"})
ACCEPTABLE, UNACCEPTABLE, EXCLUDE = "acceptable", "unacceptable", "exclude"
LABEL_VALUES = {ACCEPTABLE: 1, UNACCEPTABLE: 0}
EXCLUDED_LABEL = "excluded_label"


@dataclass
class Layout:
    """How one table reads: header and quoting, the column of each role (a name or a
    position), the label and split vocabularies, a split and domain for every row
    (``None``: none, or the file's own), all overridden by the source's keys."""

    header: bool = True
    quoting: bool = True
    columns: dict[str, str | int] = field(default_factory=lambda: {"sentence": "sentence"})
    labels: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_LABELS))
    splits: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_SPLITS))
    split: Callable[[Path], str | None] = lambda path: None
    domain: Callable[[Path], str | None] = lambda path: None
    # roles read from the column of their own name when the header has one and no column
    # is given for them (a sheet's mark, error_type and source)
    by_name: tuple[str, ...] = ()

    def merged(self, source: ExtractSource) -> Layout:
        """This layout with the source's own keys (``extract.sources[]``) in place."""
        columns = dict(self.columns)
        if source.columns is not None:
            given = source.columns.model_dump(exclude_none=True)
            if source.header is False or not self.header:  # positions: the layout is the user's
                columns = {}
            columns.update(given)
        fixed = source.split
        return Layout(
            header=self.header if source.header is None else source.header,
            quoting=self.quoting if source.quoting is None else source.quoting,
            columns=columns,
            labels=self.labels if source.labels is None else dict(source.labels),
            splits=self.splits if source.splits is None else dict(source.splits),
            split=self.split if fixed is None else (lambda path: fixed),
            domain=self.domain,
            by_name=self.by_name,
        )


def _reader(lines: Iterator[str], delimiter: str, quoting: bool) -> Iterator[list[str]]:
    if quoting:
        return csv.reader(lines, delimiter=delimiter, quotechar='"', strict=True)
    return csv.reader(lines, delimiter=delimiter, quoting=csv.QUOTE_NONE)


def _positions(layout: Layout, header: list[str] | None, width: int, path: Path) -> dict[str, int]:
    """Role -> column position; a name not in the header, a position past the last column,
    or a name without a header is one line naming the params key."""
    found: dict[str, int] = {}
    for role, column in layout.columns.items():
        key = f"extract.sources[].columns.{role}"
        if isinstance(column, int):
            if column >= width:
                raise RucolaError(
                    f"{key} is column {column}, but the rows have {width} (from 0)", path, 1
                )
            found[role] = column
        elif header is None:
            raise RucolaError(
                f"{key} names column '{column}', but the table has no header",
                path,
                1,
                hint="give its position from 0, or set header: true",
            )
        else:
            folded = [name.casefold() for name in header]
            if column.casefold() not in folded:
                raise RucolaError(
                    f"{key}: no column '{column}' (columns: {', '.join(header)})", path, 1
                )
            found[role] = folded.index(column.casefold())
    taken: dict[int, str] = {}
    for role, position in found.items():
        if position in taken:
            raise RucolaError(
                f"extract.sources[].columns.{taken[position]} and .{role} are one column "
                f"({header[position] if header else position})",
                path,
                1,
                hint="give each role a column of its own",
            )
        taken[position] = role
    if header is not None:
        folded = [name.casefold() for name in header]
        for role in layout.by_name:
            if role not in found and role in folded and folded.index(role) not in found.values():
                found[role] = folded.index(role)
    if "sentence" not in found:
        columns = f" (columns: {', '.join(header)})" if header else ""
        raise RucolaError(
            f"no sentence column{columns}",
            path,
            1,
            hint="name one 'sentence', or give extract.sources[].columns.sentence",
        )
    if header is not None:
        check_unread_labels(header, found, path, 1)
    return found


def check_unread_labels(header: list[str], read: dict[str, int], path: Path, line: int) -> None:
    """A column named as labels (:data:`LABEL_NAMES`) that no role reads is one line naming
    it: without a label column every row would be labelled by its mark alone; beside one,
    its labels would go to provenance unchecked. ``read``: role -> position of every column
    read (one read as the mark or the source is read). The hint reads the table when
    followed: a label column is offered as ``label``, one that may hold marks
    (``Judgement``) as ``mark`` when no column is read as the mark."""
    positions = set(read.values())
    unread = [
        name
        for i, name in enumerate(header)
        if i not in positions and name.casefold() in LABEL_NAMES
    ]
    if not unread:
        return
    # a column that may hold marks last: 'label' beside 'Judgement' is the label
    unread.sort(key=lambda name: name.casefold() in MARK_LIKE_NAMES)
    first, others = unread[0], unread[1:]
    if "label" in read:
        label = header[read["label"]]
        raise RucolaError(
            f"column '{first}' holds labels too, but only '{label}' is read as labels: "
            "its labels would be kept as provenance, unchecked",
            path,
            line,
            hint=f"keep one label column: remove '{first}', or rename it (e.g. "
            f"'{first}_2') to keep it as provenance",
        )
    columns = [f"label: {first}"]
    if others and "mark" not in read:
        columns.append(f"mark: {others.pop(0)}")
    rest = f"; remove {', '.join(repr(o) for o in others)}" if others else ""
    raise RucolaError(
        f"column '{first}' holds labels, but nothing reads it: every row would be labelled "
        "by its mark alone",
        path,
        line,
        hint=f"read it with extract.sources[].columns: {{{', '.join(columns)}}} (and labels: "
        f"if its values are not 1/0){rest}, or remove the column",
    )


def _label(cell: str, layout: Layout, path: Path, line: int, column: str) -> str:
    value = cell.strip()
    verdict = layout.labels.get(value)
    if verdict is None:
        verdict = layout.labels.get(value.casefold())
    if verdict is None:
        known = ", ".join(repr(k) for k in layout.labels)
        raise RucolaError(
            f"label '{value}' in column {column} is not one of extract.sources[].labels ({known})",
            path,
            line,
            hint="declare it in the source's labels (acceptable, unacceptable or exclude)",
        )
    return verdict


def _split(cell: str, layout: Layout, path: Path, line: int, column: str) -> str:
    value = cell.strip()
    split = layout.splits.get(value, layout.splits.get(value.casefold()))
    if split is None:
        known = ", ".join(repr(k) for k in layout.splits)
        raise RucolaError(
            f"split '{value}' in column {column} is not one of extract.sources[].splits ({known})",
            path,
            line,
            hint="map it to train, validation or test in the source's splits",
        )
    return split


def read_table(
    path: Path, options: ExtractSource, encoding: str, layout: Layout
) -> Iterator[RawExample]:
    """The examples of one table, each with its origin (``FILE:LINE``) and, where the layout
    has them, its label, published split and id."""
    layout = layout.merged(options)
    delimiter = "," if path.suffix.lower() == ".csv" else "\t"
    reader = _reader(text_lines(path, encoding), delimiter, layout.quoting)
    rows = _rows(reader, path)
    first = next(rows, None)
    if first is None:
        raise RucolaError("empty file: no rows", path, 1)
    header: list[str] | None = None
    if layout.header:
        header = check_header(first[1], path, first[0])
        start_line, width = first[0], len(header)
    else:
        rows = _chain(first, rows)
        start_line, width = 0, len(first[1])
    at = _positions(layout, header, width, path)

    # a role's column as an error names it, and the name of each other column: once, not
    # per row (a million-row table)
    name = {role: f"'{header[i]}'" if header else str(i) for role, i in at.items()}

    def cell(row: list[str], role: str) -> str | None:
        return row[at[role]] if role in at else None

    default_source = options.source or path.stem
    domain = options.domain or layout.domain(path) or IN_DOMAIN
    fixed_split = layout.split(path)
    labelled = "label" in at
    others = [
        (i, header[i] if header else f"column {i}") for i in range(width) if i not in at.values()
    ]
    count = 0
    for line, row in rows:
        if len(row) != width:
            raise RucolaError(
                f"{len(row)} fields where {'the header has' if header else 'the first row has'} "
                f"{width}",
                path,
                line,
                hint="quote fields that hold the delimiter"
                if layout.quoting
                else "a cell cannot hold the delimiter in an unquoted table",
            )
        index = count
        count += 1
        label: int | None = None
        set_aside = detail = None
        if labelled:
            verdict = _label(row[at["label"]], layout, path, line, name["label"])
            if verdict == EXCLUDE:
                set_aside, detail = EXCLUDED_LABEL, row[at["label"]].strip()
            else:
                label = LABEL_VALUES[verdict]
        mark = cell(row, "mark")
        split = (
            _split(row[at["split"]], layout, path, line, name["split"])
            if "split" in at
            else fixed_split
        )
        published_id: int | None = None
        if "id" in at:
            published_id = read_id(row[at["id"]], path, line, name["id"])
        elif split is not None:
            published_id = index
        provenance = {column: row[i] for i, column in others if row[i] != ""}
        yield RawExample(
            origin=f"{path}:{line}",
            raw=delimiter.join(row),
            text=row[at["sentence"]],
            # an empty mark cell, or none: a mark in front of the text, if any, is split off
            mark=(mark or "").strip() or None,
            error_type=(cell(row, "error_type") or "").strip() or None,
            source=(cell(row, "source") or "").strip() or default_source,
            domain=domain,
            label=label,
            expand=not labelled,
            provenance=provenance,
            published_id=published_id,
            published_split=split,
            checks_mark=labelled and mark is not None,
            set_aside=set_aside,
            set_aside_detail=detail,
        )
    if count == 0:
        raise RucolaError(
            "a header but no example rows" if header else "no example rows",
            path,
            start_line or 1,
        )


def _rows(reader: Iterator[list[str]], path: Path) -> Iterator[tuple[int, list[str]]]:
    """(line of the row's start, row), blank rows skipped; a row the csv module cannot
    parse is one line naming the file and line."""
    line = 0
    while True:
        start = line + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            message = str(exc).replace("\t", "\\t")  # a tab prints as blank space
            raise RucolaError(f"cannot parse the row: {message}", path, start) from None
        line = reader.line_num  # type: ignore[attr-defined]
        if not row or all(not c.strip() for c in row):
            continue
        yield start, row


def _chain(
    first: tuple[int, list[str]], rest: Iterator[tuple[int, list[str]]]
) -> Iterator[tuple[int, list[str]]]:
    yield first
    yield from rest
