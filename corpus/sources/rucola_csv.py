"""The published RuCoLA files (``id,sentence,acceptable,error_type,detailed_source``).

They carry labels instead of marks, so users can extend the published corpus with new
sheets and lists and rebuild it with the same pipeline. Every row keeps its published id
and split (``published_id``, ``published_split``): a later version never renumbers a row or
moves it to another split.

A folder in the published layout is read as one release, file by file in the published
order: ``in_domain_train.csv``, ``in_domain_dev.csv``, ``out_of_domain_dev.csv`` and the
unlabelled ``test.csv``. Its test rows get their labels, categories, sources and domains
from the maintainer's private ``test_gold.csv`` (the labelled layout plus ``domain``) when
it is there; without it they stay unlabelled (``label`` -1, no domain) and are carried as
they are. ``sample_submission.csv`` holds no sentences and is not read.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from rucola.corpus.sources.records import RawExample, read_id
from rucola.corpus.sources.text import read_text, text_lines
from rucola.csvfile import locate_error
from rucola.errors import RucolaError, check_header
from rucola.settings import DOMAINS, IN_DOMAIN, OUT_OF_DOMAIN, UNLABELLED, ExtractSource

if TYPE_CHECKING:  # pandas loads in published_frame alone: checking a source's type in
    # params imports every reader, and every command reads params
    import pandas as pd

REQUIRED = ("sentence", "acceptable", "error_type", "detailed_source")
# file name -> (split, domain) in the order the published release lists them
PUBLISHED_FILES = {
    "in_domain_train.csv": ("train", IN_DOMAIN),
    "in_domain_dev.csv": ("validation", IN_DOMAIN),
    "out_of_domain_dev.csv": ("validation", OUT_OF_DOMAIN),
    "test.csv": ("test", None),
}
GOLD_FILE = "test_gold.csv"


def is_published_layout(folder: Path) -> bool:
    return folder.is_dir() and any((folder / name).is_file() for name in PUBLISHED_FILES)


def _records(path: Path, encoding: str, required: tuple[str, ...]) -> Iterator[tuple[int, dict]]:
    """(line of the record's start, record) for every CSV record; checks the header. A
    cell over the csv module's field limit, or quoting it cannot read, is one line naming
    the file and line (``rucola.csvfile``), never a traceback."""
    try:
        yield from _read_records(text_lines(path, encoding), path, required)
    except csv.Error as exc:
        # read whole only to name the line of the failure
        text = read_text(path, encoding)
        raise locate_error(path, text) or RucolaError(f"unreadable CSV: {exc}", path) from None


def _read_records(
    lines: Iterator[str], path: Path, required: tuple[str, ...]
) -> Iterator[tuple[int, dict]]:
    reader = csv.DictReader(lines)
    fieldnames = check_header(list(reader.fieldnames or []), path, max(reader.line_num, 1))
    reader.fieldnames = fieldnames
    missing = [c for c in required if c not in fieldnames]
    if missing:
        raise RucolaError(
            f"missing column(s) {', '.join(missing)} of the RuCoLA layout",
            path,
            1,
            hint=f"expected {','.join(required)}",
        )
    line = reader.line_num
    header_line, records = line, 0
    for record in reader:
        start, line = line + 1, reader.line_num
        records += 1
        yield start, record
    if records == 0:
        raise RucolaError("a header but no rows", path, header_line, hint="is the file truncated?")


def _id(record: dict, path: Path, line: int) -> int | None:
    value = (record.get("id") or "").strip()
    return read_id(value, path, line) if value else None


def _label(record: dict, path: Path, line: int) -> int:
    acceptable = (record.get("acceptable") or "").strip()
    if acceptable not in {"0", "1"}:
        raise RucolaError(f"'acceptable' must be 0 or 1, not '{acceptable}'", path, line)
    return int(acceptable)


def _error_type(record: dict) -> str | None:
    value = (record.get("error_type") or "").strip()
    return None if value in {"", "0"} else value


def read_rucola_csv(
    path: Path,
    options: ExtractSource,
    encoding: str,
    split: str | None = None,
    domain: str | None = None,
) -> Iterator[RawExample]:
    """One labelled file: train, validation, or the private gold."""
    domain = (
        domain
        or options.domain
        or (OUT_OF_DOMAIN if path.name.startswith(OUT_OF_DOMAIN) else IN_DOMAIN)
    )
    if split is None and path.name in PUBLISHED_FILES:
        split = PUBLISHED_FILES[path.name][0]
    fields: list[str] | None = None
    for line, record in _records(path, encoding, REQUIRED):
        fields = fields or list(record)
        label = _label(record, path, line)
        yield RawExample(
            origin=f"{path}:{line}",
            raw=",".join(record.get(k) or "" for k in fields),
            text=record["sentence"],
            mark="" if label == 1 else "*",
            error_type=_error_type(record),
            source=(record["detailed_source"] or "").strip() or path.stem,
            domain=domain,
            label=label,
            expand=False,
            published_id=_id(record, path, line),
            published_split=split,
        )


def _gold(folder: Path, encoding: str) -> dict[int, tuple[int, dict]]:
    path = folder / GOLD_FILE
    if not path.is_file():
        return {}
    gold: dict[int, tuple[int, dict]] = {}
    for line, record in _records(path, encoding, ("id", *REQUIRED, "domain")):
        key = _id(record, path, line)
        if key is None:
            raise RucolaError("a gold row without an id", path, line)
        if key in gold:
            raise RucolaError(f"id {key} occurs twice (first on line {gold[key][0]})", path, line)
        if (record["domain"] or "").strip() not in DOMAINS:
            raise RucolaError(
                f"domain must be {' or '.join(DOMAINS)}, not '{record['domain']}'",
                path,
                line,
            )
        gold[key] = (line, record)
    return gold


def read_test(path: Path, encoding: str, gold: dict[int, tuple[int, dict]]) -> Iterator[RawExample]:
    """The public test file; labelled from the private gold when the maintainer has it."""
    gold_path = path.parent / GOLD_FILE
    seen: set[int] = set()
    for line, record in _records(path, encoding, ("id", "sentence")):
        key = _id(record, path, line)
        if key is None:
            raise RucolaError("a test row without an id", path, line)
        seen.add(key)
        example = RawExample(
            origin=f"{path}:{line}",
            raw=f"{record['id']},{record['sentence']}",
            text=record["sentence"],
            mark="",
            error_type=None,
            source=None,
            domain=None,
            label=UNLABELLED,
            expand=False,
            published_id=key,
            published_split="test",
        )
        if gold:
            if key not in gold:
                raise RucolaError(f"test id {key} is not in {GOLD_FILE}", path, line)
            gold_line, truth = gold[key]
            if truth["sentence"] != record["sentence"]:
                raise RucolaError(
                    f"the gold sentence of id {key} differs from test.csv line {line}",
                    gold_path,
                    gold_line,
                )
            example.label = _label(truth, gold_path, gold_line)
            example.mark = "" if example.label == 1 else "*"
            example.error_type = _error_type(truth)
            example.source = (truth["detailed_source"] or "").strip() or None
            example.domain = truth["domain"].strip()
        yield example
    extra = sorted(set(gold) - seen)
    if extra:
        raise RucolaError(
            f"{len(extra)} gold id(s) not in test.csv: {', '.join(map(str, extra[:5]))}",
            gold_path,
            gold[extra[0]][0],
        )


def read_published_release(
    folder: Path, options: ExtractSource, encoding: str
) -> Iterator[RawExample]:
    """A folder in the published layout, in the published order (see the module doc)."""
    gold = _gold(folder, encoding)
    for name, (split, domain) in PUBLISHED_FILES.items():
        path = folder / name
        if not path.is_file():
            continue
        if name == "test.csv":
            yield from read_test(path, encoding, gold)
        else:
            yield from read_rucola_csv(path, options, encoding, split, domain)


FRAME_COLUMNS = ["sentence", "label", "error_type", "split", "detailed_source", "domain", "id"]


def published_frame(folder: Path) -> pd.DataFrame:
    """A published release as one frame (:data:`FRAME_COLUMNS`), in the published order."""
    import pandas as pd

    rows = [
        (e.text, e.label, e.error_type, e.published_split, e.source, e.domain, e.published_id)
        for e in read_published_release(folder, {}, "utf-8")
    ]
    return pd.DataFrame(rows, columns=FRAME_COLUMNS)
