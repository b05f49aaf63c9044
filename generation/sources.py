"""Reading out-of-domain source corpora (``generate.sources``) into one list of sentences.

Four layouts: a parallel TSV with ``en`` and ``ru`` columns, line-aligned file pairs
(``X.rus`` + ``X.eng`` or ``X.ru`` + ``X.en``), Tatoeba-Challenge rows
(``eng<TAB>rus<TAB>en text<TAB>ru text``) and plain text, one sentence (or, with
``split_sentences``, one document) per line. Each source's id becomes ``detailed_source``.
Sampling is seeded per source, so every generator that reads a source sees the same
sentences, and the sample keeps the file's order.

Every line read is used or skipped with a counted reason: ``empty``, ``duplicate``,
``not_sampled``, and ``control_character`` / ``non_printing_character`` for a sentence that
holds a character no sentence may hold (NUL, BEL, a bidi override ...; see
``corpus.normalize``), as the extract stage sets such rows aside.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import get_args

import numpy as np
import razdel

from rucola.corpus.dedup import sentence_key
from rucola.corpus.normalize import normalize_text, text_fault
from rucola.errors import RucolaError, check_header
from rucola.io import stable_hash
from rucola.registry import LANGUAGES
from rucola.settings import GenerationSource, SourceFormat

LANG_CODES = {"eng": "en", "rus": "ru", "en": "en", "ru": "ru", "deu": "de", "fra": "fr"}


@dataclass(frozen=True)
class SourceSentence:
    """One source sentence: its texts by language and where it came from."""

    source: str
    texts: dict[str, str]
    origin: str


@dataclass(frozen=True)
class Skipped:
    """A source sentence that is not used: why, and the text as read."""

    row: SourceSentence
    reason: str
    raw: str
    detail: str | None = None  # a duplicate: the origin of the sentence it repeats


@dataclass
class SourceRead:
    """The sentences used (in file order), how many were read, and every one skipped:
    ``read == len(sentences) + sum(skipped.values())``."""

    sentences: list[SourceSentence]
    read: int
    skipped: dict[str, int]
    skipped_rows: list[Skipped] = field(default_factory=list)


def _format_from_path(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix in {".rus", ".eng", ".ru", ".en"} or not path.suffix:
        return "pairs"
    if suffix in {".tsv", ".csv"}:
        return "tsv"
    return "text"


def _read_lines(path: Path, encoding: str, source_id: str) -> list[str]:
    """The file's lines, split at line feeds only (after CRLF and CR became LF).

    ``str.splitlines`` would also split at U+2028, U+0085, form feed and other characters
    inside a line, which misaligns a line-aligned pair and hides the character.
    """
    if not path.is_file():
        raise RucolaError(f"source '{source_id}': file not found", path)
    try:
        lines = path.read_text(encoding=encoding).split("\n")
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[: exc.start].count(b"\n") + 1
        raise RucolaError(f"source '{source_id}': not valid {encoding}", path, line) from exc
    return lines[:-1] if lines[-1] == "" else lines


def _read_tsv(path: Path, s: GenerationSource, source_id: str) -> tuple[list[SourceSentence], int]:
    if not path.is_file():
        raise RucolaError(f"source '{source_id}': file not found", path)
    delimiter = "," if path.suffix.lower() == ".csv" else "\t"
    out: list[SourceSentence] = []
    with open(path, encoding=s.encoding, newline="") as handle:
        reader = csv.DictReader(handle, delimiter=delimiter)
        header = reader.fieldnames = check_header(list(reader.fieldnames or []), path)
        for lang, column in s.columns.items():
            if column not in header:
                raise RucolaError(
                    f"source '{source_id}': missing column '{column}' ({lang})",
                    path,
                    1,
                    hint=f"columns found: {', '.join(header) or 'none'}",
                )
        read = 0
        for row in reader:
            read += 1
            texts = {lang: (row.get(col) or "") for lang, col in s.columns.items()}
            out.append(SourceSentence(source_id, texts, f"{path}:{reader.line_num}"))
    return out, read


def _pair_files(path: Path, source_id: str) -> tuple[Path, Path]:
    stem = path.with_suffix("") if path.suffix.lower() in {".rus", ".eng", ".ru", ".en"} else path
    for ru_ext, en_ext in ((".rus", ".eng"), (".ru", ".en")):
        ru, en = Path(f"{stem}{ru_ext}"), Path(f"{stem}{en_ext}")
        if ru.is_file() or en.is_file():
            missing = [p for p in (ru, en) if not p.is_file()]
            if missing:
                raise RucolaError(f"source '{source_id}': the other side is missing", missing[0])
            return ru, en
    raise RucolaError(
        f"source '{source_id}': no line-aligned pair found",
        path,
        hint="expected X.rus + X.eng or X.ru + X.en",
    )


def _read_pairs(
    path: Path, s: GenerationSource, source_id: str
) -> tuple[list[SourceSentence], int]:
    ru_path, en_path = _pair_files(path, source_id)
    ru_lines = _read_lines(ru_path, s.encoding, source_id)
    en_lines = _read_lines(en_path, s.encoding, source_id)
    if len(ru_lines) != len(en_lines):
        raise RucolaError(
            f"source '{source_id}': misaligned pair: {len(ru_lines)} lines here but "
            f"{len(en_lines)} in {en_path}",
            ru_path,
            min(len(ru_lines), len(en_lines)) + 1,
        )
    out = [
        SourceSentence(source_id, {"ru": ru, "en": en}, f"{ru_path}:{i}")
        for i, (ru, en) in enumerate(zip(ru_lines, en_lines, strict=True), start=1)
    ]
    return out, len(out)


def _read_tatoeba(
    path: Path, s: GenerationSource, source_id: str
) -> tuple[list[SourceSentence], int]:
    out: list[SourceSentence] = []
    lines = _read_lines(path, s.encoding, source_id)
    for i, line in enumerate(lines, start=1):
        if not line.strip():
            out.append(SourceSentence(source_id, {}, f"{path}:{i}"))
            continue
        cells = line.split("\t")
        if len(cells) != 4:
            raise RucolaError(
                f"source '{source_id}': expected 4 tab-separated cells "
                f"(lang, lang, text, text), found {len(cells)}",
                path,
                i,
            )
        texts = {}
        for code, text in ((cells[0], cells[2]), (cells[1], cells[3])):
            texts[LANG_CODES.get(code.strip(), code.strip())] = text
        out.append(SourceSentence(source_id, texts, f"{path}:{i}"))
    return out, len(lines)


def _read_text(path: Path, s: GenerationSource, source_id: str) -> tuple[list[SourceSentence], int]:
    lang = s.lang
    out: list[SourceSentence] = []
    lines = _read_lines(path, s.encoding, source_id)
    for i, line in enumerate(lines, start=1):
        origin = f"{path}:{i}"
        if s.split_sentences and line.strip():
            out.extend(
                SourceSentence(source_id, {lang: sub.text}, origin)
                for sub in razdel.sentenize(line)
            )
        else:
            out.append(SourceSentence(source_id, {lang: line}, origin))
    return out, len(lines)


# One reader per format the schema allows (``SourceFormat``): a format without a reader
# fails at import, not in the middle of a run.
_READERS = {"tsv": _read_tsv, "pairs": _read_pairs, "tatoeba": _read_tatoeba, "text": _read_text}
READERS = {name: _READERS[name] for name in get_args(SourceFormat)}


def _key(text: str, language: str) -> str:
    """The same sentence in ``language``: ``sentence_key`` where rucola has its profile,
    else the normalised text (no script to repair look-alikes toward)."""
    return sentence_key(text, language) if language in LANGUAGES else text


def read_source(source_id: str, source: GenerationSource, seed: int, need_lang: str) -> SourceRead:
    """Read, clean and sample one source; ``need_lang`` is the side the generator reads.

    Each side's text is checked, normalised and keyed as the language it is in (a
    translation pair's English side as English, its Russian side as Russian)."""
    path = Path(source.path)
    rows, _lines = READERS[source.format or _format_from_path(path)](path, source, source_id)
    skipped: list[Skipped] = []
    kept: list[SourceSentence] = []
    seen: dict[str, str] = {}  # sentence key -> origin of its first occurrence
    has_lang = False
    for row in rows:
        if need_lang in row.texts:
            has_lang = True
        raw_text = row.texts.get(need_lang, "") or ""
        fault = text_fault(raw_text, need_lang)
        if fault is not None:
            skipped.append(Skipped(row, fault[0], raw_text, fault[1]))
            continue
        text = normalize_text(raw_text, need_lang)
        if not text:
            skipped.append(Skipped(row, "empty", raw_text))
            continue
        key = _key(text, need_lang)
        if key in seen:
            skipped.append(Skipped(row, "duplicate", raw_text, f"of {seen[key]}"))
            continue
        seen[key] = row.origin
        texts = {lang: normalize_text(t or "", lang) for lang, t in row.texts.items()}
        kept.append(SourceSentence(row.source, texts, row.origin))
    if rows and not has_lang:
        raise RucolaError(
            f"source '{source_id}' has no '{need_lang}' side, which the generator reads", path
        )
    if not kept:
        raise RucolaError(f"source '{source_id}' has no sentences", path)
    n = source.n
    if n is not None and n < len(kept):
        rng = np.random.default_rng([seed, int(stable_hash(source_id, length=8), 16)])
        chosen = set(np.sort(rng.choice(len(kept), size=int(n), replace=False)).tolist())
        skipped += [
            Skipped(row, "not_sampled", row.texts[need_lang])
            for i, row in enumerate(kept)
            if i not in chosen
        ]
        kept = [row for i, row in enumerate(kept) if i in chosen]
    counts: dict[str, int] = {}
    for entry in skipped:
        counts[entry.reason] = counts.get(entry.reason, 0) + 1
    # read: the sentences the reader gave (lines; with split_sentences, the sentences of
    # every line), so that read = used + skipped
    return SourceRead(kept, len(rows), counts, skipped)
