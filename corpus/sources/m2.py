"""M2, the format of grammatical error correction corpora: sentences and their typed edits.

A block is an ``S`` line (the sentence as space-separated tokens) and the ``A`` lines of its
edits, ``A start end|||type|||correction|||required|||comment|||annotator``, ended by a blank
line. ``A -1 -1|||noop|||...`` says that annotator left the sentence unchanged; a block
without any ``A`` line (RULEC-GEC writes its correct sentences so) has no edit at all. This
module only reads the format; what the edits mean for acceptability is ``corpus.learner``.

Anything malformed is an error naming the file and line: a corpus whose spans are off by
one would otherwise yield fluent-looking pairs that differ in the wrong words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rucola.corpus.sources.text import read_text
from rucola.errors import RucolaError

NOOP = "noop"
EMPTY = "-NONE-"  # a correction written as -NONE- is no tokens (older M2 writers)
_FIELDS = 6
_FORMAT = "A start end|||type|||correction|||required|||comment|||annotator"
# ASCII digits only: ``str.isdigit`` accepts "²" and a stripped "--1", which ``int`` refuses.
_SPAN = re.compile(r"(-?[0-9]+) +(-?[0-9]+)")


@dataclass(frozen=True)
class Edit:
    """One ``A`` line: tokens ``start:end`` of the sentence become ``correction``."""

    start: int
    end: int
    type: str
    correction: tuple[str, ...]
    annotator: str
    line: int


@dataclass(frozen=True)
class M2Sentence:
    """One block. ``edits`` per annotator in order of first appearance; an annotator who
    wrote ``noop`` maps to no edits, and a block without ``A`` lines has no annotator."""

    path: Path
    line: int  # of the S line
    tokens: tuple[str, ...]
    edits: dict[str, tuple[Edit, ...]]
    raw: str  # the S line's text as read

    @property
    def origin(self) -> str:
        return f"{self.path}:{self.line}"


def _edit(path: Path, number: int, text: str, tokens: int) -> tuple[Edit, bool]:
    """The edit of one ``A`` line, and whether it is a noop."""
    fields = text[2:].split("|||")
    if len(fields) != _FIELDS:
        raise RucolaError(
            f"an A line has {_FIELDS} fields separated by '|||', this one {len(fields)}",
            path,
            number,
            hint=f"the format is {_FORMAT}",
        )
    span, kind, correction, _required, _comment, annotator = (f.strip() for f in fields)
    match = _SPAN.fullmatch(span)
    if match is None:
        raise RucolaError(f"the span '{span}' is not two whole numbers", path, number)
    start, end = int(match[1]), int(match[2])
    if not annotator:
        raise RucolaError("no annotator id in the last field", path, number)
    if not kind:
        raise RucolaError("no edit type in the second field", path, number)
    noop = (start, end) == (-1, -1)
    if noop != (kind == NOOP):
        raise RucolaError(
            f"span {start} {end} with type '{kind}': only a noop has the span -1 -1",
            path,
            number,
        )
    if not noop and start > end:
        raise RucolaError(f"span {start}-{end} ends before it starts", path, number)
    if not noop and not 0 <= start <= end <= tokens:
        raise RucolaError(
            f"span {start}-{end} outside the sentence ({tokens} tokens)", path, number
        )
    words = () if correction in ("", EMPTY) else tuple(correction.split())
    return Edit(start, end, kind, words, annotator, number), noop


def _block(path: Path, s_line: int, raw: str, a_lines: list[tuple[int, str]]) -> M2Sentence:
    tokens = tuple(raw.split())
    edits: dict[str, list[Edit]] = {}
    noops: dict[str, int] = {}
    for number, text in a_lines:
        edit, noop = _edit(path, number, text, len(tokens))
        mine = edits.setdefault(edit.annotator, [])
        if noop:
            noops.setdefault(edit.annotator, number)
        else:
            mine.append(edit)
        if mine and edit.annotator in noops:
            raise RucolaError(
                f"annotator '{edit.annotator}' both left the sentence unchanged "
                f"(line {noops[edit.annotator]}) and edited it",
                path,
                number,
            )
    return M2Sentence(path, s_line, tokens, {a: tuple(e) for a, e in edits.items()}, raw)


def read_m2(path: Path, encoding: str) -> Iterator[M2Sentence]:
    """The blocks of an M2 file in order; a file without any ``S`` line is an error."""
    text = read_text(path, encoding)
    sentence: tuple[int, str] | None = None
    edits: list[tuple[int, str]] = []
    blocks = 0
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip()
        if not line:
            if sentence is not None:
                yield _block(path, *sentence, edits)
                blocks += 1
            sentence, edits = None, []
        elif line.startswith("S ") or line == "S":
            if sentence is not None:  # no blank line between blocks: tolerated
                yield _block(path, *sentence, edits)
                blocks += 1
            sentence, edits = (number, line[2:].strip()), []
        elif line.startswith("A "):
            if sentence is None:
                raise RucolaError("an A line before any S line", path, number)
            edits.append((number, line))
        else:
            raise RucolaError(
                "a line of an M2 file starts with 'S ' (a sentence) or 'A ' (an edit)",
                path,
                number,
                hint="is this an M2 file? blocks are separated by one blank line",
            )
    if sentence is not None:
        yield _block(path, *sentence, edits)
        blocks += 1
    if not blocks:
        raise RucolaError("no sentence: an M2 file holds 'S ' lines", path)
