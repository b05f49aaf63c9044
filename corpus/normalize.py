"""Text normalisation applied to every sentence before it is compared or stored.

Duplicates are found on the normalised text, so two copies that differ only in Unicode form
or spacing are recognised as the same sentence.

Characters that print nothing fall into three groups (issue 13, "text is text"):

- invisible characters whose removal is unambiguous (zero-width space and joiners, word
  joiner, BOM, soft hyphen): normalisation drops them (``_DROP``);
- whitespace, including the whitespace controls tab, line feed, vertical tab, form feed and
  carriage return and the line and paragraph separators U+2028 and U+2029: normalisation
  turns them into one space (``_SPACES``);
- everything else of Unicode categories Cc (controls: NUL, BEL, ESC, DEL, C1 ...), Cf
  (format characters such as bidi overrides), Co (private use), Cn (unassigned, which
  includes the noncharacters) and Cs (surrogates): :func:`unprintable` finds them. What
  they stood for cannot be told, so a row holding one is set aside, never repaired, and
  that holds whether or not the text is normalised.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections import Counter
from functools import cache

# Characters that are invisible in print but break tokenisation and duplicate detection.
_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad"
_DROP = dict.fromkeys(map(ord, _INVISIBLE), None)
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
_HANDLED = frozenset(_INVISIBLE + _WHITESPACE_CONTROLS)
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


def normalize_text(text: str) -> str:
    """NFC, invisible characters removed, any whitespace run collapsed to one space."""
    text = unicodedata.normalize("NFC", text).translate(_DROP).translate(_SPACES)
    return _MULTI_SPACE.sub(" ", text).strip()


def tidy_after_edit(text: str) -> str:
    """Repair spacing after a part of the sentence was removed (alternation expansion)."""
    text = _MULTI_SPACE.sub(" ", text).strip()
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
    return _SPACE_AFTER_OPEN.sub(r"\1", text)


def is_unprintable(char: str) -> bool:
    """A control or other non-printing character that normalisation cannot repair."""
    return unicodedata.category(char) in _NON_PRINTING and char not in _HANDLED


def unprintable(text: str) -> list[str]:
    """The distinct unprintable characters of ``text``, in order of appearance."""
    return list(dict.fromkeys(c for c in text if is_unprintable(c)))


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


def text_fault(text: str) -> tuple[str, str] | None:
    """(reason, detail) when ``text`` holds unprintable characters, else None.

    The reason is ``control_character`` when one of them is a control (Cc), otherwise
    ``non_printing_character``; the detail names every such code point.
    """
    found = unprintable(text)
    if not found:
        return None
    control = any(unicodedata.category(c) == "Cc" for c in found)
    reason = CONTROL_CHARACTER if control else NON_PRINTING_CHARACTER
    return reason, ", ".join(describe(c) for c in found)


def repaired_characters(text: str) -> Counter[str]:
    """The characters normalisation drops or turns into a space, other than tab, \\n, \\r and
    the ordinary space, by :func:`describe` name (counted in the extract report)."""
    return Counter(
        describe(c) for c in text if (ord(c) in _DROP or ord(c) in _SPACES) and c not in "\t\n\r"
    )


def _literal(code: int) -> str:
    return f"\\x{code:02x}" if code <= 0xFF else chr(code)


@cache
def _unprintable_ranges() -> str:
    """The class body for every unprintable code point, as ranges (computed once: ~0.3 s)."""
    ranges: list[tuple[int, int]] = []
    for code in range(sys.maxunicode + 1):
        if 0xD800 <= code <= 0xDFFF or not is_unprintable(chr(code)):
            continue
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    return "".join(_literal(a) if a == b else f"{_literal(a)}-{_literal(b)}" for a, b in ranges)


def unprintable_class(also: str = "") -> str:
    """A regex character class of every unprintable character (and of ``also``), for the
    validate stage.

    It means the same to Python's ``re`` and to RE2 (pyarrow-backed strings): code points up
    to 0xFF as ``\\xHH`` escapes (both know them), the others as literal characters (RE2 has
    no ``\\uXXXX``). Surrogates are left out: they cannot be stored in UTF-8 (Arrow, parquet)
    and RE2 rejects them in a pattern.
    """
    return "[" + "".join(_literal(ord(c)) for c in also) + _unprintable_ranges() + "]"
