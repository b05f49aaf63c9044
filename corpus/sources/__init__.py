"""Readers for in-domain sources: one module per format, one record type for all.

A reader only turns a file into ``RawExample`` records with their origin; deciding labels,
expanding alternations and de-duplicating happen in ``corpus.extract`` for every format alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rucola.corpus.sources import lists, rucola_csv, sheets
from rucola.corpus.sources.records import RawExample
from rucola.errors import RucolaError

__all__ = ["SOURCE_TYPES", "RawExample", "read_source", "source_files", "source_type"]

SOURCE_TYPES = ("sheet", "list", "rucola_csv")
_BY_EXTENSION = {".tsv": "sheet", ".csv": "sheet", ".txt": "list"}


def source_type(path: Path, declared: str | None) -> str:
    if declared:
        if declared not in SOURCE_TYPES:
            raise RucolaError(
                f"unknown source type '{declared}'",
                path,
                hint=f"use one of {', '.join(SOURCE_TYPES)}",
            )
        return declared
    kind = _BY_EXTENSION.get(path.suffix.lower())
    if kind is None:
        raise RucolaError(
            f"cannot tell the source type from the extension '{path.suffix}'",
            path,
            hint="give 'type' in extract.sources",
        )
    return kind


def source_files(path: Path, declared: str | None = None) -> list[Path]:
    """A file, or the files of a folder in name order (hidden files and README skipped).

    A folder in the published RuCoLA layout (``type`` ``rucola_csv`` or left out) is one
    source, read as a whole release (``corpus.sources.rucola_csv.read_published_release``).
    """
    if not path.exists():
        raise RucolaError("source not found", path)
    if path.is_file():
        return [path]
    if declared in (None, "rucola_csv") and rucola_csv.is_published_layout(path):
        return [path]
    files = [
        p
        for p in sorted(path.rglob("*"))
        if p.is_file()
        and not any(part.startswith(".") for part in p.relative_to(path).parts)
        and p.suffix.lower() in _BY_EXTENSION
        and p.stem.lower() != "readme"
    ]
    if not files:
        raise RucolaError("no .tsv, .csv or .txt files in this folder", path)
    return files


def read_source(
    path: Path, declared_type: str | None, options: dict[str, Any], encoding: str
) -> Iterator[RawExample]:
    if path.is_dir():  # a published release folder (see source_files)
        yield from rucola_csv.read_published_release(path, options, encoding)
        return
    kind = source_type(path, declared_type)
    reader = {
        "sheet": sheets.read_sheet,
        "list": lists.read_list,
        "rucola_csv": rucola_csv.read_rucola_csv,
    }[kind]
    yield from reader(path, options, encoding)
