"""``type: cola_tsv``: CoLA's raw files as published (``cola_public/raw``): no header, four
tab-separated columns ``source, label (0/1), original mark, sentence``, not CSV-quoted (a
sentence may hold ``"``). The file's name gives the published split and the domain:
``in_domain_train`` train, ``in_domain_dev`` and ``out_of_domain_dev`` validation (CoLA
publishes no test labels), ``out_of_domain_*`` rows from other publications
(``out_of_domain``). A row's id is its position in its file. The mark is checked against
the label (``mark_contradicts_label``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from rucola.corpus.sources.records import LABELS, MARKS, RawExample, SourceReader
from rucola.corpus.sources.tables import Layout, read_table
from rucola.errors import RucolaError
from rucola.registry import SOURCE_READERS
from rucola.settings import IN_DOMAIN, OUT_OF_DOMAIN

if TYPE_CHECKING:
    from rucola.settings import ExtractSource

SPLITS = {
    "in_domain_train": "train",
    "in_domain_dev": "validation",
    "out_of_domain_dev": "validation",
}


def _split(path: Path) -> str:
    split = SPLITS.get(path.stem)
    if split is None:
        raise RucolaError(
            f"cannot tell the published split of '{path.name}' (CoLA's files are "
            f"{', '.join(f'{name}.tsv' for name in SPLITS)})",
            path,
            hint="give extract.sources[].split for this file",
        )
    return split


def _domain(path: Path) -> str:
    return OUT_OF_DOMAIN if path.stem.startswith(OUT_OF_DOMAIN) else IN_DOMAIN


COLA = Layout(
    header=False,
    quoting=False,
    columns={"source": 0, "label": 1, "mark": 2, "sentence": 3},
    split=_split,
    domain=_domain,
)


@SOURCE_READERS.register
class ColaTsv(SourceReader):
    name = "cola_tsv"
    extensions = ()  # a .tsv is a sheet unless the source says cola_tsv
    carries = frozenset({LABELS, MARKS})
    tabular = True
    # an acceptable row, and one whose mark contradicts its label (set aside)
    example = (
        'gj04\t1\t\tOur friends won\'t buy this "analysis".\ngj04\t1\t*\tThey drank the pub.\n'
    )
    example_name = "in_domain_train.tsv"

    def read(self, path: Path, source: ExtractSource) -> Iterator[RawExample]:
        return read_table(path, source, self.settings.encoding, COLA)
