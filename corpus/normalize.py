"""Text normalisation applied to every sentence before it is compared or stored.

Duplicates are found on the normalised text, so two copies that differ only in Unicode form
or spacing are recognised as the same sentence.

What normalisation keeps depends on the language (``corpus.language``, whose profile's
``format_characters`` it reads from the class: no tokenizer is loaded). Characters that
print nothing fall into four groups (issue 13, "text is text"; issue 42, "text in every
script"):

- format characters that spell words: the ones a profile declares (the zero-width
  non-joiner and joiner of Persian, Urdu, Hindi, Bengali and Tamil), and in every language
  a zero-width joiner between two pictographs (the family emoji ``👨‍👩‍👧``, after a
  skin-tone modifier or U+FE0F too), which the ``regex`` module's
  ``Extended_Pictographic`` property finds: normalisation keeps them, they are text;
- invisible characters whose removal is unambiguous (zero-width space, the other
  zero-width joiners and non-joiners, word joiner, BOM, soft hyphen) and the directional
  marks LRM U+200E, RLM U+200F and ALM U+061C (a mark steers how a run is displayed, not
  what it says; an Arabic or Hebrew sheet carries them inside words): normalisation drops
  them (``_DROPPED``), extract counts each in ``normalised.characters`` and notes
  ``normalised`` in the row's ``corrections``;
- whitespace, including the whitespace controls tab, line feed, vertical tab, form feed and
  carriage return and the line and paragraph separators U+2028 and U+2029: normalisation
  turns them into one space (``_SPACES``);
- everything else of Unicode categories Cc (controls: NUL, BEL, ESC, DEL, C1 ...), Cf
  (format characters such as the bidi embeddings, overrides and isolates, which reorder
  what is displayed), Co (private use), Cn (unassigned, which includes the
  noncharacters) and Cs (surrogates): :func:`unprintable` finds them. What they stood for
  cannot be told, so a row holding one is set aside, never repaired, and that holds
  whether or not the text is normalised.

A text kept as read (``extract.normalize: false``) keeps the characters of the second
group, directional marks included: they are no fault (:func:`text_fault`), so extract
keeps the row with them and validate (``validation.suite.UNPRINTABLE``, generated from
:func:`unprintable_class`) accepts it, as it accepts a published release's soft hyphen;
its key (``corpus.dedup.sentence_key``) is the normalised text, without them.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections import Counter
from functools import cache

import regex

from rucola.registry import LANGUAGES

ZWNJ = "\u200c"
ZWJ = "\u200d"
# Characters that are invisible in print but break tokenisation and duplicate detection.
_INVISIBLE = "\u200b" + ZWNJ + ZWJ + "\u2060\ufeff\u00ad"
# LRM, RLM, ALM: they steer the display of a run, not what it says.
DIRECTIONAL_MARKS = "\u200e\u200f\u061c"
_DROPPED = _INVISIBLE + DIRECTIONAL_MARKS
# A joiner inside an emoji ZWJ sequence (a pictograph, its skin-tone modifier or U+FE0F,
# the joiner, the next pictograph) is part of the emoji in every language; any other one
# goes where the language does not declare it.
_LOOSE_ZWJ = regex.compile(
    r"(?<!\p{Extended_Pictographic}[\p{Emoji_Modifier}\uFE0F]*)\u200d"
    r"|\u200d(?!\p{Extended_Pictographic})"
)
# Whitespace controls and separators: whitespace, not garbage; U+2028/U+2029 end a line as
# \n does (str.splitlines splits on them).
_WHITESPACE_CONTROLS = "\t\n\v\f\r\u2028\u2029"
_SPACES = dict.fromkeys(
    map(ord, "\u00a0\u2007\u202f\u2009\u200a\u2002\u2003" + _WHITESPACE_CONTROLS), " "
)
_MULTI_SPACE = re.compile(r" {2,}")
# A space left before closing punctuation after an alternation was taken out.
_SPACE_BEFORE_PUNCT = re.compile(r" +([.,;:!?…)\]»])")
_SPACE_AFTER_OPEN = re.compile(r"([(\[«]) +")

_NON_PRINTING = frozenset({"Cc", "Cf", "Co", "Cn", "Cs"})
_HANDLED = frozenset(_DROPPED + _WHITESPACE_CONTROLS)
# unicodedata has no names for the controls; their usual abbreviations make a report readable.
# fmt: off
_C0_NAMES = (
    "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF", "CR",
    "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB",
    "ESC", "FS", "GS", "RS", "US",
)
# fmt: on

CONTROL_CHARACTER = "control_character"
NON_PRINTING_CHARACTER = "non_printing_character"


@cache
def format_characters(language: str) -> frozenset[str]:
    """The format characters ``language``'s profile keeps (the class attribute: no
    tokenizer loaded). A code no profile has (a translation's source language rucola
    cannot measure) keeps none of its own, only the emoji joiners every language keeps."""
    if language not in LANGUAGES:
        return frozenset()
    return LANGUAGES[language].format_characters


@cache
def _drop_table(language: str) -> dict[int, None]:
    """What :func:`normalize_text` drops outright in ``language`` (ZWJ is decided by
    context, in :func:`_drop_joiners`)."""
    kept = format_characters(language)
    return dict.fromkeys((ord(c) for c in _DROPPED if c not in kept and c != ZWJ), None)


def _drop_joiners(text: str, language: str) -> str:
    """``text`` without the zero-width joiners ``language`` does not keep: all but those
    of emoji sequences, unless its profile declares ZWJ."""
    if ZWJ not in text or ZWJ in format_characters(language):
        return text
    return _LOOSE_ZWJ.sub("", text)


def normalize_text(text: str, language: str = "ru") -> str:
    """NFC, invisible characters and directional marks removed (but the format characters
    ``language`` spells with), any whitespace run collapsed to one space. ``language``:
    ``corpus.language`` or, for a text in another language, its code."""
    text = unicodedata.normalize("NFC", text).translate(_drop_table(language))
    text = _drop_joiners(text, language).translate(_SPACES)
    return _MULTI_SPACE.sub(" ", text).strip()


def tidy_after_edit(text: str) -> str:
    """Repair spacing after a part of the sentence was removed (alternation expansion)."""
    text = _MULTI_SPACE.sub(" ", text).strip()
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
    return _SPACE_AFTER_OPEN.sub(r"\1", text)


def is_unprintable(char: str, language: str = "ru") -> bool:
    """A control or other non-printing character that normalisation cannot repair and
    ``language`` does not spell with."""
    return (
        unicodedata.category(char) in _NON_PRINTING
        and char not in _HANDLED
        and char not in format_characters(language)
    )


def unprintable(text: str, language: str = "ru") -> list[str]:
    """The distinct unprintable characters of ``text``, in order of appearance."""
    return list(dict.fromkeys(c for c in text if is_unprintable(c, language)))


def describe(char: str) -> str:
    """``U+0000 NUL``, ``U+202E RIGHT-TO-LEFT OVERRIDE``, ``U+E000 Co`` (category when
    unnamed): for reports."""
    code = ord(char)
    if code < 0x20:
        name = _C0_NAMES[code]
    elif code == 0x7F:
        name = "DEL"
    elif code <= 0x9F:
        name = "C1 control"
    else:
        name = unicodedata.name(char, unicodedata.category(char))
    return f"U+{code:04X} {name}"


def text_fault(text: str, language: str = "ru") -> tuple[str, str] | None:
    """(reason, detail) when ``text`` holds unprintable characters, else None.

    The reason is ``control_character`` when one of them is a control (Cc), otherwise
    ``non_printing_character``; the detail names every such code point. A directional
    mark is no fault: normalisation removes it, and a text kept as read keeps it.
    """
    found = unprintable(text, language)
    if not found:
        return None
    control = any(unicodedata.category(c) == "Cc" for c in found)
    reason = CONTROL_CHARACTER if control else NON_PRINTING_CHARACTER
    return reason, ", ".join(describe(c) for c in found)


def repaired_characters(text: str, language: str = "ru") -> Counter[str]:
    """The characters normalisation drops or turns into a space in ``language``, other
    than tab, \\n, \\r and the ordinary space, by :func:`describe` name (counted in the
    extract report); a format character it keeps is not one."""
    dropped = _drop_table(language)
    found = Counter(
        describe(c) for c in text if (ord(c) in dropped or ord(c) in _SPACES) and c not in "\t\n\r"
    )
    if ZWJ in text and ZWJ not in format_characters(language):
        joiners = len(_LOOSE_ZWJ.findall(text))
        if joiners:
            found[describe(ZWJ)] += joiners
    return found


def _literal(code: int) -> str:
    return f"\\x{code:02x}" if code <= 0xFF else chr(code)


@cache
def _unprintable_ranges(language: str) -> str:
    """The class body for every unprintable code point (:func:`is_unprintable`), as
    ranges; computed once per language, with C-level loops (a Python call per code point
    made this a second of every validate run)."""
    size = sys.maxunicode + 1
    marks = bytearray(
        map(_NON_PRINTING.__contains__, map(unicodedata.category, map(chr, range(size))))
    )
    for char in _HANDLED | format_characters(language):
        marks[ord(char)] = 0
    marks[0xD800:0xE000] = bytes(0xE000 - 0xD800)  # surrogates: see unprintable_class
    spans = (match.span() for match in re.finditer(rb"\x01+", marks))
    return "".join(
        _literal(a) if a == b - 1 else f"{_literal(a)}-{_literal(b - 1)}" for a, b in spans
    )


def unprintable_class(also: str = "", language: str = "ru") -> str:
    """A regex character class of every character :func:`text_fault` finds in
    ``language`` (and of ``also``), for the validate stage.

    It means the same to Python's ``re`` and to RE2 (pyarrow-backed strings): code points up
    to 0xFF as ``\\xHH`` escapes (both know them), the others as literal characters (RE2 has
    no ``\\uXXXX``). Surrogates are left out: they cannot be stored in UTF-8 (Arrow, parquet)
    and RE2 rejects them in a pattern.
    """
    return "[" + "".join(_literal(ord(c)) for c in also) + _unprintable_ranges(language) + "]"
