from rucola.corpus.alternations import expand
from rucola.corpus.marks import MarkMap, split_leading_mark
from rucola.params import DEFAULT_MARKS


def test_split_leading_mark():
    assert split_leading_mark("*?Иван пришла.") == ("*?", "Иван пришла.")
    assert split_leading_mark("  ** Он спал.") == ("**", "Он спал.")
    assert split_leading_mark("Он спал.") == ("", "Он спал.")


def test_a_slashed_mark_is_one_mark():
    assert split_leading_mark("*/??Lesið hafa strákarnir.") == ("*/??", "Lesið hafa strákarnir.")
    assert split_leading_mark("?/* Er kam.") == ("?/*", "Er kam.")
    assert split_leading_mark("*/Er kam.") == ("*", "/Er kam.")  # no mark after the slash


def test_a_slashed_mark_takes_its_parts_verdict_unless_listed():
    marks = MarkMap.from_params(DEFAULT_MARKS)
    assert marks.verdict("*/??") == "unacceptable"  # both parts unacceptable
    assert marks.verdict("?/*") == "exclude"  # the parts disagree
    assert marks.verdict("*/@") is None and marks.verdict("*/") is None
    listed = MarkMap.from_params({**DEFAULT_MARKS, "?/*": "unacceptable"})
    assert listed.verdict("?/*") == "unacceptable"


def test_default_mark_map():
    marks = MarkMap.from_params(DEFAULT_MARKS)
    assert marks.verdict("") == "acceptable"
    for mark in ["*", "*?", "?*", "??", "**"]:
        assert marks.verdict(mark) == "unacceptable"
    for mark in ["?", "#", "%"]:
        assert marks.verdict(mark) == "exclude"
    assert marks.verdict("*??") is None


def test_starred_parenthesis_gives_two_variants():
    variants = expand("Betsy buttered (*at) the toast.")
    assert [(v.text, v.mark) for v in variants] == [
        ("Betsy buttered the toast.", ""),
        ("Betsy buttered at the toast.", "*"),
    ]


def test_slash_alternatives_keep_their_marks():
    variants = expand("Она (пришла/*пришли/?пришло) вовремя.")
    assert [(v.text, v.mark) for v in variants] == [
        ("Она пришла вовремя.", ""),
        ("Она пришли вовремя.", "*"),
        ("Она пришло вовремя.", "?"),
    ]


def test_plain_parenthesis_is_text():
    assert expand("Он (как обычно) опоздал.") is None


def test_a_slash_between_no_letters_is_text():
    # a fraction is no alternation: expanding it rewrote the sentence into '1' and '5%'
    assert expand("Ему дают 1/4 фунта (1/5%) хлеба.") is None
    assert expand("Цена (10/20 рублей) растёт.") is None
    assert [v.text for v in expand("太郎が学校(に/で)行った。")] == [
        "太郎が学校に行った。",
        "太郎が学校で行った。",
    ]


def test_two_alternations_multiply():
    variants = expand("Мы (*в) домой (пришли/*пришла).")
    assert len(variants) == 4
    assert [v.mark for v in variants] == ["", "*", "*", "*"]
    assert variants[0].text == "Мы домой пришли."
