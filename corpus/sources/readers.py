"""Which reader reads a judged source: by its declared type or its extension.

A reader only turns a file into ``RawExample`` records with their origin; deciding labels,
expanding alternations and de-duplicating happen in ``corpus.extract`` for every format alike.
M2 learner corpora (``corpus.sources.m2``) carry edits, not judgments: ``corpus.learner``
turns their sentences into labelled minimal pairs, and ``corpus.extract`` calls it for the
files this module types ``m2``. A new reader is a module of this package and one entry here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import get_args

from rucola.corpus.sources import lists, rucola_csv, sheets
from rucola.corpus.sources.records import RawExample
from rucola.errors import RucolaError
from rucola.settings import ExtractSource, SourceType

__all__ = ["SOURCE_TYPES", "RawExample", "read_source", "source_files", "source_type"]

SOURCE_TYPES: tuple[SourceType, ...] = get_args(SourceType)
_BY_EXTENSION: dict[str, SourceType] = {
    ".tsv": "sheet",
    ".csv": "sheet",
    ".txt": "list",
    ".m2": "m2",
}


def source_type(path: Path, declared: SourceType | None) -> SourceType:
    """The declared type (one the schema allows), else the one the extension gives."""
    if declared:
        return declared
    kind = _BY_EXTENSION.get(path.suffix.lower())
    if kind is None:
        raise RucolaError(
            f"cannot tell the source type from the extension '{path.suffix}'",
            path,
            hint="give 'type' in extract.sources",
        )
    return kind


def source_files(path: Path, declared: SourceType | None = None) -> list[Path]:
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
    # A folder declared m2 is read for its .m2 files only (not a paper's tables beside
    # them), one declared sheet or list for its judgment files, an undeclared one for all.
    if declared == "m2":
        wanted = {".m2"}
    elif declared is None:
        wanted = set(_BY_EXTENSION)
    else:
        wanted = set(_BY_EXTENSION) - {".m2"}
    files = [
        p
        for p in sorted(path.rglob("*"))
        if p.is_file()
        and not any(part.startswith(".") for part in p.relative_to(path).parts)
        and p.suffix.lower() in wanted
        and p.stem.lower() != "readme"
    ]
    if not files:
        *others, last = sorted(wanted)
        kinds = f"{', '.join(others)} or {last}" if others else last
        raise RucolaError(f"no {kinds} files in this folder", path)
    return files


M2Reader = Callable[[Path], Iterable[RawExample]]


def read_source(
    path: Path,
    declared_type: SourceType | None,
    options: ExtractSource,
    encoding: str,
    m2_reader: M2Reader | None = None,
) -> Iterator[RawExample]:
    """The examples of one file (or published release folder). ``m2_reader`` turns an M2
    file into examples (``corpus.learner``, given by the caller: the minimal pairs depend
    on the run's ``extract.m2`` params, and this package imports no stage logic)."""
    if path.is_dir():  # a published release folder (see source_files)
        yield from rucola_csv.read_published_release(path, options, encoding)
        return
    kind = source_type(path, declared_type)
    if kind == "m2":
        if m2_reader is None:
            raise ValueError("an M2 source needs an m2_reader (corpus.learner)")
        yield from m2_reader(path)
        return
    reader = {
        "sheet": sheets.read_sheet,
        "list": lists.read_list,
        "rucola_csv": rucola_csv.read_rucola_csv,
    }[kind]
    yield from reader(path, options, encoding)
