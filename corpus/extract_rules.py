"""The keep-or-reason rules of the extract stage, in the order they apply.

An example read from a source is checked at three points, each by an ordered list of rules
(:class:`rucola.rules.ItemRule`; the first that names a reason sets the example, or one of
its variants, aside):

1. the example as read (:data:`EXAMPLE_RULES`): the reader's own verdict (an M2 sentence
   whose annotators disagree ...), then a control or other non-printing character
   (``control_character`` / ``non_printing_character``, the code points in ``detail``),
   before anything reads the text;
2. its text once the mark is split off and the text normalised: ``mark_in_text``
   (:class:`MarkInText`: another judgment mark at the start of the text), ``empty``
   (:class:`EmptyText`);
3. each variant of it (an alternation gives several; :func:`variant_rules`): the mark's
   verdict (``unknown_mark`` with ``extract.unknown_mark: reject``, ``excluded_mark``,
   ``mark_contradicts_label``: a published label and its row's mark disagree),
   ``empty``, ``error_type_on_acceptable`` (a category on the row itself while no variant
   is unacceptable), ``mark_in_text`` (an alternative that starts with a mark), then
   ``artefact:<kind>`` (with ``extract.artefacts: reject``).

A kept sentence never starts with a judgment mark (``corpus.marks.leading_mark``) and holds
the artefacts ``corpus.artefacts.detect`` finds in it, which validate reads with the same
functions (``validation.properties``).

Each rule says what the side file records of the example: the text it judged
(``records_text``), and the detail of its :class:`~rucola.rules.Reason`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from rucola.corpus import schema
from rucola.corpus.artefacts import detect
from rucola.corpus.marks import leading_mark
from rucola.corpus.normalize import text_fault
from rucola.corpus.sources.records import RawExample
from rucola.rules import ItemRule, Reason

ERROR_TYPE_ON_ACCEPTABLE = "error_type_on_acceptable"
# A published label and the mark beside it disagree (CoLA's one row labelled 0 without a
# mark): which one is right is the maintainer's call, so the row is kept by neither.
MARK_CONTRADICTS_LABEL = "mark_contradicts_label"
# A judgment mark at the start of the text besides the row's own (mark column ``*``, text
# ``?Foo``): which holds is the maintainer's call too.
MARK_IN_TEXT = "mark_in_text"


@dataclass
class Text:
    """An example's text after its mark is split off and the text normalised."""

    example: RawExample
    text: str
    mark: str
    # a judgment mark at the start of ``text`` other than ``mark`` (None: none there)
    other_mark: str | None = None


@dataclass
class Variant:
    """One sentence an example gives (itself, or one variant of an alternation)."""

    example: RawExample
    sentence: str
    mark: str
    label: int | str  # the label, or the reason the mark sets the variant aside
    error_type: str | None
    contradicted: bool  # a category on the row itself, but no variant is unacceptable

    @cached_property
    def artefacts(self) -> list[str]:
        """Extraction artefacts in the sentence (``corpus.artefacts``), found once."""
        return detect(self.sentence)


class ExampleRule(ItemRule[RawExample]):
    records_text = True  # the side file keeps the text as read


class ReaderVerdict(ExampleRule):
    """The reader already knows the example cannot be kept (annotators disagree ...)."""

    name = "reader"

    def check(self, item: RawExample) -> Reason | None:
        if item.set_aside is None:
            return None
        return Reason(item.set_aside, item.set_aside_detail)


@dataclass
class TextFault(ExampleRule):
    """A control or non-printing character is never part of a sentence, also when the
    text is kept as read (``extract.normalize: false``); ``language`` (``corpus.language``)
    says which format characters spell its words (``corpus.normalize``). A directional
    mark is none: normalisation removes it, and a text kept as read keeps it."""

    language: str = "ru"
    name: str = "text_fault"

    def check(self, item: RawExample) -> Reason | None:
        fault = text_fault(item.text, self.language)
        return None if fault is None else Reason(*fault)


def example_rules(language: str = "ru") -> list[ExampleRule]:
    """The rules every example as read passes, in order, for ``language``."""
    return [ReaderVerdict(), TextFault(language)]


EXAMPLE_RULES: list[ExampleRule] = example_rules()


class MarkInText(ItemRule[Text]):
    """The text starts with a judgment mark other than the row's own: the label would
    follow one mark while the sentence shows another, and validate refuses a sentence that
    starts with a mark; ``detail`` names both."""

    name = MARK_IN_TEXT
    records_text = False

    def check(self, item: Text) -> Reason | None:
        if item.other_mark is None:
            return None
        return Reason(MARK_IN_TEXT, f"'{item.other_mark}' in the text, '{item.mark}' its mark")


class EmptyText(ItemRule[Text]):
    """Nothing left once the mark is split off and the text normalised."""

    name = "empty"
    records_text = False

    def check(self, item: Text) -> Reason | None:
        return None if item.text.strip() else Reason("empty")


class VariantRule(ItemRule[Variant]):
    records_text = True


class MarkVerdict(VariantRule):
    """The mark gives no label: unknown (``extract.unknown_mark: reject``) or excluded;
    ``detail`` is the mark."""

    name = "mark"

    def check(self, item: Variant) -> Reason | None:
        if isinstance(item.label, str):
            return Reason(item.label, item.mark)
        return None


class EmptyVariant(VariantRule):
    """An alternation variant with no words left."""

    name = "empty_variant"
    records_text = False

    def check(self, item: Variant) -> Reason | None:
        return None if item.sentence else Reason("empty")


class ErrorTypeOnAcceptable(VariantRule):
    """``!!`` is no judgment mark, so ``!!Мальчик читают книгу.`` with ``Morphology``
    would otherwise become an acceptable row and lose its category without a word; the
    detail names the category."""

    name = ERROR_TYPE_ON_ACCEPTABLE

    def check(self, item: Variant) -> Reason | None:
        if item.contradicted and item.label == schema.ACCEPTABLE:
            return Reason(ERROR_TYPE_ON_ACCEPTABLE, item.error_type)
        return None


class LeadingMark(VariantRule):
    """An alternative that starts with a judgment mark once its parenthesis is expanded
    (``(*в) *Foo``): no kept sentence starts with one; ``detail`` is the mark."""

    name = "leading_mark"

    def check(self, item: Variant) -> Reason | None:
        found = leading_mark(item.sentence)
        return None if found is None else Reason(MARK_IN_TEXT, found)


@dataclass
class Artefacts(VariantRule):
    """Extraction artefacts: set aside as ``artefact:<first kind>`` (every kind in
    ``detail``), or kept and flagged; every variant found is listed for the report."""

    keep: bool
    found: list[dict[str, Any]] = field(default_factory=list)
    name: str = "artefacts"

    def check(self, item: Variant) -> Reason | None:
        kinds = item.artefacts
        if not kinds:
            return None
        self.found.append(
            {
                "origin": item.example.origin,
                "kinds": kinds,
                "sentence": item.sentence,
                "action": "kept" if self.keep else "set_aside",
            }
        )
        return None if self.keep else Reason(f"artefact:{kinds[0]}", ",".join(kinds))


def variant_rules(keep_artefacts: bool) -> list[VariantRule]:
    """The rules every variant passes, in order (the module doc)."""
    return [
        MarkVerdict(),
        EmptyVariant(),
        ErrorTypeOnAcceptable(),
        LeadingMark(),
        Artefacts(keep_artefacts),
    ]
