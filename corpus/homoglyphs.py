"""Look-alike letters of another script typed inside text: repaired toward the script of
the corpus's language (``corpus.language``'s profile), Latin and Cyrillic either way.

A Latin ``o`` in Russian ``никoгдa`` or a Cyrillic ``Ѐ`` (U+0400) for Italian ``È`` is
invisible to a reader but splits tokens, misses the frequency list and makes duplicates look
distinct. A legitimate word must never be rewritten, so four rules, one per kind of word:

1. **A mixed-script word** (Latin and Cyrillic letters in one word) is repaired toward the
   script of its unambiguous letters, those with no look-alike in the other script
   (``никoгдa``: ``н``, ``и``, ``к``, ``г``, ``д`` are Cyrillic only, so the ``o``, ``a``
   become Cyrillic), when that is the corpus's script and every letter of the other script
   has a twin there. Unambiguous letters of both scripts (``банкCredit``): left alone.
   Unambiguous letters of the other script only: a foreign word, left as written like the
   others (RuCoLA's ``Сuttonа`` ends in a Russian case ending, ``Сn``, ``РCZ``: five
   published rows that v1.1's corrections do not touch). None at all (``Сasa``, ``sаid``):
   repaired toward the corpus's script when rule 3's measure says so, whatever its case.
2. **A single look-alike letter standing as a word** among words of the corpus's script
   is repaired when lower-case or opening the sentence (ItaCoLA's ``Ѐ stato``, ``а casa
   mia``, RuCoLA's ``B ee голосе``): a typing slip is far likelier than a letter quoted
   from another alphabet. A capital inside a sentence is a name or a variable (``мощность
   C множества``): left alone.
3. **A whole word of two or more look-alikes** (``ee``, ``copy``, ``сахар``) is repaired
   only when it is lower case (``BBC``, ``Mac``, ``XX век`` are acronyms, names and
   numerals), its repaired form is a word of the corpus's language and it is not a word of
   the other script's language. The measure is wordfreq's Zipf frequency (log10 of uses
   per billion words): the repaired form must be in wordfreq's ``small`` list of the
   corpus's language, which holds the words above :data:`MIN_ZIPF` (3.0, once per million
   words: a word of the language, not a typo or a name; the small list, about 11 MB where
   Russian's full one is 140, keeps extract of a million rows under 1 GiB), and have at
   least :data:`MARGIN` (2.0: a hundred times) more than the word as
   written has in the likeliest language of its script (:data:`OTHER_LANGUAGE`: English
   for Latin look-alikes in a Cyrillic corpus, Russian for Cyrillic ones in a Latin
   corpus). Chosen on real data: RuCoLA's one such slip, ``ee`` -> ``ее``, is 6.10
   against 3.61 (English lists ``ee`` from abbreviations, so no bound on the other reading
   alone can tell it from a word); ``copy`` -> ``сору`` is 2.29 against 4.77 and English
   ``сахар`` -> ``caxap`` 0.00 against 4.12; a margin of 1 would still rewrite a quoted
   English ``ox`` (``ох`` 4.69 against 3.47) or Russian ``сор`` in English (``cop`` 4.37
   against 2.99). Russian ``со`` typed ``co`` (6.13 against 5.21) is left alone too. A
   language wordfreq has no list for repairs no whole word.
4. **Beside digits or a math symbol** (the nearest character past any spaces is a digit or
   of Unicode category Sm: ``=``, ``+``, ``×``, ``<``, ``−``...) a word of look-alikes only
   is never repaired, nor is it anywhere else in the text: ``3x4 метра``, ``Уравнение y =
   ax`` are formulas, and the ``y`` of ``x + y = 5, при любом y`` a variable. A hyphen is
   not a math symbol (Russian ``90-x`` is ``90-х``).

Rules 2 and 3 act only in a sentence of the corpus's script: more than twice as many of
its letters as of the other's, and no real foreign word (one of the other script's letters
with a letter that has no twin: ``Amazon``, ``Credit Suisse`` in Russian; ``Путин``,
``Сергей`` in Italian). Other scripts (Greek, Arabic, CJK...) have no table: their text is
left as it is. Only text holding a look-alike of the other script can change
(:func:`has_twin`, the fast path extract runs on every row); wordfreq is asked only about
candidate whole words. This is the one language-specific rule of extraction.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from rucola.registry import LANGUAGES

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

# toward a script: the table that turns the other script's look-alikes into its letters
TOWARD = {"Cyrl": LATIN_TO_CYRILLIC, "Latn": CYRILLIC_TO_LATIN}
OTHER = {"Cyrl": "Latn", "Latn": "Cyrl"}
# a letter of the other script that has a twin in the key's: the only ones that change
_ANY_TWIN = {
    script: re.compile("[" + "".join(sorted(map(chr, table))) + "]")
    for script, table in TOWARD.items()
}
# the wordfreq code of the language most likely written in the look-alikes' script
OTHER_LANGUAGE = {"Cyrl": "en", "Latn": "ru"}
MIN_ZIPF = 3.0  # the repaired word is a word of the corpus's language: once per million
MARGIN = 2.0  # ... a hundred times likelier there than the word as written in its own
# letters with a look-alike in the other script, either table: the ambiguous ones
_AMBIGUOUS = frozenset(
    [chr(code) for code in LATIN_TO_CYRILLIC]
    + list(LATIN_TO_CYRILLIC.values())
    + [chr(code) for code in CYRILLIC_TO_LATIN]
    + list(CYRILLIC_TO_LATIN.values())
)


def _script(ch: str) -> str | None:
    """``Cyrl`` (with its supplement, where ԁ, ԛ, ԝ are), ``Latn`` (accented letters
    included: Italian è, German ö), or None for any other character."""
    if "\u0400" <= ch <= "\u052f":
        return "Cyrl"
    if ch.isalpha() and (ch.isascii() or "\u00c0" <= ch <= "\u024f" or "\u1e00" <= ch <= "\u1eff"):
        return "Latn"
    return None


def _toward(word: str, script: str) -> str | None:
    """``word`` with its letters of the other script turned into their twins in
    ``script``, or None when one of them has no twin."""
    table = TOWARD[script]
    other = OTHER[script]
    if any(_script(ch) == other and ord(ch) not in table for ch in word):
        return None
    return word.translate(table)


@cache
def _zipf(word: str, lang: str, wordlist: str = "large") -> float:
    """wordfreq's Zipf frequency of ``word`` in ``lang``'s ``wordlist`` (0 where it has no
    list, or the word is not in it)."""
    from wordfreq import zipf_frequency

    try:
        return zipf_frequency(word, lang, wordlist=wordlist)
    except LookupError:
        return 0.0


def _a_word_of(fixed: str, word: str, script: str, language: str) -> bool:
    """Rule 3's measure: ``fixed`` is a word of ``language`` (written in ``script``) and
    ``word``, as written, is not a word of the other script's likeliest language."""
    lang = _profile(language)[1]
    if lang is None:
        return False
    ours = _zipf(fixed, lang, "small")  # its words are those above MIN_ZIPF
    if ours < MIN_ZIPF:
        return False
    theirs = _toward(word, OTHER[script])
    return ours - (_zipf(theirs, OTHER_LANGUAGE[script]) if theirs else 0.0) >= MARGIN


def _beside_math(text: str, start: int, end: int) -> bool:
    """Whether the nearest character before or after ``text[start:end]``, past spaces, is
    a digit or a math symbol (rule 4)."""
    before = text[:start].rstrip()[-1:]
    after = text[end:].lstrip()[:1]
    return any(ch.isdigit() or unicodedata.category(ch) == "Sm" for ch in before + after)


@cache
def _profile(language: str) -> tuple[str, str | None]:
    """The script and wordfreq code of ``language``'s profile (an unknown code: one line),
    looked up once: the fast path runs on every row."""
    found = LANGUAGES[language]
    return found.script, found.wordfreq


def has_twin(text: str, language: str = "ru") -> bool:
    """Whether ``text`` holds a letter :func:`fix_homoglyphs` may replace (the fast path):
    a look-alike of the other script, its language's being Latin or Cyrillic."""
    found = _ANY_TWIN.get(_profile(language)[0])
    return found is not None and found.search(text) is not None


def fix_homoglyphs(text: str, language: str = "ru") -> tuple[str, list[tuple[str, str]]]:
    """The text repaired by the module's rules and the (before, after) pairs of the words
    that changed. ``language``: ``corpus.language``, the ISO 639-1 code of a registered
    profile, whose script (``Cyrl``, ``Latn``; any other: the text as it is) and wordfreq
    list the rules use."""
    changes: list[tuple[str, str]] = []
    if not has_twin(text, language):
        return text, changes
    script = _profile(language)[0]
    other = OTHER[script]
    scripts = [_script(ch) for ch in text]
    own_total = scripts.count(script)
    other_total = scripts.count(other)
    words = _WORD.findall(text)
    real_foreign = any(
        all(_script(ch) == other for ch in w if ch != "-") and _toward(w, script) is None
        for w in words
    )
    standalone = not real_foreign and own_total > 2 * other_total
    # a word that stands beside a digit or math symbol once is a variable everywhere
    formula = {
        m.group(0)
        for m in _WORD.finditer(text)
        if script not in map(_script, m.group(0)) and _beside_math(text, m.start(), m.end())
    }

    def repair(match: re.Match[str]) -> str:
        word = match.group(0)
        held = {_script(ch) for ch in word} - {None}
        if held == {script}:
            return word
        fixed: str | None
        if held == {script, other}:  # rule 1: a mixed-script word
            clear = {_script(ch) for ch in word if ch not in _AMBIGUOUS} - {None}
            if clear == {script}:
                fixed = _toward(word, script)
            elif not clear:
                fixed = _toward(word, script)
                if fixed is not None and not _a_word_of(fixed, word, script, language):
                    fixed = None
            else:
                fixed = None
        elif held == {other} and standalone:  # a word of look-alikes only: rules 2 to 4
            fixed = _toward(word, script)
            letters = len(word.replace("-", ""))
            if fixed is None or word in formula:
                fixed = None
            elif letters == 1:
                fixed = fixed if word.islower() or match.start() == 0 else None
            elif not (word.islower() and _a_word_of(fixed, word, script, language)):
                fixed = None
        else:
            fixed = None
        if fixed is None or fixed == word:
            return word
        changes.append((word, fixed))
        return fixed

    return _WORD.sub(repair, text), changes
