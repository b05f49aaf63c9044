"""Extraction artefacts: what copying examples out of a publication by hand leaves behind.

Each detector names one kind. The published RuCoLA train file shows all of them: an
unexpanded alternation ``(*не убивал)``, a stray annotator note ``... поч не *?``, an
editorial bracket ``[березу]``, a co-indexation letter ``Онаi``. Detectors look only at
punctuation and scripts, so they work for any language.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_PAIRS = {"(": ")", "[": "]", "{": "}", "«": "»"}
# A parenthesis that holds a judgment mark or offers alternatives: an alternation.
# Alternatives are short: at most three words on either side of the slash, so a
# parenthetical remark that happens to hold "A / B" in prose is not one.
_ALTERNATION = re.compile(
    r"\(\s*[*?#%]"
    r"|\((?:[^()\s]+\s+){0,2}[^()\s]*[^\W\d_]\s*/\s*[*?#%]?\s*[^\W\d_][^()\s]*(?:\s+[^()\s]+){0,2}\)"
)
# A judgment mark (asterisk) anywhere, or a detached ?-mark run that holds one.
_MARK_INSIDE = re.compile(r"\*|(?<!\S)[?#]{2,}(?!\S)|(?<!\S)\?[*?]")
# Annotators' and editors' symbols that do not occur in running text.
# A slash glued to one side of a word is a note (``ты /^спрятался``); a spaced ``//`` is a
# bibliographic separator and a backslash in quotes is the character itself (``«\»``).
_NOTE_SYMBOL = re.compile(
    r"[\^|¯]|(?<![«\"])\\|\\(?![»\"])|(?<![\S/])/(?=[^\s/])|(?<=[^\s/])/(?![^\s/])"
)
_EDITORIAL = re.compile(r"[\[\]]")
# A Latin index letter glued to the end of a non-Latin word: ``Онаi``, ``егоj``.
_COINDEX = re.compile(r"(?<=[^\W\d_a-zA-Z])[ijk](?![^\W\d_])")


def _unbalanced(text: str) -> bool:
    stack: list[str] = []
    for ch in text:
        if ch in _PAIRS:
            stack.append(_PAIRS[ch])
        elif ch in _PAIRS.values() and (not stack or stack.pop() != ch):
            return True
    if stack:
        return True
    curly = sum(text.count(q) for q in "“”„")
    return text.count('"') % 2 == 1 or curly % 2 == 1


DETECTORS: dict[str, Callable[[str], bool]] = {
    "unexpanded_alternation": lambda t: bool(_ALTERNATION.search(t)),
    "judgment_mark": lambda t: bool(_MARK_INSIDE.search(t)),
    "editorial_bracket": lambda t: bool(_EDITORIAL.search(t)),
    "annotator_note": lambda t: bool(_NOTE_SYMBOL.search(t)),
    "coindex": lambda t: bool(_COINDEX.search(t)),
    "unbalanced": _unbalanced,
}


_ALTERNATION_PAREN = re.compile(r"\(\s*[*?#%][^()]*\)|\([^()]*/[^()]*\)")


def detect(text: str) -> list[str]:
    """The kinds of artefact found in ``text``, in the order of ``DETECTORS``.

    An unexpanded alternation is reported once, not again as the marks inside it.
    """
    kinds = ["unexpanded_alternation"] if _ALTERNATION.search(text) else []
    rest = _ALTERNATION_PAREN.sub(" ", text) if kinds else text
    return kinds + [
        kind
        for kind, found in DETECTORS.items()
        if kind != "unexpanded_alternation" and found(rest)
    ]
