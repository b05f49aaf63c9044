"""The record every source reader yields, in a module of its own so that the readers and
the package that dispatches to them import it without importing each other."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rucola.settings import IN_DOMAIN


@dataclass
class RawExample:
    """One printed example before judgment marks are interpreted."""

    origin: str  # FILE:LINE
    raw: str  # the line (or record) as read
    text: str  # the sentence, possibly still with its leading mark
    mark: str | None  # the mark from a mark column; None: look at the start of ``text``
    error_type: str | None
    source: str | None  # None only for an unlabelled published test row
    domain: str | None = IN_DOMAIN  # None only for an unlabelled published test row
    label: int | None = None  # preset by formats that carry labels (published RuCoLA)
    expand: bool = True  # whether alternations may be expanded
    provenance: dict[str, Any] = field(default_factory=dict)
    published_id: int | None = None  # a published release's row keeps its id ...
    published_split: str | None = None  # ... and its split
    # True when ``error_type`` comes from a list's ``# error_type:`` directive, which
    # names the category of the section's unacceptable examples: an acceptable example
    # under it is no contradiction. An error type given on the row itself is one.
    error_type_from_section: bool = False
    # Set when the reader already knows the example cannot be kept (an M2 sentence whose
    # annotators disagree): extract sets it aside with this reason, counted like any other.
    set_aside: str | None = None
    set_aside_detail: str | None = None
