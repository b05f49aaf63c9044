"""The texts of the corpus's identity that reach the dataset card (issue 45, item 2): a
control character, an ANSI escape, a bidi control, a line of ``---``, an HTML comment left
open or a script tag is refused where params are read, in one line naming the params file
and the key, whichever text of ``corpus`` holds it; texts without them load as written."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rucola.errors import RucolaError
from rucola.params import load_settings
from rucola.settings import Params
from rucola.settings.text import BIDI_CONTROLS, problem

CITATION = "@article{x,\n  title = {Acceptability},\n  year = {2024}\n}"
ESCOLA = {
    "name": "escola",
    "pretty_name": "EsCoLA: un corpus de aceptabilidad",
    "language": "es",
    "description": "Oraciones de publicaciones lingüísticas.\n\nCon sus juicios.",
    "domain_descriptions": {"in_domain": "sentences from grammars", "out_of_domain": None},
    "homepage": "https://example.org/escola",
    "license": "cc-by-4.0",
    "license_note": "The sentences remain their publishers'.",
    "citations": [CITATION],
    "categories": {"in_domain": ["Sintaxis"], "out_of_domain": [], "learner": []},
}


def loaded(tmp_path: Path, corpus: dict) -> Params:
    path = tmp_path / "custom.yaml"
    path.write_text(
        yaml.safe_dump({"corpus": corpus}, allow_unicode=True, sort_keys=False), encoding="utf-8"
    )
    return load_settings(path)


def refused(tmp_path: Path, corpus: dict) -> str:
    with pytest.raises(RucolaError) as caught:
        loaded(tmp_path, corpus)
    text = str(caught.value)
    assert "\n" not in text and "custom.yaml:" in text, text
    return text


def test_a_clean_identity_loads_as_written(tmp_path):
    """Accents, a closed comment, `<b>`, `--` in page ranges: all the card may say."""
    corpus = {
        **ESCOLA,
        "description": "Oraciones (págs. 10--12) <b>con</b> juicios <!-- nota -->.\n\tFin.",
    }
    params = loaded(tmp_path, corpus)
    assert params.corpus.description == corpus["description"]
    assert params.corpus.pretty_name == ESCOLA["pretty_name"]


# (a key of corpus, where in it the text goes) for every text the card prints
def _put(key: str, text: str) -> dict:
    if key == "domain_descriptions":
        return {key: {"in_domain": text, "out_of_domain": None, "learner": None}}
    if key == "citations":
        return {key: ["@article{x,\n  note = {" + text + "}\n}"]}
    if key == "categories":
        return {key: {"in_domain": [text], "out_of_domain": [], "learner": []}}
    if key == "homepage":
        return {key: "https://example.org/" + text}
    return {key: text}


TEXTS = ["pretty_name", "description", "domain_descriptions", "license_note", "citations"]
BAD = [
    ("Es\u202eCoLA", "bidi control U+202E"),
    ("Es\u2067CoLA", "bidi control U+2067"),
    ("Es\u200fCoLA", "bidi control U+200F"),
    ("Es\u061cCoLA", "bidi control U+061C"),
    ("Es\x1b[31mCoLA", "ANSI escape"),
    ("Es\x07CoLA", "control character (U+0007)"),
    ("Es\x9bCoLA", "control character (U+009B)"),
    ("EsCoLA <script>alert(1)</script>", "<script> tag"),
    ("EsCoLA <SCRIPT src=x>", "<script> tag"),
    ("EsCoLA <!-- hidden", "HTML comment '<!--' without closing"),
]


@pytest.mark.parametrize("key", TEXTS)
@pytest.mark.parametrize(("text", "words"), BAD)
def test_every_card_text_refuses_what_changes_the_card(tmp_path, key, text, words):
    message = refused(tmp_path, {**ESCOLA, **_put(key, text)})
    assert f"corpus.{key}" in message and words in message, message


@pytest.mark.parametrize(("text", "words"), BAD[:7])
def test_the_homepage_and_the_categories_refuse_controls(tmp_path, text, words):
    """They reach the card's text and tables too (an address holds no `<` nor space)."""
    for key in ("homepage", "categories"):
        message = refused(tmp_path, {**ESCOLA, **_put(key, text)})
        assert f"corpus.{key}" in message and words in message, message


@pytest.mark.parametrize("key", ["description", "license_note", "citations", "domain_descriptions"])
@pytest.mark.parametrize("line", ["---", "  ---  ", "-----"])
def test_a_dash_line_is_refused_in_every_multiline_text(tmp_path, key, line):
    """Issue 45: a citation with a `---` line was accepted (it ends the card's front matter
    for tools that split there)."""
    message = refused(tmp_path, {**ESCOLA, **_put(key, f"one\n{line}\ntwo")})
    assert f"corpus.{key}" in message and "line of '---'" in message, message


def test_a_comment_closed_then_opened_again_is_refused():
    assert problem("a <!-- b --> c") is None
    assert "HTML comment" in (problem("a <!-- b --> c <!-- d") or "")
    assert "line 2" in (problem("a\n<!-- d\nmore") or "")


def test_one_line_texts_refuse_a_tab_that_multiline_texts_keep():
    assert problem("a\tb", lines=True) is None
    assert "U+0009" in (problem("a\tb", lines=False) or "")
    assert len(BIDI_CONTROLS) == 12


def test_a_source_s_detailed_source_refuses_them_too(tmp_path):
    """`extract.sources[i].source` is the `detailed_source` the card's table prints."""
    path = tmp_path / "custom.yaml"
    source = {"path": "data/raw/es.tsv", "source": "rae\u202e09"}
    body = {"corpus": ESCOLA, "extract": {"sources": [source]}}
    path.write_text(yaml.safe_dump(body, allow_unicode=True), encoding="utf-8")
    with pytest.raises(RucolaError) as caught:
        load_settings(path)
    text = str(caught.value)
    assert "\n" not in text and "extract.sources" in text and "U+202E" in text, text
