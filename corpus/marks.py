"""Judgment marks: how a printed mark maps to a label.

The map comes from ``extract.marks`` so a project can follow its own conventions (CoLA and
RuCoLA exclude ``?``; others may not).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ACCEPTABLE = "acceptable"
UNACCEPTABLE = "unacceptable"
EXCLUDE = "exclude"

# A judgment mark is a run of these characters in front of the sentence.
MARK_CHARS = "*?#%"
_LEADING_MARK = re.compile(rf"^\s*([{re.escape(MARK_CHARS)}]+)\s*")


def split_leading_mark(text: str) -> tuple[str, str]:
    """Split ``'*?Иван пришла.'`` into ``('*?', 'Иван пришла.')``; no mark gives ``''``."""
    match = _LEADING_MARK.match(text)
    if not match:
        return "", text.strip()
    return match.group(1), text[match.end() :].strip()


@dataclass(frozen=True)
class MarkMap:
    """Printed mark -> verdict (``acceptable``, ``unacceptable`` or ``exclude``)."""

    verdicts: dict[str, str]

    @classmethod
    def from_params(cls, marks: dict[str, str]) -> MarkMap:
        """``extract.marks`` (its verdicts are the schema's), keyed by the stripped mark."""
        return cls({"" if mark is None else str(mark).strip(): v for mark, v in marks.items()})

    def verdict(self, mark: str) -> str | None:
        """The verdict for ``mark``, or None when the mark is not in the map."""
        return self.verdicts.get(mark.strip())

    def known(self) -> list[str]:
        return sorted(self.verdicts)
