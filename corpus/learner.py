"""Minimal pairs from learner corpora: an M2 sentence's edits turned into labelled rows.

Per annotator, the sentence with all of that annotator's edits applied is **acceptable**;
the sentence with only the edits that do not bear on acceptability applied (spelling,
punctuation, letter case, style: ``extract.m2.ignore``) is **unacceptable**. The two differ
exactly in the grammatical edits, and the unacceptable row's ``error_type`` is the category
most of those edits map to (``extract.m2.categories``; ties go to the earlier category of
``corpus.categories.learner``, and are counted). A sentence without a grammatical edit gives one
acceptable row, and so does one whose grammatical edits leave the printed text unchanged
(a token corrected to itself): such a pair would be one text with both labels. Rows of
several annotators that are the same text with the same label are one row; a text that one
annotator accepts and another corrects grammatically (typically: one left the sentence
unchanged) is set aside as ``annotators_disagree``, never labelled by guess. Reasons a
sentence's rows are set aside here (and counted by ``corpus.extract``):
``annotators_disagree``, ``overlapping_edits`` (two edits of one annotator cover the same
tokens, so no order of applying them is right) and ``unknown_edit_type`` (with
``extract.m2.unknown_type: reject``).

The pair shares its sentence's origin, so extraction gives both rows one ``group`` and the
split never separates them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, NamedTuple

from rucola.corpus import schema
from rucola.corpus.detokenize import detokenize
from rucola.corpus.sources.m2 import Edit, M2Sentence, read_m2
from rucola.corpus.sources.records import RawExample
from rucola.errors import RucolaError, params_error
from rucola.settings import ExtractM2, m2_mapping_problems

IGNORED = "ignored"  # the class of an edit that does not bear on acceptability
ANNOTATORS_DISAGREE = "annotators_disagree"
OVERLAPPING_EDITS = "overlapping_edits"
UNKNOWN_EDIT_TYPE = "unknown_edit_type"
_WILDCARDS = frozenset("*?[]")
# The report's counts. Per annotator's correction: ``unchanged`` (noop, or no A line),
# ``ignored_only`` (edited, but no grammatical edit), ``grammar_unseen`` (grammatical edits
# that leave the printed text as it was: one acceptable row). Per kept unacceptable row, once
# after merging: ``pairs``, of which ``single_edit_pairs`` exist only as one error alone.
_REPORTED = (
    "sentences",
    "annotations",
    "unchanged",
    "ignored_only",
    "grammar_unseen",
    "pairs",
    "single_edit_pairs",
    "error_type_ties",
)


def _literal(pattern: str) -> int:
    return sum(ch not in _WILDCARDS for ch in pattern)


class EditTypes:
    """Edit type → category, or :data:`IGNORED`, or None (unknown), by the most specific
    pattern: an exact type, then the pattern with the most literal characters (ties: the
    first in sorted order)."""

    def __init__(
        self, categories: dict[str, str], ignore: Sequence[str], error_types: Sequence[str]
    ):
        if not error_types:  # the mapping tells grammatical edits by their category
            raise params_error(
                "an M2 learner corpus needs categories, but corpus.categories.learner is empty",
                hint="list the categories of its grammatical edits in corpus.categories.learner",
            )
        problems = m2_mapping_problems(categories, ignore, error_types)
        if problems:  # a mapping given in code: params files are checked on load
            raise params_error(problems[0].text, hint=problems[0].hint)
        canonical = {t.strip().lower(): t for t in error_types}
        self.rules: dict[str, str] = {
            pattern: canonical[category.strip().lower()] for pattern, category in categories.items()
        }
        self.rules.update(dict.fromkeys(ignore, IGNORED))
        self._patterns = sorted(self.rules, key=lambda p: (-_literal(p), p))
        self._cache: dict[str, str | None] = {}

    def classify(self, kind: str) -> str | None:
        if kind not in self._cache:
            if kind in self.rules:
                found: str | None = self.rules[kind]
            else:
                match = next((p for p in self._patterns if fnmatchcase(kind, p)), None)
                found = None if match is None else self.rules[match]
            self._cache[kind] = found
        return self._cache[kind]


def apply_edits(tokens: Sequence[str], edits: Iterable[Edit]) -> list[str]:
    """``tokens`` with ``edits`` applied (non-overlapping; see :func:`overlap`): each span
    replaced by its correction, an insertion before a replacement at the same point, two
    insertions at one point in the order given."""
    out: list[str] = []
    position = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        out += tokens[position : edit.start]
        out += edit.correction
        position = max(position, edit.end)
    out += tokens[position:]
    return out


def overlap(edits: Sequence[Edit]) -> tuple[Edit, Edit] | None:
    """Two edits that cover the same tokens, if any (an insertion covers none)."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    for a, b in zip(ordered, ordered[1:], strict=False):
        if b.start < a.end:
            return a, b
    return None


class _Made(NamedTuple):
    """A row one annotator's correction gives, before the annotators' rows are merged."""

    text: str
    label: int
    lacking: list[Edit]  # the grammatical edits the text lacks (or, acceptable: has applied)
    single: bool = False  # made by ``single_edit_pairs``: one error alone


@dataclass
class _Row:
    """One text with one label: who gave it, and the grammatical edits it differs in."""

    annotators: list[str] = field(default_factory=list)
    categories: Counter[str] = field(default_factory=Counter)
    edit_types: set[str] = field(default_factory=set)
    single: bool = True  # only ever made as a single-edit row (counted apart in the report)


class MinimalPairs:
    """The rows of M2 sentences under one run's ``extract.m2`` settings; counts for the
    report."""

    def __init__(self, settings: ExtractM2, error_types: Sequence[str]):
        """``error_types``: the learner rows' categories (``corpus.categories.learner``)."""
        self.types = EditTypes(settings.categories, settings.ignore, error_types)
        self.order = {name: i for i, name in enumerate(error_types)}  # breaks ties
        self.reject_unknown = settings.unknown_type == "reject"
        self.single_edit_pairs = settings.single_edit_pairs
        self.counts: Counter[str] = Counter()
        self.edit_types: Counter[str] = Counter()
        self.categories: Counter[str] = Counter()
        self.error_types: Counter[str] = Counter()

    # --- one sentence --------------------------------------------------------------

    def _unknown(self, sentence: M2Sentence) -> list[Edit]:
        edits = [e for mine in sentence.edits.values() for e in mine]
        unknown = [e for e in edits if self.types.classify(e.type) is None]
        if unknown and not self.reject_unknown:
            raise RucolaError(
                f"unknown edit type '{unknown[0].type}'",
                sentence.path,
                unknown[0].line,
                hint="map it in extract.m2.categories or extract.m2.ignore, "
                "or set extract.m2.unknown_type: reject",
            )
        return unknown

    def _annotator_rows(self, tokens: Sequence[str], edits: Sequence[Edit]) -> list[_Made]:
        """The rows of one annotator's correction. A grammatical edit that leaves the printed
        text as it was (it rewrites a token as itself, or only moves spaces) makes no
        unacceptable row: the 'pair' would be one text with both labels."""
        grammatical = [e for e in edits if self.types.classify(e.type) != IGNORED]
        ignored = [e for e in edits if self.types.classify(e.type) == IGNORED]
        corrected = detokenize(apply_edits(tokens, edits))
        rows = [_Made(corrected, schema.ACCEPTABLE, grammatical)]
        if not grammatical:
            self.counts["ignored_only"] += bool(edits)
            return rows
        wrong = detokenize(apply_edits(tokens, ignored))
        if wrong == corrected:
            self.counts["grammar_unseen"] += 1
            return rows
        rows.append(_Made(wrong, schema.UNACCEPTABLE, grammatical))
        if self.single_edit_pairs and len(grammatical) > 1:
            for edit in grammatical:  # that error alone: every other edit applied
                alone = detokenize(apply_edits(tokens, [e for e in edits if e is not edit]))
                if alone != corrected:
                    rows.append(_Made(alone, schema.UNACCEPTABLE, [edit], single=True))
        return rows

    def _rows(self, sentence: M2Sentence) -> tuple[dict[tuple[str, int], _Row], list[str]]:
        """Every annotator's rows merged by (text, label), and the details of the
        annotators whose edits overlap (their rows are left out)."""
        rows: dict[tuple[str, int], _Row] = {}
        overlapping: list[str] = []
        for annotator, given in (sentence.edits or {"": ()}).items():  # no A line: correct
            edits = _distinct(given)
            self.counts["annotations"] += bool(sentence.edits)
            self.counts["unchanged"] += not edits
            for edit in edits:
                self.edit_types[edit.type] += 1
                self.categories[self.types.classify(edit.type) or ""] += 1
            clash = overlap(edits)
            if clash:
                overlapping.append(f"annotator {annotator}: lines {clash[0].line}, {clash[1].line}")
                continue
            for made in self._annotator_rows(sentence.tokens, edits):
                row = rows.setdefault((made.text, made.label), _Row())
                if annotator not in row.annotators:
                    row.annotators.append(annotator)
                row.edit_types.update(e.type for e in made.lacking)
                row.single = row.single and made.single
                if made.label == schema.UNACCEPTABLE:
                    row.categories.update(self.types.classify(e.type) for e in made.lacking)
        return rows, overlapping

    def examples(self, sentence: M2Sentence, source: str) -> list[RawExample]:
        """The rows (and the set-aside records) of one sentence, in a fixed order."""
        self.counts["sentences"] += 1

        def example(text: str, **fields: Any) -> RawExample:
            return RawExample(
                origin=sentence.origin,  # one origin: one split group for the pair
                raw=sentence.raw,
                text=text,
                mark="",  # no judgment mark to look for: the label is given
                error_type=fields.pop("error_type", None),
                source=source,
                domain=schema.LEARNER,
                expand=False,
                **fields,
            )

        original = detokenize(sentence.tokens)
        unknown = self._unknown(sentence)
        if unknown:
            kinds = ", ".join(sorted({e.type for e in unknown}))
            return [example(original, set_aside=UNKNOWN_EDIT_TYPE, set_aside_detail=kinds)]
        rows, overlapping = self._rows(sentence)
        labels = Counter(text for text, _ in rows)
        out: list[RawExample] = []
        for (text, label), row in rows.items():
            if labels[text] > 1:  # accepted by one annotator, corrected by another
                who = "accepted" if label == schema.ACCEPTABLE else "corrected"
                detail = f"{who} by annotator(s) {', '.join(row.annotators)}"
                out.append(example(text, set_aside=ANNOTATORS_DISAGREE, set_aside_detail=detail))
                continue
            error_type = None
            if label == schema.UNACCEPTABLE:
                error_type = self._category(row.categories)
                self.counts["pairs"] += 1
                self.counts["single_edit_pairs"] += row.single
                self.error_types[error_type] += 1
            provenance = {
                "annotators": [a for a in row.annotators if a],
                "edit_types": sorted(row.edit_types),
            }
            out.append(example(text, error_type=error_type, label=label, provenance=provenance))
        out += [
            example(original, set_aside=OVERLAPPING_EDITS, set_aside_detail=detail)
            for detail in overlapping
        ]
        return out

    def _category(self, categories: Counter[str]) -> str:
        """The most frequent category; a tie goes to the earlier of ``error_types``."""
        top = max(categories.values())
        tied = sorted((c for c, n in categories.items() if n == top), key=self.order.__getitem__)
        self.counts["error_type_ties"] += len(tied) > 1
        return tied[0]

    def report(self) -> dict[str, Any]:
        """What the extract report says of the learner corpora read in this run."""
        return {
            **{k: self.counts[k] for k in _REPORTED},
            "error_types": dict(sorted(self.error_types.items())),
            "edits_by_category": dict(sorted(self.categories.items())),
            "edits_by_type": dict(sorted(self.edit_types.items())),
        }


def _distinct(edits: Iterable[Edit]) -> tuple[Edit, ...]:
    """The same edit written twice (another line, same span, type and correction) once."""
    seen: dict[tuple[int, int, str, tuple[str, ...]], Edit] = {}
    for edit in edits:
        seen.setdefault((edit.start, edit.end, edit.type, edit.correction), edit)
    return tuple(seen.values())


def read_pairs(path: Path, source: str, pairs: MinimalPairs, encoding: str) -> Iterator[RawExample]:
    """An M2 file's rows under ``pairs``."""
    for sentence in read_m2(path, encoding):
        yield from pairs.examples(sentence, source)
