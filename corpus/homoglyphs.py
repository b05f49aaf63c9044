"""Look-alike letters of another script typed inside words: repaired toward the script of
the corpus's language (``corpus.language``'s profile), in either direction.

Cyrillic languages: Latin letters that look Cyrillic inside Russian words (``никoгдa``,
``нe``). Latin-script languages: Cyrillic letters that look Latin inside words (Italian
``Ѐ`` U+0400 for ``È``, a Cyrillic ``а``/``е``/``о``/``р``/``с`` in ``pаrola``). They are
invisible to a reader but split tokens, miss the frequency dictionary and make duplicates
look distinct. A word is repaired only when it already holds a letter of the target
script and every foreign letter in it has a twin there, so real foreign words
(``Amazon``, ``Credit Suisse`` in Russian; ``Путин`` in Italian) and mixed names
(``банкCredit``) are left alone. A whole word of twins (``B ee голосе``, ``Ѐ stato``) is
repaired only in a sentence with no real foreign word, and only when it cannot be an
acronym, a name or a numeral (``BBC``, ``Mac``, ``XX век``). Other scripts (Greek,
Arabic, CJK...) have no table: their text is left as it is. This is the one
language-specific rule of extraction.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

LATIN_TO_CYRILLIC = str.maketrans(
    {
        "a": "а",
        "c": "с",
        "e": "е",
        "o": "о",
        "p": "р",
        "x": "х",
        "y": "у",
        "A": "А",
        "B": "В",
        "C": "С",
        "E": "Е",
        "H": "Н",
        "K": "К",
        "M": "М",
        "O": "О",
        "P": "Р",
        "T": "Т",
        "X": "Х",
        "Y": "У",
        "ë": "ё",
        "Ë": "Ё",
    }
)
# The reverse: Cyrillic letters (Russian, Ukrainian, Serbian/Macedonian, Komi) whose glyph
# is a Latin letter's, accented ones included (Ѐ U+0400 is È, ѐ U+0450 è).
CYRILLIC_TO_LATIN = str.maketrans(
    {
        "а": "a",
        "с": "c",
        "е": "e",
        "о": "o",
        "р": "p",
        "х": "x",
        "у": "y",
        "і": "i",
        "ј": "j",
        "ѕ": "s",
        "ԁ": "d",
        "ԛ": "q",
        "ԝ": "w",
        "ѐ": "è",
        "ё": "ë",
        "ї": "ï",
        "ӧ": "ö",
        "ӓ": "ä",
        "А": "A",
        "В": "B",
        "С": "C",
        "Е": "E",
        "Н": "H",
        "І": "I",
        "Ј": "J",
        "К": "K",
        "М": "M",
        "О": "O",
        "Р": "P",
        "Ѕ": "S",
        "Т": "T",
        "Х": "X",
        "У": "Y",
        "Ѐ": "È",
        "Ё": "Ë",
        "Ї": "Ï",
        "Ӧ": "Ö",
        "Ӓ": "Ä",
        "Ԛ": "Q",
        "Ԝ": "W",
    }
)
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


def _is_cyrillic(ch: str) -> bool:
    return "\u0400" <= ch <= "\u04ff"


def _is_any_cyrillic(ch: str) -> bool:
    """Cyrillic and its supplement (where ԁ, ԛ, ԝ are)."""
    return "\u0400" <= ch <= "\u052f"


def _is_basic_latin(ch: str) -> bool:
    """A Latin letter as the Cyrillic direction sees one (ASCII, and ë)."""
    return ch.isascii() and ch.isalpha() or ch in "ëË"


def _is_latin(ch: str) -> bool:
    """Any Latin letter, accented ones included (Italian è, German ö)."""
    return ch.isalpha() and (
        ch.isascii() or "\u00c0" <= ch <= "\u024f" or "\u1e00" <= ch <= "\u1eff"
    )


@dataclass(frozen=True)
class Direction:
    """Repair toward one script: which letters are its own, which are foreign, and the
    foreign letters' twins."""

    own: Callable[[str], bool]
    foreign: Callable[[str], bool]
    table: dict[int, str]

    @property
    def twins(self) -> frozenset[str]:
        return frozenset(chr(code) for code in self.table)


TOWARD = {
    "Cyrl": Direction(_is_cyrillic, _is_basic_latin, LATIN_TO_CYRILLIC),
    "Latn": Direction(_is_latin, _is_any_cyrillic, CYRILLIC_TO_LATIN),
}
_ANY_TWIN = {
    script: re.compile(f"[{''.join(sorted(way.twins))}]") for script, way in TOWARD.items()
}


def _lone_twin(word: str, start: int) -> bool:
    """A whole word of twins that is no acronym, name or numeral: lower case, or one
    capital letter opening the sentence."""
    return word.islower() or (len(word) == 1 and start == 0)


def has_twin(text: str, script: str = "Cyrl") -> bool:
    """Whether ``text`` holds a letter :func:`fix_homoglyphs` may replace (a fast path)."""
    found = _ANY_TWIN.get(script)
    return found is not None and found.search(text) is not None


def fix_homoglyphs(text: str, script: str = "Cyrl") -> tuple[str, list[tuple[str, str]]]:
    """The text repaired toward ``script`` (ISO 15924: ``Cyrl``, the default, or ``Latn``;
    another script is left as it is) and the (before, after) pairs of the words that
    changed."""
    changes: list[tuple[str, str]] = []
    way = TOWARD.get(script)
    if way is None or not has_twin(text, script):  # only a word holding a twin can change
        return text, changes
    twins = way.twins
    words = _WORD.findall(text)
    own_total = sum(way.own(ch) for ch in text)
    foreign_total = sum(way.foreign(ch) for ch in text)
    real_foreign = any(
        all(way.foreign(ch) or ch == "-" for ch in w)
        and not all(ch in twins for ch in w if ch != "-")
        for w in words
    )
    standalone_ok = not real_foreign and own_total > 2 * foreign_total

    def repair(match: re.Match[str]) -> str:
        word = match.group(0)
        foreign = [ch for ch in word if way.foreign(ch)]
        if not foreign or not all(ch in twins for ch in foreign):
            return word
        if not any(way.own(ch) for ch in word) and not (
            standalone_ok and _lone_twin(word, match.start())
        ):
            return word
        fixed = word.translate(way.table)
        changes.append((word, fixed))
        return fixed

    return _WORD.sub(repair, text), changes
