"""``type: list``: numbered example lists as printed (``corpus.sources.lists``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from rucola.corpus.sources.lists import read_list
from rucola.corpus.sources.records import MARKS, RawExample, SourceReader
from rucola.registry import SOURCE_READERS

if TYPE_CHECKING:
    from rucola.settings import ExtractSource


@SOURCE_READERS.register
class List(SourceReader):
    name = "list"
    extensions = (".txt",)
    carries = frozenset({MARKS})
    example = "# error_type: Morphology\n(1) Мальчик спит.\n(2) *Мальчик спят.\n"
    example_name = "list.txt"

    def read(self, path: Path, source: ExtractSource) -> Iterator[RawExample]:
        return read_list(path, source, self.settings.encoding)
