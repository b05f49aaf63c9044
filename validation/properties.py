"""The row properties validate checks, computed by extract's own rule functions.

A text check of validate is an expectation on a column derived here from the sentence, not
a second regex of its own: a regex for Great Expectations runs over RE2, which has no
lookaround, and a copy drifts from the rule it copies (validate's old parenthesis regex
knew Latin and Cyrillic letters only). With one definition, validate cannot refuse a row
that extract kept for a reason extract knows:

- ``leading_mark``: the judgment mark at the start of the sentence
  (``corpus.marks.leading_mark``), null if none. Extract splits a mark off (a copy of the
  row's own mark too) and sets a row whose text starts with another mark aside
  (``mark_in_text``), so a kept row has none.
- ``marked_parenthesis``: ``unexpanded_alternation`` when that artefact rule
  (``corpus.artefacts``) finds a marked or slashed parenthesis in the sentence and
  extract's ``artefacts`` column does not already name it, else null. A row extract kept
  flagged (``extract.artefacts: keep``) is the maintainer's choice; a row it never saw, or
  whose text changed after it (an erratum), is not.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from rucola.corpus.artefacts import UNEXPANDED_ALTERNATION
from rucola.corpus.marks import leading_mark

LEADING_MARK_COLUMN = "leading_mark"
MARKED_PARENTHESIS_COLUMN = "marked_parenthesis"
PROPERTY_COLUMNS = [LEADING_MARK_COLUMN, MARKED_PARENTHESIS_COLUMN]


def _flagged(artefacts: object, kind: str) -> bool:
    """Whether extract's ``artefacts`` cell (kinds joined by commas) names ``kind``."""
    return isinstance(artefacts, str) and kind in artefacts.split(",")


def marked_parenthesis(sentence: str, artefacts: object = None) -> str | None:
    """The artefact kind of a marked or slashed parenthesis in ``sentence`` that extract
    did not flag (``artefacts``: its column's cell), None otherwise."""
    kind = UNEXPANDED_ALTERNATION.kind
    if _flagged(artefacts, kind) or not UNEXPANDED_ALTERNATION.found(sentence):
        return None
    return kind


def row_properties(frame: pd.DataFrame) -> dict[str, list[str | None]]:
    """``PROPERTY_COLUMNS`` of every row of ``frame`` (its ``sentence`` and, if the split
    data carries it, extract's ``artefacts``); a null sentence has none of them."""
    sentences: Sequence[object] = frame["sentence"].tolist()
    flags: Sequence[object] = (
        frame["artefacts"].tolist() if "artefacts" in frame.columns else [None] * len(frame)
    )
    marks: list[str | None] = []
    parentheses: list[str | None] = []
    for sentence, flag in zip(sentences, flags, strict=True):
        if not isinstance(sentence, str):
            marks.append(None)
            parentheses.append(None)
            continue
        marks.append(leading_mark(sentence))
        parentheses.append(marked_parenthesis(sentence, flag))
    return {LEADING_MARK_COLUMN: marks, MARKED_PARENTHESIS_COLUMN: parentheses}
