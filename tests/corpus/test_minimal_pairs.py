"""M2 sentences to minimal pairs: hand-written blocks give exactly the expected rows, and
applying an annotator's edits reproduces that annotator's correction (a seeded property)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from identity import rucola_categories

from rucola.corpus.learner import EditTypes, MinimalPairs, apply_edits, overlap, read_pairs
from rucola.corpus.sources.m2 import Edit, read_m2
from rucola.errors import RucolaError
from rucola.settings import LEARNER, ExtractM2

ERROR_TYPES = rucola_categories().of(LEARNER)  # the learner rows' categories (corpus.categories)


def pairs(**params) -> MinimalPairs:
    return MinimalPairs(ExtractM2(**params), ERROR_TYPES)


def rows(tmp_path: Path, text: str, maker: MinimalPairs | None = None) -> list[tuple]:
    """(sentence, label, error_type, set_aside) of every example the file gives."""
    path = tmp_path / "c.m2"
    path.write_text(text, encoding="utf-8")
    maker = maker or pairs()
    return [
        (e.text, e.label, e.error_type, e.set_aside)
        for e in read_pairs(path, "Corpus", maker, "utf-8")
    ]


def edit(span: str, kind: str, correction: str, annotator: int = 0) -> str:
    return f"A {span}|||{kind}|||{correction}|||REQUIRED|||-NONE-|||{annotator}\n"


S = "S Мой друг всегда помогают мне с уроками .\n"
RIGHT = "Мой друг всегда помогает мне с уроками."
WRONG = "Мой друг всегда помогают мне с уроками."


def test_one_annotator_one_grammatical_edit_is_a_pair(tmp_path):
    assert rows(tmp_path, S + edit("3 4", "G:VERB:P/N/G", "помогает")) == [
        (RIGHT, 1, None, None),
        (WRONG, 0, "Morphology", None),
    ]


def test_ignored_edits_are_applied_on_both_sides(tmp_path):
    text = (
        "S мой друк всегда помогают мне с уроками\n"
        + edit("0 1", "S:LETTER:CASE", "Мой")
        + edit("1 2", "S:ORTH", "друг")
        + edit("3 4", "G:VERB:P/N/G", "помогает")
        + edit("7 7", "PUNCT", ".")
    )
    assert rows(tmp_path, text) == [(RIGHT, 1, None, None), (WRONG, 0, "Morphology", None)]


def test_noop_no_edits_and_ignored_only_give_one_acceptable_row(tmp_path):
    text = (
        S
        + "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n\n"
        + "S Всё хорошо .\n\n"
        + "S Я согласен с мнениим автора что природу нужно беречь .\n"
        + edit("3 4", "S:ORTH", "мнением")
        + edit("5 5", "PUNCT", ",")
    )
    maker = pairs()
    assert rows(tmp_path, text, maker) == [
        (WRONG, 1, None, None),
        ("Всё хорошо.", 1, None, None),
        ("Я согласен с мнением автора, что природу нужно беречь.", 1, None, None),
    ]
    report = maker.report()
    assert report["sentences"] == 3 and report["pairs"] == 0
    assert report["unchanged"] == 2 and report["ignored_only"] == 1


def test_insertions_deletions_and_a_longer_span(tmp_path):
    text = (
        "S Мне кажется , автор прав , что надо беречь природу природу .\n"
        + edit("2 2", "LACK", "что")  # an insertion before the replacement at the same point
        + edit("2 3", "PUNCT", ",")
        + edit("5 7", "L:CONSTR", ": нужно")
        + edit("9 10", "L:REP", "")  # a deletion, ignored
    )
    assert rows(tmp_path, text) == [
        ("Мне кажется что, автор прав: нужно надо беречь природу.", 1, None, None),
        ("Мне кажется, автор прав, что надо беречь природу.", 0, "Syntax", None),
    ]


def test_most_frequent_category_and_a_tie_by_the_order_of_error_types(tmp_path):
    text = (
        "S Ребята решил помочь в пожилым соседям .\n"
        + edit("1 2", "G:VERB:P/N/G", "решили")
        + edit("3 4", "G:PREP:WRONG", "")
        + "\nS Ребята решил помочь в пожилым соседям .\n"
        + edit("1 2", "G:VERB:P/N/G", "решили")
        + edit("3 4", "G:PREP:WRONG", "")
        + edit("4 5", "L:OTHER", "старым")
        + edit("5 6", "D:ORDER", "соседям")
    )
    maker = pairs()
    out = rows(tmp_path, text, maker)
    assert out[1] == ("Ребята решил помочь в пожилым соседям.", 0, "Morphology", None)  # tie
    assert out[3] == ("Ребята решил помочь в пожилым соседям.", 0, "Syntax", None)  # 2 of 4
    assert maker.report()["error_type_ties"] == 1


def test_three_annotators_identical_rows_merge_and_differing_ones_stay(tmp_path):
    text = (
        "S Эти события произошло давно .\n"
        + edit("2 3", "G:VERB:P/N/G", "произошли", 0)
        + edit("2 3", "G:VERB:P/N/G", "произошли", 1)
        + edit("0 2", "G:NOUN:NUM", "Это событие", 2)
    )
    path = tmp_path / "c.m2"
    path.write_text(text, encoding="utf-8")
    examples = list(read_pairs(path, "Corpus", pairs(), "utf-8"))
    assert [(e.text, e.label, e.error_type) for e in examples] == [
        ("Эти события произошли давно.", 1, None),
        ("Эти события произошло давно.", 0, "Morphology"),
        ("Это событие произошло давно.", 1, None),
    ]
    assert examples[0].provenance["annotators"] == ["0", "1"]
    assert examples[1].provenance == {
        "annotators": ["0", "1", "2"],
        "edit_types": ["G:NOUN:NUM", "G:VERB:P/N/G"],
    }
    assert {e.origin for e in examples} == {f"{path}:1"}  # one sentence: one split group
    assert {e.domain for e in examples} == {"learner"} and {e.mark for e in examples} == {""}


def test_noop_against_a_grammatical_correction_is_set_aside(tmp_path):
    text = (
        "S Я скучаю по вас .\n"
        + "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n"
        + edit("3 4", "G:PRON:FORM", "вам", 1)
        + edit("3 4", "G:PRON:FORM", "вам", 2)
    )
    assert rows(tmp_path, text) == [
        ("Я скучаю по вас.", None, None, "annotators_disagree"),
        ("Я скучаю по вам.", 1, None, None),
        ("Я скучаю по вас.", None, None, "annotators_disagree"),
    ]


def test_overlapping_edits_set_that_annotator_aside(tmp_path):
    text = (
        S
        + edit("2 4", "D:ORDER", "помогают всегда", 0)
        + edit("3 5", "G:VERB:P/N/G", "помогает мне", 0)
        + edit("3 4", "G:VERB:P/N/G", "помогает", 1)
    )
    assert rows(tmp_path, text) == [
        (RIGHT, 1, None, None),
        (WRONG, 0, "Morphology", None),
        (WRONG, None, None, "overlapping_edits"),
    ]


def test_single_edit_pairs_isolate_each_error(tmp_path):
    text = (
        "S Ребята решил помочь в пожилым соседям .\n"
        + edit("1 2", "G:VERB:P/N/G", "решили")
        + edit("3 4", "G:PREP:WRONG", "")
    )
    maker = pairs(single_edit_pairs=True)
    out = rows(tmp_path, text, maker)
    assert out == [
        ("Ребята решили помочь пожилым соседям.", 1, None, None),
        ("Ребята решил помочь в пожилым соседям.", 0, "Morphology", None),
        ("Ребята решил помочь пожилым соседям.", 0, "Morphology", None),
        ("Ребята решили помочь в пожилым соседям.", 0, "Syntax", None),
    ]
    assert maker.report()["pairs"] == 3 and maker.report()["single_edit_pairs"] == 2


def test_a_grammatical_edit_that_changes_nothing_makes_no_pair(tmp_path):
    """A token 'corrected' to itself: acceptable and unacceptable would be one text."""
    text = S + edit("3 4", "G:VERB:P/N/G", "помогают") + edit("7 8", "PUNCT", "!")
    maker = pairs(single_edit_pairs=True)
    assert rows(tmp_path, text, maker) == [(WRONG[:-1] + "!", 1, None, None)]
    assert maker.report()["grammar_unseen"] == 1 and maker.report()["pairs"] == 0


def test_the_report(tmp_path):
    text = (
        S
        + edit("3 4", "G:VERB:P/N/G", "помогает", 0)
        + edit("7 8", "PUNCT", "!", 0)
        + "A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1\n\n"
        + "S Всё хорошо .\n"
    )
    maker = pairs()
    assert [r[3] for r in rows(tmp_path, text, maker)] == [None, None, None, None]
    assert maker.report() == {
        "sentences": 2,
        "annotations": 2,  # annotator corrections; a block without A lines has none
        "unchanged": 2,
        "ignored_only": 0,
        "grammar_unseen": 0,
        "pairs": 1,
        "single_edit_pairs": 0,
        "error_type_ties": 0,
        "error_types": {"Morphology": 1},
        "edits_by_category": {"Morphology": 1, "ignored": 1},
        "edits_by_type": {"G:VERB:P/N/G": 1, "PUNCT": 1},
    }


def _edit(start: int, end: int, *words: str, line: int = 0) -> Edit:
    return Edit(start, end, "G:X", words, "0", line)


def test_insertions_come_before_a_replacement_and_in_file_order():
    tokens = ["a", "b", "c"]
    edits = [_edit(1, 2, "B"), _edit(1, 1, "x"), _edit(1, 1, "y"), _edit(2, 2, "z")]
    assert apply_edits(tokens, edits) == ["a", "x", "y", "B", "z", "c"]
    assert overlap(edits) is None
    assert apply_edits(tokens, [_edit(0, 3)]) == []  # a deletion of everything


@pytest.mark.parametrize(
    "spans",
    [[(0, 2), (1, 3)], [(0, 3), (1, 1)], [(1, 2), (1, 2, "other")], [(0, 3), (1, 2)]],
)
def test_edits_that_share_a_token_overlap(spans):
    edits = [_edit(s[0], s[1], *s[2:], line=i) for i, s in enumerate(spans)]
    assert overlap(edits) is not None


def test_a_line_written_twice_counts_once_and_an_inserted_point_overlaps(tmp_path):
    text = (
        S
        + edit("7 7", "LACK", "сегодня")
        + edit("7 7", "LACK", "сегодня")  # the same edit twice: inserted once
        + "\n"
        + S
        + edit("2 5", "L:CONSTR", "помогает мне")
        + edit("3 3", "LACK", "всегда")  # inside the replaced span
    )
    assert rows(tmp_path, text) == [
        ("Мой друг всегда помогают мне с уроками сегодня.", 1, None, None),
        (WRONG, 0, "Syntax", None),
        (WRONG, None, None, "overlapping_edits"),
    ]


def test_unknown_types_stop_or_set_the_sentence_aside(tmp_path):
    text = S + edit("3 4", "Глагол:Число/Лицо", "помогает")
    with pytest.raises(RucolaError) as caught:
        rows(tmp_path, text)
    assert caught.value.line == 2 and "Глагол:Число/Лицо" in caught.value.message
    assert rows(tmp_path, text, pairs(unknown_type="reject")) == [
        (WRONG, None, None, "unknown_edit_type")
    ]
    mapped = pairs(categories={"Глагол:*": "morphology"})  # RULEC-GEC's Russian tags
    assert rows(tmp_path, text, mapped)[1] == (WRONG, 0, "Morphology", None)


def test_the_most_specific_pattern_wins():
    types = EditTypes(
        {"G:*": "Morphology", "G:PREP:*": "Syntax", "G:PREP:WRONG": "Semantics"},
        ["S:*"],
        ERROR_TYPES,
    )
    assert types.classify("G:NOUN:CASE") == "Morphology"
    assert types.classify("G:PREP:MISSING") == "Syntax"
    assert types.classify("G:PREP:WRONG") == "Semantics"
    assert types.classify("S:ORTH") == "ignored"
    assert types.classify("X") is None


@pytest.mark.parametrize(
    ("categories", "ignore", "words"),
    [
        ({"G:*": "Grammar"}, [], "not in corpus.categories.learner"),
        ({"PUNCT": "Syntax"}, ["PUNCT"], "both name 'PUNCT'"),
    ],
)
def test_bad_mappings_are_params_errors(categories, ignore, words):
    with pytest.raises(RucolaError) as caught:
        EditTypes(categories, ignore, ERROR_TYPES)
    assert caught.value.path == "params.yaml" and words in caught.value.message


def _random_case(rng: random.Random) -> tuple[list[str], dict[str, tuple[list[tuple], list[str]]]]:
    """Tokens, and per annotator non-overlapping edits with the correction built alongside:
    at each point, perhaps insertions (one or two, kept in file order), then perhaps a
    deletion or replacement of the next tokens, so that insertions meet replacements at
    both ends."""
    tokens = [
        rng.choice(["а", "бы", "вон", "где", "дом", ",", "."]) + str(i)
        for i in range(rng.randint(1, 12))
    ]
    annotators = {}
    for annotator in map(str, range(rng.randint(1, 3))):
        edits, corrected, position = [], [], 0
        while position <= len(tokens):
            for _ in range(rng.choice([0, 0, 0, 0, 1, 1, 2])):  # insertions here
                new = [f"i{rng.randint(0, 99)}" for _ in range(rng.randint(1, 2))]
                edits.append((position, position, new))
                corrected += new
            if position < len(tokens) and rng.random() < 0.3:  # deletion or replacement
                end = min(len(tokens), position + rng.randint(1, 3))
                new = [f"x{rng.randint(0, 99)}" for _ in range(rng.choice([0, 1, 2]))]
                edits.append((position, end, new))
                corrected += new
                position = end
            else:
                corrected += tokens[position : position + 1]
                position += 1
        annotators[annotator] = (edits, corrected)
    return tokens, annotators


def _file_order(rng: random.Random, edits: list[tuple]) -> list[tuple]:
    """``edits`` shuffled, except that insertions at one point keep their order (that order
    is what the file says)."""
    shuffled = rng.sample(edits, len(edits))
    insertions = {}
    for start, end, new in edits:
        if start == end:
            insertions.setdefault(start, []).append((start, end, new))
    return [insertions[e[0]].pop(0) if e[0] == e[1] else e for e in shuffled]


def test_applying_an_annotators_edits_reproduces_their_correction(tmp_path):
    rng = random.Random(20261123)
    for case in range(400):
        tokens, annotators = _random_case(rng)
        lines = ["S " + " ".join(tokens)]
        for annotator, (edits, _) in annotators.items():
            if not edits:
                lines.append(f"A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||{annotator}")
            for start, end, new in _file_order(rng, edits):  # any order in the file
                lines.append(
                    f"A {start} {end}|||G:X|||{' '.join(new)}|||REQUIRED|||-NONE-|||{annotator}"
                )
        path = tmp_path / f"{case}.m2"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        (sentence,) = read_m2(path, "utf-8")
        assert sentence.tokens == tuple(tokens)
        for annotator, (_, corrected) in annotators.items():
            given = sentence.edits.get(annotator, ())
            assert overlap(given) is None, (case, annotator, lines)
            applied = apply_edits(sentence.tokens, given)
            assert applied == corrected, (case, annotator, lines)
