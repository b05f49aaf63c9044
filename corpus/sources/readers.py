"""Which reader reads a judged source: by its declared type or its extension.

A reader (``corpus.sources.formats``, one registered class per ``type``) only turns a file
into ``RawExample`` records with their origin; deciding labels, expanding alternations and
de-duplicating happen in ``corpus.extract`` for every format alike. A new format is one
module of ``corpus.sources.formats`` (docs/extending.md, "A source reader").
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rucola.corpus.sources import formats, rucola_csv
from rucola.corpus.sources.records import RawExample, SourceReader
from rucola.errors import RucolaError
from rucola.registry import SOURCE_READERS

if TYPE_CHECKING:
    from rucola.settings import Categories, Extract, ExtractSource

__all__ = ["RawExample", "Readers", "by_extension", "source_files", "source_type"]
# Imported for what it does: it registers every format (an import the code fingerprint of
# `rucola extract` sees, so a change to a format reruns extract).
del formats


def by_extension() -> dict[str, str]:
    """File extension -> the type that reads it when a source gives none (one each)."""
    found: dict[str, str] = {}
    for reader in SOURCE_READERS:
        for extension in reader.extensions:
            if extension in found:
                raise ValueError(f"{extension}: both {found[extension]} and {reader.name}")
            found[extension] = reader.name
    return found


def source_type(path: Path, declared: str | None) -> str:
    """The declared type (one the schema allows), else the one the extension gives."""
    if declared:
        return declared
    kind = by_extension().get(path.suffix.lower())
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
    A folder of a declared type is read for that type's files only (an m2 folder for its
    ``.m2`` files, not a paper's tables beside them); one without a type for every file a
    reader knows by its extension.
    """
    if not path.exists():
        raise RucolaError("source not found", path)
    if path.is_file():
        return [path]
    if declared in (None, "rucola_csv") and rucola_csv.is_published_layout(path):
        return [path]
    known = set(by_extension())
    wanted = set(SOURCE_READERS[declared].extensions or known) if declared else known
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


class Readers:
    """The readers of one run of ``extract``: one instance per type, made when first
    needed (an M2 reader keeps counts across files for the report)."""

    def __init__(self, settings: Extract, categories: Categories) -> None:
        self.settings = settings
        self.categories = categories
        self._made: dict[str, SourceReader] = {}

    def reader(self, kind: str) -> SourceReader:
        if kind not in self._made:
            self._made[kind] = SOURCE_READERS[kind](self.settings, self.categories)
        return self._made[kind]

    def read(self, path: Path, source: ExtractSource) -> Iterator[RawExample]:
        """The examples of one file (or published release folder) of ``source``."""
        kind = "rucola_csv" if path.is_dir() else source_type(path, source.type)
        reader = self.reader(kind)
        keys = source.table_keys()
        if keys and not reader.tabular:
            tables = ", ".join(r.name for r in SOURCE_READERS if r.tabular)
            raise RucolaError(
                f"extract.sources[].{keys[0]} is for tables ({tables}); a {kind} source "
                "has its own layout",
                path,
                hint=f"remove {', '.join(keys)} from this source, or give a table type",
            )
        return reader.read(path, source)

    def report(self) -> dict[str, Any]:
        """What the readers used add to the stage's private report."""
        found: dict[str, Any] = {}
        for kind in sorted(self._made):
            found.update(self._made[kind].report())
        return found
