"""Text normalisation applied to every sentence before it is compared or stored.

Duplicates are found on the normalised text, so two copies that differ only in Unicode form
or spacing are recognised as the same sentence.
"""

from __future__ import annotations

import re
import unicodedata

# Characters that are invisible in print but break tokenisation and duplicate detection.
_DROP = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)
_SPACES = dict.fromkeys(map(ord, "\u00a0\u2007\u202f\u2009\u200a\u2002\u2003\t\r\n\v\f"), " ")
_MULTI_SPACE = re.compile(r" {2,}")
# A space left before closing punctuation after an alternation was taken out.
_SPACE_BEFORE_PUNCT = re.compile(r" +([.,;:!?…)\]»])")
_SPACE_AFTER_OPEN = re.compile(r"([(\[«]) +")


def normalize_text(text: str) -> str:
    """NFC, invisible characters removed, any whitespace run collapsed to one space."""
    text = unicodedata.normalize("NFC", text).translate(_DROP).translate(_SPACES)
    return _MULTI_SPACE.sub(" ", text).strip()


def tidy_after_edit(text: str) -> str:
    """Repair spacing after a part of the sentence was removed (alternation expansion)."""
    text = _MULTI_SPACE.sub(" ", text).strip()
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
    return _SPACE_AFTER_OPEN.sub(r"\1", text)
