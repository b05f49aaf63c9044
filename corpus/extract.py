"""The extract stage: sources -> labelled, de-duplicated in-domain (and learner) rows.

Every example read ends up either in the output or in the set-aside file with a reason, and
the report's counts add up (``read == kept + sum(set_aside)``; alternation variants count
as rows; see ``rucola.stage``). A sentence holding a control or other non-printing character
(NUL, BEL, a bidi override, private use ...; see ``corpus.normalize``) is set aside as
``control_character`` or ``non_printing_character`` with the code points in ``detail``, also
when the text is kept as read (``extract.normalize: false``): such a character is never part
of a sentence.

Reasons a row is set aside: ``control_character``, ``non_printing_character``, ``empty``,
``unknown_mark`` (with ``extract.unknown_mark: reject``), ``excluded_mark``,
``error_type_on_acceptable`` (a category given on the row itself while no variant of the
example is unacceptable: ``!!`` is no judgment mark, so ``!!Мальчик читают книгу.`` with
``Morphology`` would otherwise become an acceptable row and lose its category without a
word; a list's ``# error_type:`` directive names the category of its section's unacceptable
examples and is no contradiction on an acceptable one), ``artefact:<kind>`` (with
``extract.artefacts: reject``), ``duplicate`` and ``conflicting_labels``; from M2 learner
corpora also ``annotators_disagree``, ``overlapping_edits`` and ``unknown_edit_type``
(``corpus.learner``, which turns a sentence's edits into minimal pairs). A source file
that yields no example at all (a header-only sheet, a list of comments) is an error.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from rucola.corpus import schema
from rucola.corpus.alternations import expand
from rucola.corpus.artefacts import detect
from rucola.corpus.dedup import sentence_key
from rucola.corpus.homoglyphs import fix_homoglyphs
from rucola.corpus.learner import MinimalPairs, read_pairs
from rucola.corpus.marks import ACCEPTABLE, EXCLUDE, UNACCEPTABLE, MarkMap, split_leading_mark
from rucola.corpus.normalize import normalize_text, repaired_characters, text_fault
from rucola.corpus.sources import RawExample, read_source, source_files
from rucola.errors import RucolaError
from rucola.io import stable_hash
from rucola.stage import StageRun

ERROR_TYPE_ON_ACCEPTABLE = "error_type_on_acceptable"


@dataclass
class _Collector:
    rows: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    lines_read: int = 0
    variants_added: int = 0
    homoglyph_fixes: list[dict[str, Any]] = field(default_factory=list)
    normalised: list[str] = field(default_factory=list)
    repaired: Counter[str] = field(default_factory=Counter)  # characters dropped or spaced
    artefacts: list[dict[str, Any]] = field(default_factory=list)

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


def _where(origin: str) -> tuple[str, int | None]:
    path, _, line = origin.rpartition(":")
    return (path, int(line)) if line.isdigit() else (origin, None)


class Extractor:
    """Interprets marks, expands alternations and validates categories for one run."""

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params
        try:
            self.marks = MarkMap.from_params(params["marks"])
        except ValueError as exc:
            raise RucolaError(str(exc), "params.yaml") from None
        self.unknown_mark = params["unknown_mark"]
        self.require_error_type = bool(params["require_error_type"])
        self.expand_alternations = bool(params["expand_alternations"])
        self.error_types = {t.lower(): t for t in params["error_types"]}
        self.fix_homoglyphs = bool(params["fix_homoglyphs"])
        if params["artefacts"] not in {"reject", "keep"}:
            raise RucolaError(
                f"extract.artefacts must be 'reject' or 'keep', not '{params['artefacts']}'",
                "params.yaml",
            )
        self.keep_artefacts = params["artefacts"] == "keep"
        # false: the text is kept exactly as read (rebuilding a published release as it is)
        self.normalize = bool(params.get("normalize", True))

    def _error_type(self, example: RawExample) -> str | None:
        if example.error_type is None:
            return None
        allowed = dict(self.error_types)
        if example.domain == schema.OUT_OF_DOMAIN:
            allowed["hallucination"] = "Hallucination"
        canonical = allowed.get(example.error_type.strip().lower())
        if canonical is None:
            raise RucolaError(
                f"invalid error_type '{example.error_type}'",
                *_where(example.origin),
                hint=f"use one of {', '.join(sorted(allowed.values()))}",
            )
        return canonical

    def _verdict(self, example: RawExample, mark: str) -> str | None:
        verdict = self.marks.verdict(mark)
        if verdict is None and self.unknown_mark != "reject":
            raise RucolaError(
                f"unknown judgment mark '{mark}'",
                *_where(example.origin),
                hint="add it to extract.marks, or set extract.unknown_mark: reject",
            )
        return verdict

    def _judge(self, example: RawExample, mark: str) -> int | str:
        """The label of one variant, or the reason it is set aside."""
        if example.label is not None:
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

    def add(self, example: RawExample, out: _Collector) -> None:
        out.lines_read += 1
        if example.set_aside is not None:  # the reader's verdict (annotators disagree ...)
            out.reject(example, example.set_aside, example.text, example.set_aside_detail)
            return
        fault = text_fault(example.text)
        if fault is not None:  # before anything reads the text: no mark, no normalisation
            out.reject(example, fault[0], example.text, fault[1])
            return
        if example.mark is None:
            mark, text = split_leading_mark(example.text)
        else:
            mark, text = example.mark.strip(), example.text
        corrections: list[str] = []
        if self.normalize:
            normalised = normalize_text(text)
            if normalised != text.strip():  # Unicode form, invisible characters or spacing
                out.normalised.append(example.origin)
                out.repaired.update(repaired_characters(text))
                corrections.append("normalised")
            text = normalised
        if not text.strip():
            out.reject(example, "empty", mark=mark)
            return
        if self.fix_homoglyphs:
            text, changes = fix_homoglyphs(text)
            if changes:
                words = [f"{before}->{after}" for before, after in changes]
                out.homoglyph_fixes.append({"origin": example.origin, "words": words})
                corrections.append("homoglyphs: " + ", ".join(words))
        error_type = self._error_type(example)
        variants = None
        if example.expand and self.expand_alternations:
            variants = expand(text)
        pairs = [(text, "")] if variants is None else [(v.text, v.mark) for v in variants]
        out.variants_added += len(pairs) - 1
        judged = [(sentence, own or mark) for sentence, own in pairs]
        labels = [self._judge(example, variant_mark) for _, variant_mark in judged]
        # A category on the row itself needs an unacceptable variant to belong to (also an
        # alternation left unexpanded: the printed example holds its starred variant).
        contradicted = (
            error_type is not None
            and not example.error_type_from_section
            and schema.UNACCEPTABLE not in labels
            and not (variants is None and self._starred_inside(text, mark))
        )
        group = "g" + stable_hash(example.origin)
        for (sentence, variant_mark), label in zip(judged, labels, strict=True):
            if isinstance(label, str):
                out.reject(example, label, sentence, variant_mark, variant_mark)
                continue
            if not sentence:
                out.reject(example, "empty", mark=variant_mark, label=label)
                continue
            if contradicted and label == schema.ACCEPTABLE:
                out.reject(
                    example, ERROR_TYPE_ON_ACCEPTABLE, sentence, error_type, variant_mark, label
                )
                continue
            kinds = detect(sentence)
            if kinds:
                out.artefacts.append(
                    {
                        "origin": example.origin,
                        "kinds": kinds,
                        "sentence": sentence,
                        "action": "kept" if self.keep_artefacts else "set_aside",
                    }
                )
                if not self.keep_artefacts:
                    out.reject(
                        example,
                        f"artefact:{kinds[0]}",
                        sentence,
                        ",".join(kinds),
                        variant_mark,
                        label,
                    )
                    continue
            if label == schema.UNACCEPTABLE and error_type is None and self.require_error_type:
                raise RucolaError(
                    "unacceptable example without error_type",
                    *_where(example.origin),
                    hint="give error_type (Morphology, Syntax, Semantics) or "
                    "set extract.require_error_type: false",
                )
            out.rows.append(
                {
                    "sentence": sentence,
                    "label": label,
                    "error_type": error_type if label == schema.UNACCEPTABLE else None,
                    "domain": example.domain,
                    "detailed_source": example.source,
                    "mark": variant_mark,
                    "group": group,
                    "origin": example.origin,
                    "provenance": json.dumps(
                        example.provenance, ensure_ascii=False, sort_keys=True
                    ),
                    "artefacts": ",".join(kinds) or None,
                    "published_id": example.published_id,
                    "published_split": example.published_split,
                    "corrections": "; ".join(corrections) or None,
                    "_raw": example.raw,
                }
            )


def _learner_rows(
    file: Path, source: dict[str, Any], pairs: MinimalPairs, encoding: str
) -> Iterator[RawExample]:
    """An M2 file's minimal pairs; their domain is ``learner``, whatever else is asked."""
    domain = source.get("domain")
    if domain not in (None, schema.LEARNER):
        raise RucolaError(
            f"an M2 source gives learner rows, not {domain}",
            file,
            hint="leave out 'domain' for an m2 source, or give 'learner'",
        )
    return read_pairs(file, source.get("source") or file.stem, pairs, encoding)


def _deduplicate(collector: _Collector, on_conflict: str) -> list[dict[str, Any]]:
    """Keep the first of identical rows; set aside every row of a conflicting sentence.

    Identical means the same sentence (``corpus.dedup.sentence_key``): punctuation and case
    count, so a question and a statement are two sentences. An unlabelled published test
    row conflicts with no label.
    """
    by_sentence: dict[str, list[dict[str, Any]]] = defaultdict(list)
    keys = [sentence_key(row["sentence"]) for row in collector.rows]
    for key, row in zip(keys, collector.rows, strict=True):
        by_sentence[key].append(row)
    kept: list[dict[str, Any]] = []
    for key, row in zip(keys, collector.rows, strict=True):
        same = by_sentence[key]
        labels = {r["label"] for r in same} - {schema.UNLABELLED}
        if len(labels) > 1:
            if on_conflict == "error":
                origins = ", ".join(r["origin"] for r in same)
                raise RucolaError(
                    f"'{row['sentence']}' has conflicting labels at {origins}",
                    *_where(same[0]["origin"]),
                    hint="fix one of them, or set extract.on_conflict: reject",
                )
            others = ", ".join(r["origin"] for r in same if r is not row)
            collector.rejected.append(_rejected(row, "conflicting_labels", others))
        elif row is not same[0]:
            collector.rejected.append(_rejected(row, "duplicate", same[0]["origin"]))
        else:
            kept.append(row)
    return kept


def _rejected(row: dict[str, Any], reason: str, detail: str | None) -> dict[str, Any]:
    """A kept row set aside after all: its columns of the set-aside schema."""
    record = {name: row.get(name) for name in schema.SET_ASIDE_SCHEMA.names}
    return record | {"raw": row["_raw"], "reason": reason, "detail": detail}


def source_statistics(frame: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Per source: sentences, share acceptable, share of each violation category.

    These are the columns of the RuCoLA paper's Table 2 and Figure 1.
    """
    stats: dict[str, dict[str, Any]] = {}
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
    sources: list[dict[str, Any]],
    params: dict[str, Any],
    out: str | Path,
    rejected: str | Path,
    report: str | Path,
) -> dict[str, Any]:
    """Run the stage; returns the report that was written."""
    if not sources:
        raise RucolaError("no sources given", hint="set extract.sources or pass --sources")
    extractor = Extractor(params)
    pairs = MinimalPairs(params["m2"], params["error_types"])
    collector = _Collector()
    files_read: list[str] = []
    with StageRun(
        "extract",
        report=report,
        out=out,
        rejected=rejected,
        set_aside_schema=schema.SET_ASIDE_SCHEMA,
    ) as run:
        for source in sources:
            path = Path(source["path"])
            for file in source_files(path, source.get("type")):
                files_read.append(str(file))
                before = collector.lines_read
                examples = read_source(
                    file,
                    source.get("type"),
                    source,
                    params["encoding"],
                    m2_reader=lambda f, s=source: _learner_rows(f, s, pairs, params["encoding"]),
                )
                for example in examples:
                    extractor.add(example, collector)
                if collector.lines_read == before:
                    raise RucolaError(
                        "no examples: nothing in this source is a sentence",
                        file,
                        hint="a sheet needs rows under its header; in a list, '#' followed "
                        "by a space starts a comment",
                    )
        if params.get("deduplicate", True):
            kept = _deduplicate(collector, params["on_conflict"])
        else:  # a published release rebuilt as it is, repeats included
            kept = collector.rows
        frame = pd.DataFrame(kept, columns=[*schema.BASE_COLUMNS, "_raw"])
        frame = frame.drop(columns="_raw").astype({"label": "int64", "published_id": "Int64"})
        run.count_read(collector.lines_read + collector.variants_added)
        set_aside = pa.Table.from_pylist(collector.rejected, schema=schema.SET_ASIDE_SCHEMA)
        run.set_aside(
            set_aside,
            set_aside.column("reason").to_pylist(),
            set_aside.column("detail").to_pylist(),
        )
        labelled = frame["label"] != schema.UNLABELLED
        # M2 learner corpora: sentences read, pairs made, edits per category
        learner = {"learner": pairs.report()} if pairs.counts["sentences"] else {}
        summary = run.finish(
            frame,
            schema.BASE_SCHEMA,
            files=files_read,
            lines_read=collector.lines_read,
            variants_added=collector.variants_added,
            acceptable_share=round(float(frame.loc[labelled, "label"].mean()), 4)
            if labelled.any()
            else None,
            unlabelled=int((~labelled).sum()),
            per_source=source_statistics(frame),
            homoglyph_fixes={
                "rows": len(collector.homoglyph_fixes),
                "fixes": collector.homoglyph_fixes,
            },
            artefacts={"rows": len(collector.artefacts), "found": collector.artefacts},
            **learner,
            normalised={
                "rows": len(collector.normalised),
                "examples": collector.normalised[:100],
                # invisible characters dropped, separators and odd spaces turned into a space
                "characters": dict(sorted(collector.repaired.items())),
            },
        )
    return summary
