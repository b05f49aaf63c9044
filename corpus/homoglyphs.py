"""Latin letters that look Cyrillic, typed inside Russian words (``никoгдa``, ``нe``).

They are invisible to a reader but split tokens, miss the frequency dictionary and make
duplicates look distinct. A word is repaired only when it already holds a Cyrillic letter
and every Latin letter in it has a Cyrillic twin, so real Latin words (``Amazon``,
``Credit Suisse``) and mixed names (``банкCredit``) are left alone. A whole word of twins
(``B ee голосе``) is repaired only in a sentence with no real Latin word, and only when it
cannot be an acronym, a name or a numeral (``BBC``, ``Mac``, ``XX век``). This is the
one language-specific rule of extraction.
"""

from __future__ import annotations

import re

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
_TWINS = set("aceopxyABCEHKMOPTXYëË")
_ANY_TWIN = re.compile(f"[{''.join(sorted(_TWINS))}]")
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


def _is_cyrillic(ch: str) -> bool:
    return "\u0400" <= ch <= "\u04ff"


def _is_latin(ch: str) -> bool:
    return ch.isascii() and ch.isalpha() or ch in "ëË"


def _lone_twin(word: str, start: int) -> bool:
    """A whole word of twins that is no acronym, name or numeral: lower case, or one
    capital letter opening the sentence."""
    return word.islower() or (len(word) == 1 and start == 0)


def fix_homoglyphs(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The repaired text and the (before, after) pairs of the words that changed."""
    changes: list[tuple[str, str]] = []
    if not _ANY_TWIN.search(text):  # only a word holding a Latin twin can change
        return text, changes
    words = _WORD.findall(text)
    cyrillic = sum(_is_cyrillic(ch) for ch in text)
    latin_total = sum(_is_latin(ch) for ch in text)
    real_latin = any(
        all(_is_latin(ch) or ch == "-" for ch in w)
        and not all(ch in _TWINS for ch in w if ch != "-")
        for w in words
    )
    standalone_ok = not real_latin and cyrillic > 2 * latin_total

    def repair(match: re.Match[str]) -> str:
        word = match.group(0)
        latin = [ch for ch in word if _is_latin(ch)]
        if not latin or not all(ch in _TWINS for ch in latin):
            return word
        if not any(_is_cyrillic(ch) for ch in word) and not (
            standalone_ok and _lone_twin(word, match.start())
        ):
            return word
        fixed = word.translate(LATIN_TO_CYRILLIC)
        changes.append((word, fixed))
        return fixed

    return _WORD.sub(repair, text), changes
