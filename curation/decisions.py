"""From reviewers' answers to errata: a change needs a majority of a task's reviewers.

A published row changes only when more than half of the reviewers who answered its task
chose the same decision (one expert alone is a majority of one); a tie or a split vote is
*undecided*: listed for the maintainer, never applied, because an erratum overrides what
was published and the crowd's judgment. What the decision changes must have the same
majority behind it:

- ``fix text``: the same corrected sentence (compared whitespace-normalised) from more
  than half of the task's reviewers: two reviewers agreeing that a typo is there but
  writing different corrections have not agreed on a text;
- ``change category``: the same category from more than half of the task's reviewers;
- ``relabel`` flips the label; a relabel to unacceptable also needs a category (every
  unacceptable row has one), the one more than half of the relabelling reviewers chose;
- ``remove`` sets the row aside; ``keep`` changes nothing.

A decision the split stage would refuse (``corpus.errata``) is undecided with the reason,
rather than an errata file the next build fails on: a relabel of an unlabelled test row, a
category on an acceptable row, no category on an unacceptable one, a relabel to 0 keeping
the category the row has (the split takes neither an erratum that changes nothing nor a
relabel to 0 without a category), a text that is the sentence once normalised or holds
nothing but invisible characters, and a cell (the corrected text, the reason, the old
value) holding what no errata cell may: a control (C0, DEL, C1; ESC starts a terminal
escape), a line or paragraph separator, or what ``corpus.normalize`` calls unprintable
(bidi overrides, isolates and marks, U+061C, private use, unassigned). ``refuse`` makes an
outcome undecided for what only the caller can see (``review``: a row not in the audit
queue). Each erratum carries the row's value as exported (``old``), so a build whose row
has changed since refuses it as stale.

The reason is the comments of the reviewers who made the decision (deduplicated, joined by
``; `` in reviewer order), or ``review: <decision> by N of M`` when none wrote one.
"""

from __future__ import annotations

import csv
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from rucola.corpus.normalize import DIRECTIONAL_MARKS, describe, is_unprintable, normalize_text
from rucola.corpus.schema import UNACCEPTABLE
from rucola.curation.review_answers import Answer, ReviewTask
from rucola.curation.review_config import (
    DECISIONS,
    FIX_TEXT,
    KEEP,
    NO_CATEGORY,
    RECATEGORISE,
    RELABEL,
    REMOVE,
)

ERRATA_COLUMNS = ["split", "domain", "id", "field", "new", "reason", "old"]
Status = Literal["erratum", "keep", "unchanged", "undecided", "unreviewed"]
# Besides what corpus.normalize calls unprintable, what no errata cell may hold: controls
# (Cc; tab, line feed and the rest too), line and paragraph separators.
_REFUSED_CATEGORIES = frozenset({"Cc", "Zl", "Zp"})


@dataclass(frozen=True)
class Erratum:
    """One row of the errata CSV (``extract.errata``)."""

    split: str
    domain: str
    id: int
    field: str  # label | error_type | sentence | remove
    new: str
    reason: str
    old: str

    def row(self) -> list[str]:
        return [self.split, self.domain, str(self.id), self.field, self.new, self.reason, self.old]


@dataclass(frozen=True)
class Outcome:
    """What the review made of one task."""

    task: ReviewTask
    status: Status
    decision: str | None  # the majority's decision (None: none, or nobody answered)
    why: str  # "relabel by 2 of 3", or why the task is undecided
    errata: tuple[Erratum, ...] = ()


def refused_characters(text: str) -> list[str]:
    """The distinct characters of ``text`` no cell of an errata file may hold, in order."""
    return [
        c
        for c in dict.fromkeys(text)
        if unicodedata.category(c) in _REFUSED_CATEGORIES
        or is_unprintable(c)
        or c in DIRECTIONAL_MARKS  # as the split stage refuses them in an errata cell
    ]


def cell_fault(erratum: Erratum) -> str | None:
    """Why the split stage would refuse a cell of ``erratum`` as written, or None."""
    cells = (
        ("new", "the corrected text" if erratum.field == "sentence" else "the new value"),
        ("reason", "the reason (the deciding reviewers' comments)"),
        ("old", "the row's exported value"),
    )
    for name, what in cells:
        value = getattr(erratum, name)
        found = refused_characters(value)
        if found:
            return f"{what} holds {', '.join(describe(c) for c in found)}"
        if len(value) > csv.field_size_limit():
            return f"{what} is longer than {csv.field_size_limit()} characters"
    return None


def refuse(outcome: Outcome, why: str) -> Outcome:
    """``outcome`` undecided: its errata are ones the split stage would refuse, ``why``."""
    return Outcome(outcome.task, "undecided", outcome.decision, f"{outcome.why}, but {why}")


def tally(answers: Iterable[Answer]) -> str:
    """``keep 1, relabel 1``: the decisions in the configuration's order."""
    counts = Counter(a.decision for a in answers)
    return ", ".join(f"{d} {counts[d]}" for d in DECISIONS if counts[d])


def majority(values: Iterable[str], of: int) -> tuple[str, int] | None:
    """The value more than half of ``of`` voters gave, and its count; None if none did."""
    counts = Counter(values)
    for value, count in counts.most_common(1):
        if 2 * count > of:
            return value, count
    return None


def _counts(values: Iterable[str]) -> str:
    counts = Counter(values)
    return ", ".join(f"{v!r} {n}" for v, n in sorted(counts.items(), key=lambda c: (-c[1], c[0])))


def reason(answers: Iterable[Answer], decision: str, n: int, m: int) -> str:
    """The comments of the reviewers who made the decision, or where the decision came from."""
    comments = list(dict.fromkeys(a.comment for a in answers if a.comment))
    return "; ".join(comments) if comments else f"review: {decision} by {n} of {m}"


@dataclass(frozen=True)
class Decided:
    """A decision a majority of the task's reviewers made, to be turned into an outcome by
    its handler: ``voters`` are the reviewers who made it, ``n`` of ``m``; ``language``
    (``corpus.language``) normalises a corrected text as the split stage will."""

    task: ReviewTask
    decision: str
    voters: list[Answer]
    n: int
    m: int
    language: str = "ru"

    @property
    def by(self) -> str:
        return f"{self.decision} by {self.n} of {self.m}"

    @property
    def category(self) -> str:
        return self.task.error_type or ""

    def undecided(self, why: str) -> Outcome:
        return Outcome(self.task, "undecided", self.decision, f"{self.by}, but {why}")

    def unchanged(self, what: str) -> Outcome:
        return Outcome(self.task, "unchanged", self.decision, f"{self.by}: {what}")

    def changed(self, *fields: tuple[str, str, str]) -> Outcome:
        """The errata (field, new, old) of the decision, or undecided if one is refused."""
        task = self.task
        text = reason(self.voters, self.decision, self.n, self.m)
        errata = tuple(
            Erratum(task.split, task.domain or "", task.id, field, new, text, old)
            for field, new, old in fields
        )
        faults = [f for f in map(cell_fault, errata) if f is not None]
        if faults:
            return self.undecided(faults[0])
        return Outcome(task, "erratum", self.decision, self.by, errata)


def _keep(d: Decided) -> Outcome:
    return Outcome(d.task, "keep", d.decision, d.by)


def _remove(d: Decided) -> Outcome:
    return d.changed(("remove", "", d.task.sentence))


def _fix_text(d: Decided) -> Outcome:
    # a text of invisible characters only is none: the split's normalisation empties it
    written = [a.text for a in d.voters if normalize_text(a.text, d.language)]
    text = majority(written, d.m)
    if text is None:
        if not written:
            return d.undecided("no corrected text was written")
        return d.undecided(f"no text from a majority of {d.m} ({_counts(written)})")
    if normalize_text(text[0], d.language) == normalize_text(d.task.sentence, d.language):
        return d.unchanged("the text is the sentence as is")
    return d.changed(("sentence", text[0], d.task.sentence))


def _recategorise(d: Decided) -> Outcome:
    if d.task.label != UNACCEPTABLE:
        return d.undecided(
            f"the row's label is {d.task.label}: only an unacceptable row has a category "
            "(relabel it instead)"
        )
    categories = [a.category for a in d.voters if a.category]
    category = majority(categories, d.m)
    if category is None:
        shown = _counts(categories) if categories else "none chosen"
        return d.undecided(f"no category from a majority of {d.m} ({shown})")
    if category[0] == NO_CATEGORY:
        return d.undecided("an unacceptable row needs a category (relabel it to 1 instead)")
    if category[0] == d.category:
        return d.unchanged(f"the category is {category[0]}")
    return d.changed(("error_type", category[0], d.category))


def _relabel(d: Decided) -> Outcome:
    if d.task.label not in (0, 1):
        return d.undecided("the row has no label to flip (a test row without gold)")
    if d.task.label == UNACCEPTABLE:
        return d.changed(("label", "1", "0"))
    categories = [a.category for a in d.voters if a.category and a.category != NO_CATEGORY]
    category = majority(categories, d.n)
    if category is None:
        shown = _counts(categories) if categories else "none chosen"
        return d.undecided(
            f"a relabel to 0 needs a category from a majority of the {d.n} relabelling "
            f"reviewers ({shown})"
        )
    if category[0] == d.category:  # the split refuses an erratum that changes nothing
        return d.undecided(
            f"the row already has category {d.category}, and the split takes neither "
            "an error_type erratum that changes nothing nor a relabel to 0 without one"
        )
    return d.changed(("label", "0", "1"), ("error_type", category[0], d.category))


# One handler per decision a reviewer can make.
HANDLERS: dict[str, Callable[[Decided], Outcome]] = {
    KEEP: _keep,
    REMOVE: _remove,
    FIX_TEXT: _fix_text,
    RECATEGORISE: _recategorise,
    RELABEL: _relabel,
}


def decide(task: ReviewTask, language: str = "ru") -> Outcome:
    """The outcome of one task (see the module docstring): none without answers, undecided
    without a majority, else what the handler of the majority's decision makes of it;
    ``language``: ``corpus.language``."""
    m = len(task.answers)
    if m == 0:
        return Outcome(task, "unreviewed", None, "no answer yet")
    found = majority((a.decision for a in task.answers), m)
    if found is None:
        top = Counter(a.decision for a in task.answers).most_common(2)
        kind = "a tie" if len(top) == 2 and top[0][1] == top[1][1] else "a split decision"
        return Outcome(task, "undecided", None, f"{kind}: {tally(task.answers)}")
    decision, n = found
    voters = [a for a in task.answers if a.decision == decision]
    return HANDLERS[decision](Decided(task, decision, voters, n, m, language))
