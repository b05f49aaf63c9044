"""Which corpus row a vote names: by its whole key, never by the first row an id fits.

A human evaluation's vote names an existing row (``annotate.votes_target: corpus``). Ids
are unique only per split and domain in RuCoLA (train id 0, validation id 0 of each
domain and test id 0 are four rows), so an id alone is a name only where exactly one row
has it (ItaCoLA's ids are unique over the corpus). A vote names a row by:

- its ``task`` read as an id, narrowed by the ``split`` and ``domain`` the vote gives
  (``annotate.vote_columns``): a row's identity is its published split and id where it
  has them, else the split and id the split stage gave it (a maintained corpus's votes
  name released rows);
- its ``sentence``, compared under :func:`rucola.corpus.dedup.sentence_key` with the
  corpus language's script (extract's key: ItaCoLA's voted ``Ѐ`` sentences name the rows
  extract repaired to ``È``).

Where the task is an id and the vote has a sentence too, the two must agree: among the
rows the id names, exactly one has that sentence. A task that is no id (a label of the
voter's own) names its row by the sentence alone. What is left is set aside, per name:

- ``unknown_row``: no row has that id (in that split and domain) or that sentence;
- ``ambiguous_row``: several rows do (an id of RuCoLA's with no split, domain or sentence);
- ``sentence_mismatch``: the id names a row whose sentence is another one (or none, while
  the sentence names a row).

Nothing here guesses: a name that fits two rows joins neither.
"""

from __future__ import annotations

import re
from collections import defaultdict

import numpy as np
import pandas as pd

from rucola.corpus import schema
from rucola.corpus.dedup import sentence_key

TEST = schema.SPLITS[2]
UNKNOWN_ROW = "unknown_row"
AMBIGUOUS_ROW = "ambiguous_row"
SENTENCE_MISMATCH = "sentence_mismatch"
NAME_COLUMNS = ["task", "sentence", "split", "domain"]
_INTEGER = re.compile(r"[+-]?\d{1,18}")  # an id of int64's range; a longer number is no id


def as_id(task: object) -> int | None:
    """A task read as a row id, or None (a label of the voter's own)."""
    text = str(task).strip()
    return int(text) if _INTEGER.fullmatch(text) else None


def _given(value: object) -> str | None:
    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA:
        return None
    text = str(value).strip()
    return text or None


class RowIndex:
    """The split rows' identities and sentence keys, looked up by a vote's name."""

    def __init__(self, rows: pd.DataFrame, language: str) -> None:
        self.language = language
        n = len(rows)

        def column(name: str) -> list[object]:
            values = rows[name].tolist() if name in rows.columns else [None] * n
            return [None if v is None or v is pd.NA or v != v else v for v in values]

        # a published row's identity is its published one (the split stage keeps it);
        # another row's, the split and id it was given
        split = [
            p if p is not None else s
            for p, s in zip(column("published_split"), column("split"), strict=True)
        ]
        ids = [
            p if p is not None else i
            for p, i in zip(column("published_id"), column("id"), strict=True)
        ]
        self.split = [None if s is None else str(s) for s in split]
        self.domain = [None if d is None else str(d) for d in column("domain")]
        self.sentences = rows["sentence"].astype(str).tolist()
        self.by_id: dict[int, list[int]] = defaultdict(list)
        for position, value in enumerate(ids):
            if value is not None:
                self.by_id[int(value)].append(position)
        self._keys: list[str] | None = None
        self._by_key: dict[str, list[int]] | None = None

    def key(self, position: int) -> str:
        if self._keys is not None:
            return self._keys[position]
        return sentence_key(self.sentences[position], self.language)

    def by_sentence(self, key: str) -> list[int]:
        if self._by_key is None:  # built once, and only when some vote names a sentence
            self._keys = [sentence_key(s, self.language) for s in self.sentences]
            self._by_key = defaultdict(list)
            for position, k in enumerate(self._keys):
                self._by_key[k].append(position)
        return self._by_key.get(key, [])

    def fits(self, position: int, split: str | None, domain: str | None) -> bool:
        """Whether the row is in the split and domain a vote gives (a row whose domain is
        hidden from the maintainer, an unlabelled test row, fits any domain)."""
        if split is not None and self.split[position] != split:
            return False
        row_domain = self.domain[position]
        return domain is None or row_domain is None or row_domain == domain

    def resolve(
        self, task: object, sentence: object, split: object, domain: object
    ) -> tuple[int, str | None, list[int]]:
        """The row a name names (its position, or -1), why not, and every row the name's
        id or sentence points at in any split (the rows it could be about)."""
        split, domain = _given(split), _given(domain)
        row_id = as_id(task)
        text = _given(sentence)
        key = sentence_key(text, self.language) if text is not None else None
        with_id = self.by_id.get(row_id, []) if row_id is not None else []
        with_sentence = self.by_sentence(key) if key is not None else []
        near = with_id + with_sentence
        named = [p for p in with_id if self.fits(p, split, domain)]
        if named:
            if key is not None:
                named = [p for p in named if self.key(p) == key]
                if not named:
                    return -1, SENTENCE_MISMATCH, near
            return (named[0], None, near) if len(named) == 1 else (-1, AMBIGUOUS_ROW, near)
        if key is None:
            return -1, UNKNOWN_ROW, near
        shown = [p for p in with_sentence if self.fits(p, split, domain)]
        if row_id is not None and shown:  # the id names no row, the sentence one: disagree
            return -1, SENTENCE_MISMATCH, near
        if not shown:
            return -1, UNKNOWN_ROW, near
        return (shown[0], None, near) if len(shown) == 1 else (-1, AMBIGUOUS_ROW, near)


def resolve_names(votes: pd.DataFrame, rows: pd.DataFrame, language: str) -> pd.DataFrame:
    """Per vote: ``at`` (the position of its row in ``rows``, or -1), ``why`` (None, or
    the reason it names no row) and ``near_test`` (whether a test row is among the rows
    its id or sentence points at: such a vote's fate is private, whatever it names).

    ``votes`` has ``task`` and, where the table gave them, ``sentence``, ``split`` and
    ``domain``; ``rows`` the split rows (``sentence``, ``split``, ``domain``, ``id``,
    ``published_id``, ``published_split``)."""
    names = votes.reindex(columns=NAME_COLUMNS).astype(object)
    names = names.where(names.notna(), None)
    index = RowIndex(rows, language)
    found: dict[tuple, tuple[int, str | None, bool]] = {}
    at, why, near_test = [], [], []
    for name in names.itertuples(index=False, name=None):
        if name not in found:
            position, reason, near = index.resolve(*name)
            test = any(index.split[p] == TEST for p in near) or _given(name[2]) == TEST
            found[name] = (position, reason, test)
        position, reason, test = found[name]
        at.append(position)
        why.append(reason)
        near_test.append(test)
    return pd.DataFrame(
        {"at": np.asarray(at, dtype=np.int64), "why": why, "near_test": near_test},
        index=votes.index,
    )
