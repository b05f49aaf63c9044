"""Extract's checks are ordered keep-or-reason rules: the first that names a reason decides,
and the side file records what that rule judged."""

from __future__ import annotations

from identity import rucola_categories

from rucola.corpus import schema
from rucola.corpus.extract import Extractor, _Collector
from rucola.corpus.extract_rules import EXAMPLE_RULES, variant_rules
from rucola.corpus.marks import leading_mark
from rucola.corpus.sources.records import RawExample
from rucola.settings import Extract


def example(text: str, **fields) -> RawExample:
    defaults = {"origin": "s.tsv:2", "raw": text, "mark": None, "error_type": None}
    return RawExample(text=text, source="Sample", **(defaults | fields))


def judge(*examples: RawExample, **settings) -> _Collector:
    extractor = Extractor(Extract(**settings), rucola_categories())
    collector = _Collector()
    for item in examples:
        extractor.add(item, collector)
    return collector


def reasons(collector: _Collector) -> list[tuple[str, str | None]]:
    return [(row["reason"], row["detail"]) for row in collector.rejected]


def test_the_rules_and_their_order():
    assert [rule.name for rule in EXAMPLE_RULES] == ["reader", "text_fault"]
    assert [rule.name for rule in Extractor(Extract(), rucola_categories()).text_rules] == [
        "mark_in_text",
        "empty",
    ]
    assert [rule.name for rule in variant_rules(keep_artefacts=False)] == [
        "mark",
        "empty_variant",
        "error_type_on_acceptable",
        "leading_mark",
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


# --- a judgment mark at the start of the text (issue 42) ---------------------------------


def judge_plain(*examples: RawExample, **settings) -> _Collector:
    """``judge`` on a sheet without categories (an Icelandic textbook's)."""
    return judge(*examples, require_error_type=False, **settings)


def test_a_mark_repeated_in_the_text_is_split_off_and_recorded():
    # an Icelandic sheet: the mark in its column and again in front of the text; extract
    # used to keep it flagged (or set it aside as an artefact) and validate refused it
    row = example("?*Lesið hafa strákarnir bækurnar.", mark="?*", origin="is.tsv:7")
    for artefacts in ("reject", "keep"):
        found = judge_plain(row, artefacts=artefacts)
        assert found.rejected == []
        [kept] = found.rows
        assert kept["sentence"] == "Lesið hafa strákarnir bækurnar."
        assert kept["mark"] == "?*" and kept["label"] == schema.UNACCEPTABLE
        assert kept["corrections"] == "repeated mark split off"
        assert kept["artefacts"] is None
        assert (found.repeated_marks.count, found.repeated_marks.examples) == (1, ["is.tsv:7"])


def test_a_mark_repeated_after_the_texts_own_is_split_off():
    found = judge_plain(example("* *Иван пришла."))
    assert [(r["sentence"], r["mark"], r["corrections"]) for r in found.rows] == [
        ("Иван пришла.", "*", "repeated mark split off")
    ]


def test_another_mark_in_the_text_sets_the_row_aside_with_both():
    found = judge_plain(example("?Lesið hafa strákarnir bækurnar.", mark="*"))
    assert reasons(found) == [("mark_in_text", "'?' in the text, '*' its mark")]
    assert found.rows == [] and found.rejected[0]["mark"] == "*"
    # a published label's row whose text starts with a mark its label did not come with
    found = judge_plain(example("*Мальчик спит.", mark="", label=schema.ACCEPTABLE))
    assert reasons(found) == [("mark_in_text", "'*' in the text, '' its mark")]


def test_a_mark_behind_an_invisible_character_is_the_texts_mark():
    found = judge_plain(example("\u200b*Иван пришла."))
    assert [(r["sentence"], r["label"]) for r in found.rows] == [
        ("Иван пришла.", schema.UNACCEPTABLE)
    ]
    # kept as read, the invisible character stays in front: no mark to split, none seen
    kept_as_read = judge_plain(example("\u200b*Иван пришла."), normalize=False, artefacts="keep")
    assert leading_mark(kept_as_read.rows[0]["sentence"]) is None


def test_slashed_marks_are_one_mark():
    # in front of the text: the whole of '*/??' is the mark, not '*' and a text '/??Lesið'
    found = judge_plain(example("*/??Lesið hafa strákarnir bækurnar."), artefacts="keep")
    [kept] = found.rows
    assert (kept["sentence"], kept["mark"], kept["label"]) == (
        "Lesið hafa strákarnir bækurnar.",
        "*/??",
        schema.UNACCEPTABLE,
    )
    assert kept["artefacts"] is None
    assert reasons(judge_plain(example("?/*Lesið hafa strákarnir bækurnar."))) == [
        ("excluded_mark", "?/*")
    ]
    # in a mark column beside a label: no contradiction, the label stays
    labelled = [
        example("Lesið hafa strákarnir bækurnar.", mark=mark, label=0, checks_mark=True)
        for mark in ("*/??", "?/*")
    ]
    found = judge_plain(*labelled, deduplicate=False)
    assert found.rejected == [] and [r["label"] for r in found.rows] == [0, 0]


def test_an_alternative_that_starts_with_a_mark_is_set_aside():
    found = judge_plain(example("(*в) *Он пришёл."), artefacts="keep")
    assert ("mark_in_text", "*") in reasons(found)
    assert all(leading_mark(row["sentence"]) is None for row in found.rows)
