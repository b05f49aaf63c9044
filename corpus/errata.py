"""Errata: a maintainer's corrections of published rows, applied by the split stage.

A user reports a wrong label, a reviewer finds a typo: the published row is corrected in
the next version, keeps its id and split, and the release's diff names the erratum's reason.
The corrections live in CSV files (``extract.errata``; DVC-tracked, never committed to git:
they may name hidden test rows) with the columns ``split,domain,id,field,new,reason`` and
an optional ``old``:

- ``split``, ``domain`` and ``id`` name a row by the identity it was published under
  (``corpus.pin.id_scope``: the domain is part of it in train and validation, not in test);
  the row must carry a published identity in this build (``pinned_split``: kept by its own
  or matched by ``split.pin``). A row new in this build is fixed in its source instead.
- ``field``: ``label`` (``new`` 0 or 1), ``error_type`` (a category the row's domain
  allows, ``corpus.categories``; empty for none), ``sentence`` (the corrected text) or ``remove``
  (``new`` empty). ``reason`` is required; ``old``, when not empty, must equal the value the
  build holds (else "stale erratum").

Errata apply after ids and splits are settled (the pins matched the text as read), so a
corrected row keeps its place. Every change is recorded on the row (``review``: a JSON list
of ``field``, ``old``, ``new``, ``reason``, ``source``) and a removed row is set aside with
reason ``erratum``; the release's corrections ledger turns both into the diff's causes. A
label changed to 1 clears the category (recorded as its own change, with the same reason);
a label changed to 0 needs an ``error_type`` erratum for the row, since every domain here
requires a category for an unacceptable row. A relabelled crowd row keeps its votes and
soft label: the crowd said what it said, the ``review`` entry says who overruled it.

Every problem is one line naming ``FILE:LINE`` (exit 1), found before anything is written.
"""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from rucola.corpus import schema
from rucola.corpus.languages.profile import profile
from rucola.corpus.normalize import (
    DIRECTIONAL_MARKS,
    describe,
    is_unprintable,
    normalize_text,
    text_fault,
)
from rucola.corpus.pin import id_scope
from rucola.corpus.sources.text import read_text
from rucola.csvfile import dict_records, records
from rucola.errors import RucolaError, check_header
from rucola.git_tracked import held_by_git

if TYPE_CHECKING:
    from rucola.settings import Categories, Params

COLUMNS = ["split", "domain", "id", "field", "new", "reason"]
OPTIONAL = ["old"]
LABEL, ERROR_TYPE, SENTENCE, REMOVE = "label", "error_type", "sentence", "remove"
FIELDS = [LABEL, ERROR_TYPE, SENTENCE, REMOVE]
REASON = "erratum"  # the set-aside reason of a removed row; the ledger writes "erratum: ..."
REVIEW = schema.REVIEW_FIELD.name  # the split row's applied errata (JSON), null if none

Identity = tuple[str, str, int]  # (split, id scope, id), as corpus.pin matches rows


@dataclass(frozen=True)
class ErrataOptions:
    """What applying errata needs of the params: the categories a row of each domain may
    take (``corpus.categories``), the files (``extract.errata``) and whether text is
    normalised (``extract.normalize``, so a corrected sentence is stored as the others
    are) and the language whose tokens a corrected sentence's ``n_tokens`` counts
    (``corpus.language``)."""

    categories: Categories
    paths: tuple[str, ...] = ()
    normalize: bool = True
    language: str = "ru"

    @classmethod
    def from_params(cls, params: Params) -> ErrataOptions:
        return cls(
            categories=params.corpus.categories,
            paths=tuple(params.extract.errata),
            normalize=params.extract.normalize,
            language=params.corpus.language,
        )


@dataclass(frozen=True)
class Erratum:
    """One line of an errata file, its cells checked and ``new`` parsed: an int for
    ``label``, a category or None for ``error_type``, the text for ``sentence``, None for
    ``remove``. ``old`` is None when the file does not give it."""

    path: str
    line: int
    split: str
    domain: str | None
    id: int
    field: str
    new: Any
    old: str | None
    reason: str

    @property
    def source(self) -> str:
        return f"{self.path}:{self.line}"

    @property
    def identity(self) -> Identity:
        return (self.split, id_scope(self.split, self.domain), self.id)

    @property
    def row(self) -> str:
        """``train in_domain id 7`` / ``test id 7``: the row as a message names it."""
        scope = id_scope(self.split, self.domain)
        return f"{self.split} {scope + ' ' if scope else ''}id {self.id}"

    def error(self, message: str, hint: str | None = None) -> RucolaError:
        return RucolaError(message, self.path, self.line, hint=hint)


# -- reading ----------------------------------------------------------------------------


def check_not_in_git(path: Path) -> None:
    """An errata file committed to git would publish what it says of hidden test rows:
    refused while git tracks it (nothing to check outside a git work tree). The file read is
    the one refused: a symbolic link git does not track, to a file it does, is refused too,
    as is a tracked link, and a hard link to a tracked file (``rucola.git_tracked``)."""
    shown = held_by_git(path)
    if shown is None:
        return
    raise RucolaError(
        f"errata file committed to git{shown}; it may name hidden test rows",
        path,
        hint="`git rm --cached` it and `dvc add` it",
    )


# What no cell of an errata file may hold: controls (C0, DEL, C1: ESC starts a terminal
# escape), line and paragraph separators, and what ``normalize`` calls unprintable (bidi
# overrides, isolates and marks, U+061C, private use, unassigned). A reason reaches the
# diff and the public changelog as it is written, and a sentence the release.
_REFUSED_CATEGORIES = frozenset({"Cc", "Zl", "Zp"})


def _refused_characters(text: str) -> list[str]:
    return [
        c
        for c in dict.fromkeys(text)
        if unicodedata.category(c) in _REFUSED_CATEGORIES
        or is_unprintable(c)
        or c in DIRECTIONAL_MARKS  # no fault in a sentence, but a cell is typed anew
    ]


def _check_characters(cells: list[str], names: list[str] | None, path: str, line: int) -> None:
    """Every cell of one record (the header: ``names`` None) printable text of one line."""
    for position, cell in enumerate(cells):
        found = _refused_characters(cell)
        if not found:
            continue
        if names is None:
            where = f"header cell {position + 1}"
        elif position < len(names):
            where = f"the {names[position]!r} cell"
        else:
            where = f"cell {position + 1}"
        raise RucolaError(
            f"{where} holds {', '.join(describe(c) for c in found)}",
            path,
            line,
            hint="control and bidirectional formatting characters are refused: they would "
            "reach the diff and the changelog as they are; retype the cell",
        )


def _cell(record: dict[str, Any], name: str) -> str:
    value = record.get(name)
    return value.strip() if isinstance(value, str) else ""


def _parse_new(
    name: str, raw: str, path: str, line: int, options: ErrataOptions
) -> str | int | None:
    """``new`` of one field, checked; a sentence normalised as extraction does."""
    value = raw.strip()
    if name == LABEL:
        if value not in {"0", "1"}:
            raise RucolaError(f"label must be 0 or 1, not {value!r}", path, line)
        return int(value)
    if name == ERROR_TYPE:
        known = options.categories.all()
        if value and value not in known:
            raise RucolaError(
                f"unknown category {value!r}",
                path,
                line,
                hint=f"use one of {', '.join(known)} (corpus.categories), "
                "or leave 'new' empty for none",
            )
        return value or None
    if name == REMOVE:
        if value:
            raise RucolaError("a 'remove' erratum takes an empty 'new'", path, line)
        return None
    text = normalize_text(raw, options.language) if options.normalize else raw
    if not text.strip():
        raise RucolaError("a 'sentence' erratum needs the corrected text in 'new'", path, line)
    fault = text_fault(text, options.language)
    if fault is not None:
        raise RucolaError(f"the corrected sentence holds {fault[1]}", path, line)
    return text


def _erratum(record: dict[str, Any], path: str, line: int, options: ErrataOptions) -> Erratum:
    if record.get(None):  # csv.DictReader's key for cells beyond the header
        raise RucolaError("more cells than the header has", path, line)
    if any(record.get(name) is None for name in COLUMNS):
        raise RucolaError("fewer cells than the header has", path, line)
    split = _cell(record, "split")
    if split not in schema.SPLITS:
        raise RucolaError(
            f"unknown split {split!r}", path, line, hint=f"use {', '.join(schema.SPLITS)}"
        )
    domain = _cell(record, "domain") or None
    if domain is None and split != "test":
        raise RucolaError(
            f"a {split} row needs its domain: ids are per split and domain there", path, line
        )
    if domain is not None and domain not in schema.DOMAINS:
        raise RucolaError(
            f"unknown domain {domain!r}", path, line, hint=f"use {', '.join(schema.DOMAINS)}"
        )
    raw_id = _cell(record, "id")
    if not (raw_id.isascii() and raw_id.isdigit()):
        raise RucolaError(f"id must be a published id (0, 1, ...), not {raw_id!r}", path, line)
    name = _cell(record, "field")
    if name not in FIELDS:
        raise RucolaError(f"unknown field {name!r}", path, line, hint=f"use {', '.join(FIELDS)}")
    reason = _cell(record, "reason")
    if not reason:
        raise RucolaError(
            "an erratum needs a reason", path, line, hint="the diff shows it as the cause"
        )
    new = _parse_new(name, record["new"], path, line, options)
    old = record.get("old")
    if not isinstance(old, str) or not old.strip():
        old = None
    elif name != SENTENCE:
        old = old.strip()
    return Erratum(path, line, split, domain, int(raw_id), name, new, old, reason)


def read_errata_file(path: str, options: ErrataOptions) -> list[Erratum]:
    """Every erratum of one file, each line's cells checked (the rows are looked up
    later, in :func:`apply_errata`). The CSV is read strictly and every cell is one line
    (``rucola.csvfile``): a quote left open would otherwise take the lines after it into
    its cell."""
    file = Path(path)
    if not file.is_file():
        raise RucolaError("errata file not found", path, hint="fix extract.errata")
    check_not_in_git(file)
    rows = records(read_text(file, "utf-8"), path, one_line=True)
    first = next(rows, None)
    if first is None:
        raise RucolaError("empty errata file: no header", path, 1, hint=",".join(COLUMNS))
    header_line, names = first
    _check_characters(names, None, path, header_line)
    header = check_header(names, path, header_line)
    missing = [c for c in COLUMNS if c not in header]
    unknown = [c for c in header if c not in COLUMNS + OPTIONAL]
    expected = f"the columns are {','.join(COLUMNS)} and optionally old"
    if missing:
        raise RucolaError(
            f"missing column(s) {', '.join(missing)}", path, header_line, hint=expected
        )
    if unknown:
        raise RucolaError(
            f"unknown column(s) {', '.join(unknown)}", path, header_line, hint=expected
        )

    def checked() -> Iterator[tuple[int, list[str]]]:
        for line, cells in rows:
            _check_characters(cells, header, path, line)
            yield line, cells

    return [
        _erratum(record, path, line, options) for line, record in dict_records(header, checked())
    ]


def errata_files(path: Path) -> list[Path]:
    """The errata files a params entry names: the file, or a folder's ``*.csv`` files in
    name order (its salt, hidden files and anything else left aside). Errata live in a
    salted folder (``rucola salt``), which params name as a whole."""
    if not path.is_dir():
        return [path]
    files = sorted(
        p
        for p in path.rglob("*.csv")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(path).parts)
    )
    if not files:
        raise RucolaError("no errata file (*.csv) in this folder", path)
    return files


def read_errata(options: ErrataOptions) -> list[Erratum]:
    """Every erratum of every file, in order; a row named twice for one field, or removed
    and changed at once, is refused here (naming both lines)."""
    files = [file for path in options.paths for file in errata_files(Path(path))]
    errata = [e for file in files for e in read_errata_file(str(file), options)]
    seen: dict[tuple[Identity, str], Erratum] = {}
    removed: dict[Identity, Erratum] = {}
    changed: dict[Identity, Erratum] = {}
    for erratum in errata:
        key = (erratum.identity, erratum.field)
        if key in seen:
            raise erratum.error(
                f"{erratum.row} {erratum.field} is already named at {seen[key].source}",
                hint="one erratum per row and field",
            )
        seen[key] = erratum
        mine, other = (removed, changed) if erratum.field == REMOVE else (changed, removed)
        mine.setdefault(erratum.identity, erratum)
        if erratum.identity in other:
            first = other[erratum.identity]
            kinds = sorted({first.field, erratum.field} - {REMOVE})
            raise erratum.error(
                f"{erratum.row} is removed and given a {kinds[0]} "
                f"(the other erratum: {first.source})",
                hint="a removed row takes no other erratum",
            )
    return errata


# -- applying -----------------------------------------------------------------------------


@dataclass
class Applied:
    """The split rows with the errata applied, the rows they removed (with the erratum's
    reason of each, the set-aside detail) and the report's figures."""

    frame: pd.DataFrame
    removed: pd.DataFrame
    details: list[str]
    report: dict[str, Any]


def _current(row: pd.Series, name: str) -> Any:
    if name == LABEL:
        return int(row["label"])
    if name == ERROR_TYPE:
        value = row["error_type"]
        return value if isinstance(value, str) else None
    return row["sentence"]


def _as_text(value: Any) -> str:
    """A value as the ``old`` column writes it: 0/1, '' for no category, the text."""
    return "" if value is None else str(value)


def _stale(erratum: Erratum, current: Any, options: ErrataOptions) -> bool:
    if erratum.old is None:
        return False
    if erratum.old == _as_text(current):
        return False
    if erratum.field in (SENTENCE, REMOVE):
        old = normalize_text(erratum.old, options.language) if options.normalize else erratum.old
        return old != current
    return True


def _locate(
    erratum: Erratum, index: dict[Identity, int], frame: pd.DataFrame, named: set[Identity]
) -> int:
    """The row an erratum names, or why it names none this build may correct."""
    position = index.get(erratum.identity)
    if position is None:
        if erratum.identity in named:
            raise erratum.error(
                f"{erratum.row} is not in this build: set aside by an earlier stage",
                hint="its set-aside rows say why; drop the erratum",
            )
        raise erratum.error(
            f"unknown id: {erratum.row} is neither in a pinned version nor in the data",
            hint="name a row by its published split, domain and id",
        )
    if pd.isna(frame["pinned_split"].iat[position]):
        raise erratum.error(
            f"{erratum.row} was never published (new in this build)",
            hint="fix it in its source",
        )
    return position


def _check(
    erratum: Erratum, row: pd.Series, group: dict[str, Erratum], options: ErrataOptions
) -> None:
    """The erratum against the row it names and the row's other errata."""
    name = erratum.field
    row_domain = row["domain"] if isinstance(row["domain"], str) else None
    if erratum.split == "test" and erratum.domain and row_domain not in (None, erratum.domain):
        raise erratum.error(f"{erratum.row} is in {row_domain}, not {erratum.domain}")
    unlabelled = int(row["label"]) == schema.UNLABELLED
    if unlabelled and name in (LABEL, ERROR_TYPE):
        raise erratum.error(
            f"{erratum.row} has no gold (label -1): there is no {name} to correct",
            hint="add the test gold first",
        )
    current = _current(row, name)
    if _stale(erratum, current, options):
        raise erratum.error(
            f"stale erratum: {erratum.row} {name if name != REMOVE else 'sentence'} is "
            f"{_as_text(current)!r}, not {erratum.old!r}",
            hint="the row changed since the erratum was written; check it again",
        )
    if name != REMOVE and erratum.new == current:
        raise erratum.error(
            f"changes nothing: {erratum.row} {name} is already {_as_text(current)!r}",
            hint="drop the erratum",
        )
    label = group[LABEL].new if LABEL in group else int(row["label"])
    if name == LABEL and erratum.new == schema.UNACCEPTABLE and ERROR_TYPE not in group:
        raise erratum.error(
            f"{erratum.row} becomes unacceptable without a category",
            hint="add an error_type erratum for the same row",
        )
    if name == ERROR_TYPE and erratum.new is not None and label == schema.ACCEPTABLE:
        becomes = f"becomes 1 ({group[LABEL].source})" if LABEL in group else "is 1"
        raise erratum.error(
            f"a category for {erratum.row}, whose label {becomes}",
            hint="acceptable rows have no error_type",
        )
    allowed = options.categories.of(row_domain) if row_domain else options.categories.all()
    if name == ERROR_TYPE and erratum.new is None and label == schema.UNACCEPTABLE:
        raise erratum.error(
            f"{erratum.row} is unacceptable and needs a category",
            hint=f"give one of {', '.join(allowed)}",
        )
    if name == ERROR_TYPE and erratum.new is not None and erratum.new not in allowed:
        raise erratum.error(
            f"{erratum.new} is no category of {row_domain} rows (corpus.categories)",
            hint=f"give one of {', '.join(allowed)}",
        )


def _entry(erratum: Erratum, name: str, old: Any, new: Any) -> dict[str, Any]:
    return {
        "field": name,
        "old": old,
        "new": new,
        "reason": erratum.reason,
        "source": erratum.source,
    }


def apply_errata(
    frame: pd.DataFrame,
    errata: list[Erratum],
    named: set[Identity],
    options: ErrataOptions | None,
) -> Applied:
    """``frame`` (the split rows, with ``split``, ``id`` and ``pinned_split``) corrected.

    ``named`` is every identity the pins name: a row named there but missing from the data
    was set aside before the split. Every check runs before the first change. ``options``
    (what read the errata) is None only when there are none.
    """
    frame = frame.copy()
    frame[REVIEW] = pd.Series([None] * len(frame), index=frame.index, dtype=object)
    if not errata or options is None:
        return Applied(frame, frame.iloc[0:0], [], report([], options.paths if options else ()))
    index: dict[Identity, int] = {}
    for position, key in enumerate(zip(frame["split"], frame["domain"], frame["id"], strict=True)):
        index.setdefault((key[0], id_scope(key[0], key[1]), int(key[2])), position)
    positions = [_locate(e, index, frame, named) for e in errata]
    groups: dict[int, dict[str, Erratum]] = {}
    for erratum, position in zip(errata, positions, strict=True):
        groups.setdefault(position, {})[erratum.field] = erratum
    for erratum, position in zip(errata, positions, strict=True):
        _check(erratum, frame.iloc[position], groups[position], options)

    entries: dict[int, list[dict[str, Any]]] = {}
    removed: dict[int, str] = {}
    columns = {name: frame.columns.get_loc(name) for name in ("sentence", "label", "error_type")}
    for erratum, position in zip(errata, positions, strict=True):
        name = erratum.field
        if name == REMOVE:
            removed[position] = erratum.reason
            continue
        row = frame.iloc[position]
        old = _current(row, name)
        mine = entries.setdefault(position, [])
        mine.append(_entry(erratum, name, old, erratum.new))
        frame.iat[position, columns[name]] = erratum.new
        if name == SENTENCE and "n_tokens" in frame.columns:
            tokens = profile(options.language).tokenize(erratum.new)
            frame.iat[position, frame.columns.get_loc("n_tokens")] = len(tokens)
        cleared = _current(row, ERROR_TYPE)
        explicit = ERROR_TYPE in groups[position]
        if name == LABEL and erratum.new == schema.ACCEPTABLE and cleared and not explicit:
            # an acceptable row has no category: cleared, recorded with the same reason
            mine.append(_entry(erratum, ERROR_TYPE, cleared, None))
            frame.iat[position, columns[ERROR_TYPE]] = None
    review = frame.columns.get_loc(REVIEW)
    for position, listed in entries.items():
        frame.iat[position, review] = json.dumps(listed, ensure_ascii=False)
    order = sorted(removed)
    gone = frame.iloc[order].copy()
    # the set-aside row carries its published identity, as rows set aside earlier do
    if "published_id" in gone.columns:
        gone["published_id"] = gone["published_id"].where(gone["published_id"].notna(), gone["id"])
        gone["published_split"] = gone["published_split"].where(
            gone["published_split"].notna(), gone["split"]
        )
    else:
        gone["published_id"], gone["published_split"] = gone["id"], gone["split"]
    kept = frame.drop(index=frame.index[order]).reset_index(drop=True)
    return Applied(
        kept,
        gone.drop(columns=[REVIEW]),
        [removed[p] for p in order],
        report(errata, options.paths),
    )


def report(errata: list[Erratum], paths: Sequence[str]) -> dict[str, Any]:
    """The split report's ``errata`` section (public, in git): per split and field for
    train and validation; for test only how many rows errata touched, since a count of
    relabelled test rows would say something of the hidden labels."""
    counts: dict[str, Counter[str]] = {s: Counter() for s in schema.SPLITS}
    for erratum in errata:
        counts[erratum.split][erratum.field] += 1
    test_rows = len({e.identity for e in errata if e.split == "test"})
    out: dict[str, Any] = {"files": [str(p) for p in paths], "errata": len(errata)}
    for split in schema.SPLITS[:2]:
        out[split] = {name: counts[split][name] for name in FIELDS}
    out["test"] = {"rows": test_rows}
    return out


def summary_line(section: dict[str, Any]) -> str | None:
    """What ``rucola split`` prints of the errata (None when none are configured)."""
    if not section.get("files"):
        return None
    parts = []
    for split in schema.SPLITS[:2]:
        named = [f"{name} {n}" for name, n in section[split].items() if n]
        if named:
            parts.append(f"{split}: {', '.join(named)}")
    parts.append(f"test: {section['test']['rows']} rows")
    files = len(section["files"])
    return (
        f"split: errata: {section['errata']} applied from {files} file"
        f"{'s' if files != 1 else ''} ({'; '.join(parts)})"
    )
