"""The record every source reader yields and the class every reader is, in a module of its
own so that the readers and the package that dispatches to them import it without importing
each other."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from rucola.settings import Categories, Extract, ExtractSource

from rucola.errors import RucolaError
from rucola.settings import IN_DOMAIN

# A published id is stored as a 64-bit integer (``published_id``, ``int64``): one past this
# range would end in an OverflowError when the rows are written, far from its line.
ID_RANGE = range(-(2**63), 2**63)


def read_id(cell: str, path: str | Path, line: int, column: str = "") -> int:
    """A published id cell as an integer; one that is no integer, or that a 64-bit integer
    cannot hold, is one line naming the file, the line and (``column``) its column."""
    value = cell.strip()
    where = f" in column {column}" if column else ""
    try:
        number = int(value)
    except ValueError:
        raise RucolaError(f"id '{value}'{where} is not an integer", path, line) from None
    if number not in ID_RANGE:
        raise RucolaError(
            f"id '{value}'{where} is out of range: ids are 64-bit integers, from "
            f"{ID_RANGE.start} to {ID_RANGE.stop - 1}",
            path,
            line,
        )
    return number


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
    # True when a mark column stands beside a label column (a labelled table): a mark whose
    # verdict contradicts the label sets the row aside. Without it, only a mark found in
    # front of the text is checked against a label (an empty one says nothing).
    checks_mark: bool = False
    # Set when the reader already knows the example cannot be kept (an M2 sentence whose
    # annotators disagree): extract sets it aside with this reason, counted like any other.
    set_aside: str | None = None
    set_aside_detail: str | None = None


# What a format carries: a label per row (1/0), or a judgment mark (``*``, ``?``...) that
# ``extract.marks`` turns into one.
LABELS, MARKS = "labels", "marks"


class SourceReader:
    """One input format of ``extract.sources``, registered under its ``type``
    (``@SOURCE_READERS.register`` in a module of ``corpus.sources.formats``).

    ``extensions``: the files it reads when a source gives no ``type`` (none: only when
    named); ``carries``: ``labels``, ``marks`` or both; ``example``: a small valid file of
    the format (``example_name`` is its file name), which the contract tests
    (tests/guarantees/test_guard_source_readers.py) read, break and check, so a new reader
    meets them without a test of its own. One instance reads every file of its type in a
    run of ``extract`` (``settings``: the stage's section; ``categories``:
    ``corpus.categories``), and may add to its report."""

    name: ClassVar[str]
    extensions: ClassVar[tuple[str, ...]] = ()
    carries: ClassVar[frozenset[str]]
    # whether it reads a table's layout keys (``columns``, ``labels``, ``header`` ...:
    # ``corpus.sources.tables``); a source giving them to another reader is an error
    tabular: ClassVar[bool] = False
    example: ClassVar[str]
    example_name: ClassVar[str]

    def __init__(self, settings: Extract, categories: Categories) -> None:
        self.settings = settings
        self.categories = categories

    def read(self, path: Path, source: ExtractSource) -> Iterator[RawExample]:
        """The examples of one file, each with its origin (FILE:LINE)."""
        raise NotImplementedError

    def report(self) -> dict[str, Any]:
        """What this reader adds to extract's private report (none by default)."""
        return {}
