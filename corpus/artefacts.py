"""Extraction artefacts: what copying examples out of a publication by hand leaves behind.

Each rule names one kind. The published RuCoLA train file shows all of them: an
unexpanded alternation ``(*не убивал)``, a stray annotator note ``... поч не *?``, an
editorial bracket ``[березу]``, a co-indexation letter ``Онаi``.

Every rule says which scripts it is for (``ArtefactRule.scripts``, the table in
docs/inputs.md): most look only at punctuation, which means the same in every script; the
co-indexation rule looks at the script of the word an index letter is glued to, and the
punctuation rules step aside where a script gives a character a meaning of its own (a
Hebrew gershayim, a Devanagari danda typed as ``|``). A rule reads the sentence alone, not
the corpus's language, so extract and validate (``validation.run``, which derives its
columns from these rules) see the same artefacts in the same text, and a sentence quoting
another script is judged by that script's conventions. Script properties come from the
``regex`` module (``unicodedata`` has none).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

import regex

_PAIRS = {"(": ")", "[": "]", "{": "}"}
# Guillemets pair either way: «…» (French, Russian, Italian) or »…« (German, Danish).
_GUILLEMETS = ({"«": "»"}, {"»": "«"})
# A parenthesis that holds a judgment mark or offers alternatives: an alternation.
# Alternatives are short: at most three words on either side of the slash, so a
# parenthetical remark that happens to hold "A / B" in prose is not one.
_ALTERNATION = re.compile(
    r"\(\s*[*?#%]"
    r"|\((?:[^()\s]+\s+){0,2}[^()\s]*[^\W\d_]\s*/\s*[*?#%]?\s*[^\W\d_][^()\s]*(?:\s+[^()\s]+){0,2}\)"
)
_ALTERNATION_PAREN = re.compile(r"\(\s*[*?#%][^()]*\)|\([^()]*/[^()]*\)")
# A judgment mark (asterisk) anywhere, or a detached ?-mark run that holds one.
_MARK_INSIDE = re.compile(r"\*|(?<!\S)[?#]{2,}(?!\S)|(?<!\S)\?[*?]")
# Annotators' and editors' symbols that do not occur in running text.
# A slash glued to one side of a word is a note (``ты /^спрятался``); a spaced ``//`` is a
# bibliographic separator and a backslash in quotes is the character itself (``«\»``).
_NOTE_SYMBOL = re.compile(
    r"[\^|¯]|(?<![«\"])\\|\\(?![»\"])|(?<![\S/])/(?=[^\s/])|(?<=[^\s/])/(?![^\s/])"
)
# Scripts that end a sentence with a danda (U+0964), which is often typed as ``|`` or
# ``||``: there the bar after a word is punctuation, not an annotator's note.
_DANDA_SCRIPTS = r"\p{sc=Deva}\p{sc=Beng}\p{sc=Guru}\p{sc=Gujr}\p{sc=Orya}"
_TYPED_DANDA = regex.compile(rf"(?<=[{_DANDA_SCRIPTS}]\p{{M}}*\s?)\|\|?(?=\s|$)")
_EDITORIAL = re.compile(r"[\[\]]")
# A Latin index letter glued to the end of a word of another script: ``Онаi``, ``егоj``,
# ``هوi``, ``Γιάννηςk``, ``太郎iが``. After a Latin letter (``þurrkaði``, ``Reykjavík``,
# ``obéi``) it is a letter of the word. A word of a script written without spaces goes
# straight on into the next word (a Japanese particle), so a letter of such a script may
# follow; after any other word the index ends it.
_UNSPACED = r"\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}"
_COINDEX = regex.compile(
    rf"(?<=[\p{{L}}--\p{{sc=Latin}}]\p{{M}}*)[ijk](?![\p{{M}}]|[\p{{L}}--[{_UNSPACED}]])",
    regex.VERSION1,
)
# A double quote between two Hebrew letters is a gershayim (``צה"ל``), not a quotation mark.
_GERSHAYIM = regex.compile(r'(?<=\p{sc=Hebrew})"(?=\p{sc=Hebrew})')
_CURLY = "“”„"


@dataclass(frozen=True)
class ArtefactRule:
    """One kind of artefact: its name (``artefact:<kind>``, the ``artefacts`` column), the
    scripts it is for, and its check on a sentence."""

    kind: ClassVar[str]
    # Which scripts' text the rule reads, in words (docs/inputs.md lists them).
    scripts: ClassVar[str]

    def found(self, text: str) -> bool:
        raise NotImplementedError


class UnexpandedAlternation(ArtefactRule):
    """``(*не убивал)``, ``(в/на)``: alternatives the printed example offers, left in the
    text (a labelled row is not expanded; ``extract.expand_alternations: false``). A
    letter of any script may stand on either side of the slash: ``(に/で)``."""

    kind = "unexpanded_alternation"
    scripts = "every script (judgment marks, parentheses and a slash between letters)"

    def found(self, text: str) -> bool:
        return _ALTERNATION.search(text) is not None


class JudgmentMark(ArtefactRule):
    """An asterisk anywhere, or a detached ``??`` / ``?*``: a judgment mark inside the
    sentence (``... поч не *?``). The full-width marks of CJK text (``？``) are not
    these characters."""

    kind = "judgment_mark"
    scripts = "every script (ASCII `*`, `?`, `#`)"

    def found(self, text: str) -> bool:
        return _MARK_INSIDE.search(text) is not None


class EditorialBracket(ArtefactRule):
    """``[березу]``: an editor's insertion; square brackets are no part of running text."""

    kind = "editorial_bracket"
    scripts = "every script (`[` and `]`)"

    def found(self, text: str) -> bool:
        return _EDITORIAL.search(text) is not None


class AnnotatorNote(ArtefactRule):
    """``^``, ``|``, ``¯``, a stray backslash or a slash glued to one side of a word: an
    annotator's symbol. A ``|`` or ``||`` after a word of a script that ends sentences
    with a danda (Devanagari, Bengali, Gurmukhi, Gujarati, Oriya) is a typed danda."""

    kind = "annotator_note"
    scripts = (
        "every script; `|` after a Devanagari, Bengali, Gurmukhi, Gujarati or Oriya word is a danda"
    )

    def found(self, text: str) -> bool:
        if _NOTE_SYMBOL.search(text) is None:
            return False
        if "|" in text:
            text = _TYPED_DANDA.sub(" ", text)
            return _NOTE_SYMBOL.search(text) is not None
        return True


class Coindex(ArtefactRule):
    """``Онаi``, ``егоj``: a co-indexation subscript typed as a Latin ``i``/``j``/``k``
    glued to a word of another script. After a Latin letter the same letter is part of the
    word (Icelandic ``þurrkaði``, ``Reykjavík``, French ``obéi``), and no rule can tell an
    English ``Johni`` from a word, so a Latin word is never read as indexed."""

    kind = "coindex"
    scripts = "words of every script but Latin (Cyrillic, Greek, Arabic, Hebrew, Japanese ...)"

    def found(self, text: str) -> bool:
        return _COINDEX.search(text) is not None


class Unbalanced(ArtefactRule):
    """An opening bracket or quotation mark without its closing one (``Он сказал (и
    ушёл.``): a sentence cut short or glued from two. Guillemets pair either way (``«…»``,
    ``»…«``); a ``"`` between two Hebrew letters is a gershayim (``צה"ל``), not a quote.
    The corner brackets of CJK text (``「」``) are not checked."""

    kind = "unbalanced"
    scripts = (
        'every script (`()`, `[]`, `{}`, `«»`/`»«`, `"`, `“”„`); `"` inside a Hebrew word '
        "is a gershayim"
    )

    def found(self, text: str) -> bool:
        if _open_pairs(text, _PAIRS):
            return True
        if ("«" in text or "»" in text) and all(_open_pairs(text, g) for g in _GUILLEMETS):
            return True
        straight = text.count('"')
        if straight % 2 == 1 and '"' in text:
            straight -= len(_GERSHAYIM.findall(text))
        curly = sum(text.count(q) for q in _CURLY)
        return straight % 2 == 1 or curly % 2 == 1


def _open_pairs(text: str, pairs: dict[str, str]) -> bool:
    """Whether the brackets of ``pairs`` in ``text`` fail to close in order."""
    closers = set(pairs.values())
    stack: list[str] = []
    for ch in text:
        if ch in pairs:
            stack.append(pairs[ch])
        elif ch in closers and (not stack or stack.pop() != ch):
            return True
    return bool(stack)


UNEXPANDED_ALTERNATION = UnexpandedAlternation()
# Every rule, in the order its kind is reported.
RULES: list[ArtefactRule] = [
    UNEXPANDED_ALTERNATION,
    JudgmentMark(),
    EditorialBracket(),
    AnnotatorNote(),
    Coindex(),
    Unbalanced(),
]


def detect(text: str) -> list[str]:
    """The kinds of artefact found in ``text``, in the order of ``RULES``.

    An unexpanded alternation is reported once, not again as the marks inside it.
    """
    alternation = UNEXPANDED_ALTERNATION.found(text)
    rest = _ALTERNATION_PAREN.sub(" ", text) if alternation else text
    kinds = [UNEXPANDED_ALTERNATION.kind] if alternation else []
    return kinds + [rule.kind for rule in RULES[1:] if rule.found(rest)]
