"""``type: m2``: learner corpora in the M2 format, turned into labelled minimal pairs by
``corpus.learner`` (their domain is ``learner``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rucola.corpus.sources.records import LABELS, RawExample, SourceReader
from rucola.errors import RucolaError
from rucola.registry import SOURCE_READERS
from rucola.settings import LEARNER

if TYPE_CHECKING:
    from rucola.settings import Categories, Extract, ExtractSource


@SOURCE_READERS.register
class M2(SourceReader):
    name = "m2"
    extensions = (".m2",)
    carries = frozenset({LABELS})
    example = (
        "S Мой друг всегда помогают мне .\n"
        "A 3 4|||G:VERB:P/N/G|||помогает|||REQUIRED|||-NONE-|||0\n\n"
        "S Летом мы ездили в деревню .\n"
        "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n"
    )
    example_name = "essays.m2"

    def __init__(self, settings: Extract, categories: Categories) -> None:
        from rucola.corpus.learner import MinimalPairs

        super().__init__(settings, categories)
        # one for the run: its counts (pairs made, edits per category) go in the report
        self.pairs = MinimalPairs(settings.m2, categories.of(LEARNER))

    def read(self, path: Path, source: ExtractSource) -> Iterator[RawExample]:
        from rucola.corpus.learner import read_pairs

        if source.domain not in (None, LEARNER):
            raise RucolaError(
                f"an M2 source gives learner rows, not {source.domain}",
                path,
                hint="leave out 'domain' for an m2 source, or give 'learner'",
            )
        return read_pairs(path, source.source or path.stem, self.pairs, self.settings.encoding)

    def report(self) -> dict[str, Any]:
        return {LEARNER: self.pairs.report()} if self.pairs.counts["sentences"] else {}
