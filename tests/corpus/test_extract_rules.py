"""Extract's checks are ordered keep-or-reason rules: the first that names a reason decides,
and the side file records what that rule judged."""

from __future__ import annotations

from rucola.corpus import schema
from rucola.corpus.extract import Extractor, _Collector
from rucola.corpus.extract_rules import EXAMPLE_RULES, EmptyText, variant_rules
from rucola.corpus.sources.records import RawExample
from rucola.settings import Categories, Extract


def example(text: str, **fields) -> RawExample:
    defaults = {"origin": "s.tsv:2", "raw": text, "mark": None, "error_type": None}
    return RawExample(text=text, source="Sample", **(defaults | fields))


def judge(*examples: RawExample, **settings) -> _Collector:
    extractor = Extractor(Extract(**settings), Categories())
    collector = _Collector()
    for item in examples:
        extractor.add(item, collector)
    return collector


def reasons(collector: _Collector) -> list[tuple[str, str | None]]:
    return [(row["reason"], row["detail"]) for row in collector.rejected]


def test_the_rules_and_their_order():
    assert [rule.name for rule in EXAMPLE_RULES] == ["reader", "text_fault"]
    assert EmptyText.name == "empty"
    assert [rule.name for rule in variant_rules(keep_artefacts=False)] == [
        "mark",
        "empty_variant",
        "error_type_on_acceptable",
        "artefacts",
    ]


def test_the_readers_verdict_comes_before_the_text():
    # a control character too, but the reader already set the example aside
    found = judge(example("Он\x07 пришёл.", set_aside="annotators_disagree", set_aside_detail="2"))
    assert reasons(found) == [("annotators_disagree", "2")]
    assert found.rejected[0]["sentence"] == "Он\x07 пришёл."  # the text as read


def test_a_control_character_comes_before_the_mark():
    found = judge(example("@@Он\x07 пришёл."), unknown_mark="error")  # no mark error either
    assert reasons(found) == [("control_character", "U+0007 BEL")]


def test_an_empty_text_keeps_its_mark_and_no_sentence():
    found = judge(example("*   "))
    assert reasons(found) == [("empty", None)]
    assert found.rejected[0]["mark"] == "*" and found.rejected[0]["sentence"] is None


def test_the_mark_comes_before_artefacts_and_categories():
    # excluded (?), with an artefact inside and a category on an acceptable-less row
    found = judge(example("?Он [не] пришёл.", error_type="Syntax"))
    assert reasons(found) == [("excluded_mark", "?")]
    assert found.rejected[0]["label"] is None


def test_a_category_on_an_acceptable_row_comes_before_artefacts():
    found = judge(example("Он [не] пришёл.", error_type="Syntax"))
    assert reasons(found) == [("error_type_on_acceptable", "Syntax")]
    assert found.rejected[0]["label"] == schema.ACCEPTABLE


def test_artefacts_are_set_aside_or_kept_and_always_listed():
    found = judge(example("Он [не] пришёл."))
    assert reasons(found) == [("artefact:editorial_bracket", "editorial_bracket")]
    kept = judge(example("Он [не] пришёл."), artefacts="keep")
    assert kept.rejected == [] and kept.rows[0]["artefacts"] == "editorial_bracket"
