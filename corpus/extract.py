"""The extract stage: sources -> labelled, de-duplicated in-domain (and learner) rows.

Every example read ends up either in the output or in the set-aside file with a reason, and
the report's counts add up (``read == kept + sum(set_aside)``; alternation variants count
as rows; see ``rucola.stage``). A sentence holding a control or other non-printing character
(NUL, BEL, a bidi override, private use ...; see ``corpus.normalize``) is set aside as
``control_character`` or ``non_printing_character`` with the code points in ``detail``, also
when the text is kept as read (``extract.normalize: false``): such a character is never part
of a sentence.

Reasons a row is set aside, in the order the rules of ``corpus.extract_rules`` apply them:
the reader's own (from M2 learner corpora ``annotators_disagree``, ``overlapping_edits``
and ``unknown_edit_type``: ``corpus.learner`` turns a sentence's edits into minimal
pairs; from labelled tables ``excluded_label``), ``control_character`` /
``non_printing_character``, ``mark_in_text`` (a judgment mark at the start of the text
other than the row's own: mark column ``*``, text ``?Foo``; both in ``detail``; a copy of
the row's own mark there is split off, a correction counted as ``repeated_marks``),
``empty``, ``unknown_mark`` (with ``extract.unknown_mark:
reject``), ``excluded_mark``, ``mark_contradicts_label`` (a published label and the mark
beside it disagree; the mark in ``detail``), ``empty``,
``error_type_on_acceptable``, ``mark_in_text`` (an alternative whose text still starts
with a mark), ``artefact:<kind>`` (with ``extract.artefacts: reject``);
then, over all kept rows (``corpus.dedup.exact_duplicates``), ``duplicate`` and
``conflicting_labels``. A source file that yields no example at all (a header-only sheet,
a list of comments) is an error.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa

from rucola.corpus import schema
from rucola.corpus.alternations import expand
from rucola.corpus.dedup import exact_duplicates, sentence_key
from rucola.corpus.extract_rules import (
    MARK_CONTRADICTS_LABEL,
    Artefacts,
    EmptyText,
    MarkInText,
    Text,
    Variant,
    example_rules,
    variant_rules,
)
from rucola.corpus.homoglyphs import fix_homoglyphs
from rucola.corpus.marks import (
    ACCEPTABLE,
    EXCLUDE,
    UNACCEPTABLE,
    MarkMap,
    split_leading_mark,
    split_repeated_mark,
)
from rucola.corpus.normalize import normalize_text, repaired_characters
from rucola.corpus.row_store import Rows, Sample
from rucola.corpus.sources.readers import Readers, source_files
from rucola.corpus.sources.records import RawExample
from rucola.errors import RucolaError
from rucola.io import stable_hash, table_from_frame
from rucola.registry import LANGUAGES
from rucola.rules import first_reason
from rucola.stage import StageRun

if TYPE_CHECKING:
    from rucola.settings import Categories, Extract, ExtractSource


# the kept rows' columns, and the source line each came from
KEPT_SCHEMA = schema.BASE_SCHEMA.append(pa.field("_raw", pa.string()))


@dataclass
class _Collector:
    rows: Rows = field(default_factory=lambda: Rows(KEPT_SCHEMA))
    rejected: Rows = field(default_factory=lambda: Rows(schema.SET_ASIDE_SCHEMA))
    lines_read: int = 0
    variants_added: int = 0
    homoglyph_fixes: list[dict[str, Any]] = field(default_factory=list)
    repeated_marks: Sample = field(default_factory=Sample)  # mark split off twice
    normalised: Sample = field(default_factory=Sample)  # rows whose text normalising changed
    repaired: Counter[str] = field(default_factory=Counter)  # characters dropped or spaced

    def reject(
        self,
        example: RawExample,
        reason: str,
        sentence: str | None = None,
        detail: str | None = None,
        mark: str | None = None,
        label: int | None = None,
    ) -> None:
        """Set an example (or one variant of it) aside: the set-aside schema's columns."""
        self.rejected.append(
            {
                "origin": example.origin,
                "raw": example.raw,
                "reason": reason,
                "detail": detail,
                "sentence": sentence,
                "label": label,
                "error_type": example.error_type,
                "domain": example.domain,
                "detailed_source": example.source,
                "mark": mark,
                "published_id": example.published_id,
                "published_split": example.published_split,
            }
        )

    def keep(
        self,
        variant: Variant,
        label: int | None,
        group: str,
        corrections: list[str],
        required: Sequence[str] | None,
    ) -> None:
        """A variant every rule kept: a row of the base schema (its source line aside, in
        case de-duplication sets it aside after all). ``required``: the categories its
        domain allows when an unacceptable row needs one (``extract.require_error_type``)."""
        example, error_type = variant.example, variant.error_type
        if label == schema.UNACCEPTABLE and error_type is None and required is not None:
            raise RucolaError(
                "unacceptable example without error_type",
                *_where(example.origin),
                hint=f"give error_type ({', '.join(required)}) or "
                "set extract.require_error_type: false",
            )
        self.rows.append(
            {
                "sentence": variant.sentence,
                "label": label,
                "error_type": error_type if label == schema.UNACCEPTABLE else None,
                "domain": example.domain,
                "detailed_source": example.source,
                "mark": variant.mark,
                "group": group,
                "origin": example.origin,
                "provenance": json.dumps(example.provenance, ensure_ascii=False, sort_keys=True)
                if example.provenance
                else "{}",  # most rows: json.dumps costs a microsecond a row
                "artefacts": ",".join(variant.artefacts) or None,
                "published_id": example.published_id,
                "published_split": example.published_split,
                "corrections": "; ".join(corrections) or None,
                "_raw": example.raw,
            }
        )


def _where(origin: str) -> tuple[str, int | None]:
    path, _, line = origin.rpartition(":")
    return (path, int(line)) if line.isdigit() else (origin, None)


class Extractor:
    """Interprets marks, expands alternations and validates categories for one run; the
    keep-or-reason checks are the ordered rules of ``corpus.extract_rules``."""

    def __init__(self, settings: Extract, categories: Categories, language: str = "ru") -> None:
        self.settings = settings
        self.categories = categories
        # an unknown code is one line here, before any row; its profile says which format
        # characters are text and toward which script homoglyphs are repaired
        self.language = LANGUAGES[language].name
        self.marks = MarkMap.from_params(settings.marks)
        self.example_rules = example_rules(language)
        self.text_rules = [MarkInText(), EmptyText()]
        self.variant_rules = variant_rules(keep_artefacts=settings.artefacts == "keep")

    @property
    def artefacts(self) -> list[dict[str, Any]]:
        """Every variant with extraction artefacts, kept or set aside (for the report)."""
        return next(r.found for r in self.variant_rules if isinstance(r, Artefacts))

    def allowed(self, domain: str | None) -> list[str]:
        """The categories a row of ``domain`` may have (``corpus.categories``); a row
        without a domain (an unlabelled published test row), those every domain allows."""
        if domain is None:
            lists = [self.categories.of(d) for d in schema.DOMAINS]
            return [c for c in lists[0] if all(c in other for other in lists[1:])]
        return list(self.categories.of(domain))

    def _error_type(self, example: RawExample) -> str | None:
        if example.error_type is None:
            return None
        allowed = {t.lower(): t for t in self.allowed(example.domain)}
        canonical = allowed.get(example.error_type.strip().lower())
        if canonical is None:
            hint = (
                f"use one of {', '.join(sorted(allowed.values()))}"
                if allowed
                else f"corpus.categories declares none for {example.domain or 'this row'}: "
                "leave error_type empty, or list the corpus's categories there"
            )
            raise RucolaError(
                f"invalid error_type '{example.error_type}'", *_where(example.origin), hint=hint
            )
        return canonical

    def _verdict(self, example: RawExample, mark: str) -> str | None:
        verdict = self.marks.verdict(mark)
        if verdict is None and self.settings.unknown_mark != "reject":
            raise RucolaError(
                f"unknown judgment mark '{mark}'",
                *_where(example.origin),
                hint="add it to extract.marks, or set extract.unknown_mark: reject",
            )
        return verdict

    def _judge(self, example: RawExample, mark: str) -> int | str:
        """The label of one variant, or the reason it is set aside. A published label
        decides; a mark beside it (a labelled table's mark column, or a mark in front of
        the text) is checked: one whose verdict is the other label sets the row aside
        (``mark_contradicts_label``); an excluded mark does not (the publisher judged it)."""
        if example.label is not None:
            if example.label != schema.UNLABELLED and (example.checks_mark or mark):
                verdict = self._verdict(example, mark)
                if verdict is None:
                    return "unknown_mark"
                if verdict in (ACCEPTABLE, UNACCEPTABLE) and (verdict == ACCEPTABLE) != (
                    example.label == schema.ACCEPTABLE
                ):
                    return MARK_CONTRADICTS_LABEL
            return example.label
        verdict = self._verdict(example, mark)
        if verdict is None:
            return "unknown_mark"
        if verdict == EXCLUDE:
            return "excluded_mark"
        return schema.ACCEPTABLE if verdict == ACCEPTABLE else schema.UNACCEPTABLE

    def _starred_inside(self, text: str, mark: str) -> bool:
        """Whether an alternation in ``text`` (not expanded) offers an unacceptable variant."""
        variants = expand(text)
        return variants is not None and any(
            self.marks.verdict(v.mark or mark) == UNACCEPTABLE for v in variants
        )

    def _text(self, example: RawExample, out: _Collector, corrections: list[str]) -> Text:
        """The example's mark and text, the text normalised (unless kept as read). A copy of
        the mark at the start of the text (``?*`` in the mark column, ``?*Lesið ...`` in the
        text) is split off and recorded; another mark there is for ``MarkInText``."""
        if example.mark is None:
            mark, text = split_leading_mark(example.text)
        else:
            mark, text = example.mark.strip(), example.text
        if self.settings.normalize:
            normalised = normalize_text(text, self.language)
            # Unicode form, invisible characters, directional marks or spacing
            if normalised != text.strip():
                out.normalised.append(example.origin)
                out.repaired.update(repaired_characters(text, self.language))
                corrections.append("normalised")
            text = normalised
            if example.mark is None and not mark:  # a mark behind an invisible character
                mark, text = split_leading_mark(text)
        text, repeats, other = split_repeated_mark(mark, text)
        if repeats:
            out.repeated_marks.append(example.origin)
            corrections.append("repeated mark split off")
        return Text(example, text, mark, other)

    def _variants(self, item: Text, out: _Collector, corrections: list[str]) -> list[Variant]:
        """The sentences the example gives, each with its label (or the mark's reason)."""
        example, text, mark = item.example, item.text, item.mark
        if self.settings.fix_homoglyphs:
            text, changes = fix_homoglyphs(text, self.language)
            if changes:
                words = [f"{before}->{after}" for before, after in changes]
                out.homoglyph_fixes.append({"origin": example.origin, "words": words})
                corrections.append("homoglyphs: " + ", ".join(words))
        error_type = self._error_type(example)
        expanded = None
        if example.expand and self.settings.expand_alternations:
            expanded = expand(text)
        pairs = [(text, "")] if expanded is None else [(v.text, v.mark) for v in expanded]
        out.variants_added += len(pairs) - 1
        judged = [(sentence, own or mark) for sentence, own in pairs]
        labels = [self._judge(example, variant_mark) for _, variant_mark in judged]
        # A category on the row itself needs an unacceptable variant to belong to (also an
        # alternation left unexpanded: the printed example holds its starred variant).
        contradicted = (
            error_type is not None
            and not example.error_type_from_section
            and schema.UNACCEPTABLE not in labels
            and not (expanded is None and self._starred_inside(text, mark))
        )
        return [
            Variant(example, sentence, variant_mark, label, error_type, contradicted)
            for (sentence, variant_mark), label in zip(judged, labels, strict=True)
        ]

    def add(self, example: RawExample, out: _Collector) -> None:
        """Keep the example's variants or set them aside, each by the first rule that
        names a reason (``corpus.extract_rules``, in order)."""
        out.lines_read += 1
        found = first_reason(example, self.example_rules)
        if found is not None:  # before anything reads the text: no mark, no normalisation
            out.reject(example, found[1].reason, example.text, found[1].detail)
            return
        corrections: list[str] = []
        text = self._text(example, out, corrections)
        found = first_reason(text, self.text_rules)
        if found is not None:
            out.reject(example, found[1].reason, detail=found[1].detail, mark=text.mark)
            return
        group = "g" + stable_hash(example.origin)
        for variant in self._variants(text, out, corrections):
            # a published label set aside with its mark's reason keeps its label in the side file
            label = variant.label if isinstance(variant.label, int) else example.label
            found = first_reason(variant, self.variant_rules)
            if found is not None:
                rule, reason = found
                sentence = variant.sentence if rule.records_text else None
                out.reject(example, reason.reason, sentence, reason.detail, variant.mark, label)
                continue
            # a category is asked for only where the corpus declares some for the domain
            allowed = self.allowed(example.domain)
            required = allowed if self.settings.require_error_type and allowed else None
            out.keep(variant, label, group, corrections, required)


# Which of identical rows is kept: a train row's, then a validation row's, then a test
# row's, then one of no published split (docs/pipeline.md, "Duplicates": a repeat of a
# train row is set aside).
SPLIT_PREFERENCE = {"train": 0, "validation": 1, "test": 2, None: 3}


def _deduplicate(
    rows: Rows, on_conflict: str, language: str = "ru"
) -> tuple[np.ndarray | None, pa.Table]:
    """Which rows are kept (None: all), and the rows set aside (set-aside schema).

    Of identical rows one is kept: the first of the most preferred published split
    (:data:`SPLIT_PREFERENCE`), whatever the order of the sources; every row of a
    conflicting sentence is set aside. Identical means the same sentence
    (``corpus.dedup.sentence_key``): punctuation and case count, so a question and a
    statement are two sentences. A published test row conflicts with no label, with or
    without its gold: its label is hidden, and a train row set aside because a test copy
    disagrees with it would publish that label (issue 32). It is a repeat like any other.
    """
    n = len(rows)
    # A number per row, the same for the same key (Python's hash of it): a million rows need
    # no million keys at once. Only rows whose number another row shares go through the
    # rule, on their keys: a hash collision makes a candidate, never a duplicate.
    sentences = rows.column("sentence")
    hashes = np.fromiter(
        (hash(sentence_key(s, language)) for chunk in sentences.chunks for s in chunk.to_pylist()),
        np.int64,
        n,
    )
    _, inverse, counts = np.unique(hashes, return_inverse=True, return_counts=True)
    repeated = np.flatnonzero(counts[inverse] > 1)
    del hashes, inverse, counts
    table = rows.table()
    taken = table.select(["sentence", "published_split", "label"]).take(repeated)
    split = taken.column("published_split").to_pylist()
    label = taken.column("label").to_pylist()
    order = np.argsort([SPLIT_PREFERENCE[s] for s in split], kind="stable").tolist()
    keys = [sentence_key(s, language) for s in taken.column("sentence").to_pylist()]
    first, conflicting = exact_duplicates(
        [keys[i] for i in order],
        [None if label[i] == schema.UNLABELLED or split[i] == "test" else label[i] for i in order],
    )
    ordered = repeated[order]
    root = np.arange(n)
    root[ordered] = ordered[first]
    conflict = np.zeros(n, bool)
    conflict[ordered] = conflicting
    aside = np.flatnonzero(conflict | (root != np.arange(n)))
    origin = table.column("origin")
    same: dict[int, list[int]] = defaultdict(list)
    for i in np.flatnonzero(conflict).tolist():
        same[int(root[i])].append(i)
    reasons: list[str] = []
    details: list[str] = []
    for i in aside.tolist():
        if conflict[i]:
            group = same[int(root[i])]
            if on_conflict == "error":
                origins = ", ".join(origin[j].as_py() for j in group)
                raise RucolaError(
                    f"'{sentences[i].as_py()}' has conflicting labels at {origins}",
                    *_where(origin[int(root[i])].as_py()),
                    hint="fix one of them, or set extract.on_conflict: reject",
                )
            reasons.append("conflicting_labels")
            details.append(", ".join(origin[j].as_py() for j in group if j != i))
        else:
            reasons.append("duplicate")
            details.append(origin[int(root[i])].as_py())
    repeats = _set_aside(table.take(aside), reasons, details)
    if not len(aside):
        return None, repeats
    keep = np.ones(n, bool)
    keep[aside] = False
    return keep, repeats


def _set_aside(rows: pa.Table, reasons: list[str], details: list[str]) -> pa.Table:
    """Kept rows set aside after all: the set-aside schema's columns, with their reasons."""
    columns = {
        "stage": pa.nulls(rows.num_rows, pa.string()),
        "reason": pa.array(reasons, pa.string()),
        "detail": pa.array(details, pa.string()),
        "raw": rows.column("_raw"),
    }
    return pa.table(
        [
            columns[f.name] if f.name in columns else rows.column(f.name)
            for f in schema.SET_ASIDE_SCHEMA
        ],
        schema=schema.SET_ASIDE_SCHEMA,
    )


def _kept(rows: Rows, keep: np.ndarray | None) -> tuple[pa.Table, pa.Schema]:
    """The rows ``keep`` marks (None: all) as the table the stage writes, built a column at
    a time, each column freed from ``rows`` as it goes, and its schema. The schema carries
    the pandas metadata earlier builds wrote (they wrote a frame of row dicts: a column of
    nulls only was ``object``, any other text column ``str``), so the Parquet file's bytes
    are theirs, without a frame of a million rows."""
    table = pa.table({f.name: rows.pop(f.name, keep) for f in schema.BASE_SCHEMA})
    rows.pop("_raw")
    dtypes = {
        f.name: "object"
        if pa.types.is_string(f.type) and table.column(f.name).null_count == table.num_rows
        else "str"
        if pa.types.is_string(f.type)
        else "int64"
        if f.name == "label"
        else "Int64"
        for f in schema.BASE_SCHEMA
    }
    first = {
        name: pd.Series(table.column(name).slice(0, 1).to_pylist(), dtype=dtype)
        for name, dtype in dtypes.items()
    }
    metadata = table_from_frame(pd.DataFrame(first), schema.BASE_SCHEMA).schema.metadata
    return table, schema.BASE_SCHEMA.with_metadata(metadata)


def source_statistics(frame: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Per source: sentences, share acceptable, share of each violation category.

    These are the columns of the RuCoLA paper's Table 2 and Figure 1.
    """
    stats: dict[str, dict[str, Any]] = {}
    frame = frame[["detailed_source", "label", "error_type"]]  # a group copies its columns
    for source, rows in frame.groupby("detailed_source", sort=True):
        unacceptable = rows[rows["label"] == schema.UNACCEPTABLE]
        categories = unacceptable["error_type"].value_counts()
        stats[str(source)] = {
            "sentences": int(len(rows)),
            "acceptable_share": round(float((rows["label"] == schema.ACCEPTABLE).mean()), 4),
            "error_type_shares": {
                str(k): round(float(v) / len(unacceptable), 4)
                for k, v in sorted(categories.items())
            },
        }
    return stats


def extract(
    settings: Extract,
    categories: Categories,
    sources: Sequence[ExtractSource] | None = None,
    language: str = "ru",
) -> dict[str, Any]:
    """Run the stage on ``sources`` (default: ``extract.sources``), writing
    ``extract.out``, ``extract.rejected`` and ``extract.report``; returns the report.
    ``categories``: ``corpus.categories``, what each domain's unacceptable rows may have;
    ``language``: ``corpus.language``, whose script homoglyphs are repaired toward and
    whose format characters normalisation keeps."""
    sources = settings.sources if sources is None else sources
    if not sources:
        raise RucolaError("no sources given", hint="set extract.sources or pass --sources")
    extractor = Extractor(settings, categories, language)
    readers = Readers(settings, categories)
    collector = _Collector()
    files_read: list[str] = []
    with StageRun(
        "extract",
        report=settings.report,
        private_report=settings.private_report,
        out=settings.out,
        rejected=settings.rejected,
        set_aside_schema=schema.SET_ASIDE_SCHEMA,
    ) as run:
        for source in sources:
            for file in source_files(Path(source.path), source.type):
                files_read.append(str(file))
                before = collector.lines_read
                for example in readers.read(file, source):
                    extractor.add(example, collector)
                if collector.lines_read == before:
                    raise RucolaError(
                        "no examples: nothing in this source is a sentence",
                        file,
                        hint="a sheet needs rows under its header; in a list, '#' followed "
                        "by a space starts a comment",
                    )
        keep, repeats = None, None
        if settings.deduplicate:
            keep, repeats = _deduplicate(collector.rows, settings.on_conflict, language)
        # else: a published release rebuilt as it is, repeats included
        table, kept_schema = _kept(collector.rows, keep)
        # what the private report counts (per source: labels and categories)
        frame = table.select(["detailed_source", "label", "error_type"]).to_pandas()
        rejected = collector.rejected
        set_aside = pa.table(
            [rejected.pop(name) for name in rejected.schema.names], schema=rejected.schema
        )
        if repeats is not None:
            set_aside = pa.concat_tables([set_aside, repeats]).combine_chunks()
        run.count_read(collector.lines_read + collector.variants_added)
        run.set_aside(
            set_aside,
            set_aside.column("reason").to_pylist(),
            set_aside.column("detail").to_pylist(),
        )
        labelled = frame["label"] != schema.UNLABELLED
        # Labels, sources and categories before the split count the rows that will be
        # test rows: private (``extract.private_report``); git tracks only the counts.
        private: dict[str, Any] = {
            "acceptable_share": round(float(frame.loc[labelled, "label"].mean()), 4)
            if labelled.any()
            else None,
            "per_source": source_statistics(frame),
        }
        # what the readers add (M2 learner corpora: pairs made, edits per category)
        private.update(readers.report())
        summary = run.finish(
            table,
            kept_schema,
            private=private,
            files=files_read,
            lines_read=collector.lines_read,
            variants_added=collector.variants_added,
            unlabelled=int((~labelled).sum()),
            homoglyph_fixes={
                "rows": len(collector.homoglyph_fixes),
                "fixes": collector.homoglyph_fixes,
            },
            artefacts={"rows": len(extractor.artefacts), "found": extractor.artefacts},
            # a mark in the mark column and again at the start of the text: split off
            repeated_marks={
                "rows": collector.repeated_marks.count,
                "examples": collector.repeated_marks.examples,
            },
            normalised={
                "rows": collector.normalised.count,
                "examples": collector.normalised.examples,
                # invisible characters dropped, separators and odd spaces turned into a space
                "characters": dict(sorted(collector.repaired.items())),
            },
        )
    return {**summary, **private}
