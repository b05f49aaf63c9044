"""``type: rucola_csv``: the published RuCoLA CSV files, one file or a whole release folder
(``corpus.sources.rucola_csv``: ids, splits and the private gold kept)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from rucola.corpus.sources.records import LABELS, RawExample, SourceReader
from rucola.corpus.sources.rucola_csv import read_published_release, read_rucola_csv
from rucola.registry import SOURCE_READERS

if TYPE_CHECKING:
    from rucola.settings import ExtractSource


@SOURCE_READERS.register
class RucolaCsv(SourceReader):
    name = "rucola_csv"
    extensions = ()  # a .csv is a sheet unless the source says rucola_csv
    carries = frozenset({LABELS})
    example = (
        "id,sentence,acceptable,error_type,detailed_source\n"
        "0,Мальчик спит.,1,0,Paducheva\n"
        "1,Мальчик спят.,0,Morphology,Paducheva\n"
    )
    example_name = "in_domain_train.csv"

    def read(self, path: Path, source: ExtractSource) -> Iterator[RawExample]:
        if path.is_dir():  # a published release folder (corpus.sources.readers.source_files)
            return read_published_release(path, source, self.settings.encoding)
        return read_rucola_csv(path, source, self.settings.encoding)
