"""Alternations: one printed example that stands for several sentences.

Linguists print ``Betsy buttered (*at) the toast`` for two examples: without the
parenthesis (the example's own judgment) and with it (starred). ``(X/*Y)`` offers
alternatives, each with an optional mark of its own. A plain parenthesis ``(X)`` is text,
and so is one whose slash stands between no letters (a fraction, ``(1/5%)``): a
parenthesis is an alternation exactly when the artefact rule ``unexpanded_alternation``
(``corpus.artefacts``) says so, so extract never expands what it would not flag.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from rucola.corpus.artefacts import UNEXPANDED_ALTERNATION
from rucola.corpus.marks import split_leading_mark
from rucola.corpus.normalize import tidy_after_edit

# Innermost parentheses only: nested alternations are expanded from the inside out.
_PAREN = re.compile(r"\(([^()]*)\)")
MAX_VARIANTS = 64


@dataclass(frozen=True)
class Variant:
    text: str
    mark: str  # the mark this variant carries; "" means the example's own mark applies
    index: int


def _alternatives(content: str) -> list[tuple[str, str]] | None:
    """``'*at'`` -> [('', ''), ('*', 'at')]; ``'X/*Y'`` -> [('', 'X'), ('*', 'Y')]."""
    stripped = content.strip()
    if "/" in stripped and UNEXPANDED_ALTERNATION.found(f"({content})"):
        options = [split_leading_mark(part) for part in stripped.split("/")]
        return [(mark, text) for mark, text in options]
    mark, text = split_leading_mark(stripped)
    if not mark:
        return None  # a plain parenthesis: ordinary text
    return [("", ""), (mark, text)]


def expand(sentence: str) -> list[Variant] | None:
    """All variants of ``sentence``, or None when it holds no alternation.

    With several alternations the variants are their product; a variant takes the mark of
    the first marked alternative it uses (for nested ones, the enclosing alternative's),
    else the example's own mark.
    """
    spans: list[tuple[int, int, list[tuple[str, str]]]] = []
    for match in _PAREN.finditer(sentence):
        options = _alternatives(match.group(1))
        if options is not None:
            spans.append((match.start(), match.end(), options))
    if not spans:
        return None
    combos = list(itertools.islice(itertools.product(*(s[2] for s in spans)), MAX_VARIANTS))
    variants: list[Variant] = []
    seen: set[str] = set()
    for combo in combos:
        pieces: list[str] = []
        cursor = 0
        mark = ""
        for (start, end, _), (alt_mark, alt_text) in zip(spans, combo, strict=True):
            pieces.append(sentence[cursor:start])
            pieces.append(alt_text)
            cursor = end
            if alt_mark and not mark:
                mark = alt_mark
        pieces.append(sentence[cursor:])
        text = tidy_after_edit("".join(pieces))
        # Nested alternations: the inner parenthesis was expanded; expand what it revealed.
        inner = expand(text)
        if inner is None:
            candidates = [(text, mark)]
        else:  # the enclosing alternative's mark covers the whole of it
            candidates = [(sub.text, sub.mark or mark) for sub in inner]
        for candidate_text, candidate_mark in candidates:
            if candidate_text not in seen:  # nested options can spell one sentence twice
                seen.add(candidate_text)
                variants.append(Variant(candidate_text, candidate_mark, len(variants)))
    return variants[:MAX_VARIANTS]
