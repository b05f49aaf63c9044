"""``type: sheet``: judgment sheets, TSV or CSV with a header (``corpus.sources.sheets``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from rucola.corpus.sources.records import MARKS, RawExample, SourceReader
from rucola.corpus.sources.sheets import read_sheet
from rucola.registry import SOURCE_READERS

if TYPE_CHECKING:
    from rucola.settings import ExtractSource


@SOURCE_READERS.register
class Sheet(SourceReader):
    name = "sheet"
    extensions = (".tsv", ".csv")
    carries = frozenset({MARKS})
    example = "sentence\tmark\terror_type\nМальчик спит.\t\t\nМальчик спят.\t*\tMorphology\n"
    example_name = "sheet.tsv"

    def read(self, path: Path, source: ExtractSource) -> Iterator[RawExample]:
        return read_sheet(path, source, self.settings.encoding)
