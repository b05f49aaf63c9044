"""``type: sheet``: judgment sheets, TSV or CSV with a header (``corpus.sources.sheets``);
with a layout of its own (``columns``, ``labels``, ``header: false`` ...), any labelled
table (``corpus.sources.tables``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from rucola.corpus.sources.records import MARKS, RawExample, SourceReader
from rucola.corpus.sources.sheets import read_sheet
from rucola.corpus.sources.tables import Layout, read_table
from rucola.registry import SOURCE_READERS

if TYPE_CHECKING:
    from rucola.settings import ExtractSource

# A sheet's own columns, by name: the layout a source's keys add to.
SHEET = Layout(by_name=("mark", "error_type", "source"))


@SOURCE_READERS.register
class Sheet(SourceReader):
    name = "sheet"
    extensions = (".tsv", ".csv")
    carries = frozenset({MARKS})
    tabular = True
    example = "sentence\tmark\terror_type\nМальчик спит.\t\t\nМальчик спят.\t*\tMorphology\n"
    example_name = "sheet.tsv"

    def read(self, path: Path, source: ExtractSource) -> Iterator[RawExample]:
        if source.table_keys():
            return read_table(path, source, self.settings.encoding, SHEET)
        return read_sheet(path, source, self.settings.encoding)
