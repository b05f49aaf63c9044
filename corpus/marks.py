"""Judgment marks: how a printed mark maps to a label.

The map comes from ``extract.marks`` so a project can follow its own conventions (CoLA and
RuCoLA exclude ``?``; others may not).

A mark is a run of ``*?#%``, or several runs joined by slashes: ``*/??`` and ``?/*`` are
the judgments a textbook gives an example that speakers judge differently. Unless
``extract.marks`` lists it, a slashed mark's verdict is its parts' when they all agree
(``*/??``: unacceptable with the default map), and ``exclude`` when they do not
(``?/*``: excluded, as ``?`` is), like any mark the corpus cannot take a side on.

What a mark at the start of a sentence is, is defined once here: extract splits it off
(:func:`split_leading_mark`, :func:`split_repeated_mark`) and validate's check "no judgment
mark at the start" reads the same function's answer (:func:`leading_mark`), so the two
stages cannot disagree on a sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ACCEPTABLE = "acceptable"
UNACCEPTABLE = "unacceptable"
EXCLUDE = "exclude"

# A judgment mark is a run of these characters in front of the sentence ...
MARK_CHARS = "*?#%"
_RUN = rf"[{re.escape(MARK_CHARS)}]+"
# ... or several runs joined by slashes (``*/??``).
_LEADING_MARK = re.compile(rf"^\s*({_RUN}(?:/{_RUN})*)\s*")


def split_leading_mark(text: str) -> tuple[str, str]:
    """Split ``'*?Иван пришла.'`` into ``('*?', 'Иван пришла.')``; no mark gives ``''``."""
    match = _LEADING_MARK.match(text)
    if not match:
        return "", text.strip()
    return match.group(1), text[match.end() :].strip()


def leading_mark(text: str) -> str | None:
    """The judgment mark at the start of ``text`` (``split_leading_mark``), None if none:
    a kept sentence has none (validate's column ``leading_mark``)."""
    return split_leading_mark(text)[0] or None


def split_repeated_mark(mark: str, text: str) -> tuple[str, int, str | None]:
    """The text without copies of ``mark`` at its start (``?*Lesið hafa ...`` with the
    mark ``?*`` in its mark column), how many were split off, and the first mark found there
    that is not ``mark`` (None if none): which of two marks holds is the maintainer's call.
    """
    repeats = 0
    while True:
        found, rest = split_leading_mark(text)
        if not found:
            return text, repeats, None
        if found != mark.strip():
            return text, repeats, found
        text, repeats = rest, repeats + 1


@dataclass(frozen=True)
class MarkMap:
    """Printed mark -> verdict (``acceptable``, ``unacceptable`` or ``exclude``)."""

    verdicts: dict[str, str]

    @classmethod
    def from_params(cls, marks: dict[str, str]) -> MarkMap:
        """``extract.marks`` (its verdicts are the schema's), keyed by the stripped mark."""
        return cls({"" if mark is None else str(mark).strip(): v for mark, v in marks.items()})

    def verdict(self, mark: str) -> str | None:
        """The verdict for ``mark``, or None when the mark is not in the map. A slashed mark
        the map does not list has its parts' verdict if they agree, else ``exclude``; None
        if a part is unknown."""
        mark = mark.strip()
        if mark in self.verdicts or "/" not in mark:
            return self.verdicts.get(mark)
        parts = {self.verdicts.get(part) if part else None for part in mark.split("/")}
        if None in parts:
            return None
        return parts.pop() if len(parts) == 1 else EXCLUDE

    def known(self) -> list[str]:
        return sorted(self.verdicts)
