"""``type: itacola_tsv``: ItaCoLA's ``ItaCoLA_dataset.tsv`` as published: a header
``UniqueIndexID, Source, Acceptability, Sentence, Split``, labels 1/0, splits
``train``/``dev``/``test`` (``dev`` is validation); ``UniqueIndexID`` is the published id,
so every row keeps its split and id."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from rucola.corpus.sources.records import LABELS, RawExample, SourceReader
from rucola.corpus.sources.tables import Layout, read_table
from rucola.registry import SOURCE_READERS

if TYPE_CHECKING:
    from rucola.settings import ExtractSource

ITACOLA = Layout(
    header=True,
    quoting=False,
    columns={
        "id": "UniqueIndexID",
        "source": "Source",
        "label": "Acceptability",
        "sentence": "Sentence",
        "split": "Split",
    },
)


@SOURCE_READERS.register
class ItacolaTsv(SourceReader):
    name = "itacola_tsv"
    extensions = ()  # a .tsv is a sheet unless the source says itacola_tsv
    carries = frozenset({LABELS})
    tabular = True
    example = (
        "UniqueIndexID\tSource\tAcceptability\tSentence\tSplit\n"
        "1\tGraffi_1994\t1\tQuest'uomo mi ha colpito.\ttrain\n"
        "3\tGraffi_1994\t1\tQuesta donna mi ha colpito.\tdev\n"
    )
    example_name = "ItaCoLA_dataset.tsv"

    def read(self, path: Path, source: ExtractSource) -> Iterator[RawExample]:
        return read_table(path, source, self.settings.encoding, ITACOLA)
